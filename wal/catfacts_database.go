package wal

import (
	"reflect"
	"slices"
)

// DatabaseFacts is one pg_database row of the source cluster (the
// databases are the cluster's, like the roles: one table of each read
// carries the list). datfrozenxid and datminmxid are not read (vacuum
// moves them outside the logical stream).
type DatabaseFacts struct {
	OID   uint32
	Name  string
	Owner uint32 // datdba
	// Encoding is the encoding's number (pg_encoding_to_char's argument).
	Encoding int32
	// LocProvider is datlocprovider ('c', 'i', 'b'; 15+, 0 before).
	LocProvider                    byte
	IsTemplate, AllowConn          bool
	HasLoginEvent                  bool  // dathasloginevt (17+)
	ConnLimit                      int32 // datconnlimit
	LastSysOID                     uint32
	Tablespace                     uint32 // dattablespace
	Collate, Ctype                 string
	Locale, ICURules, CollVersion  string // daticulocale/datlocale, daticurules, datcollversion
	LocaleNull, RulesNull, VerNull bool   // which of the three are NULL
	// ACL is datacl's elements as aclitemout prints them (nil: NULL).
	ACL []string
	// Comment is shobj_description(oid, 'pg_database') ("" none).
	Comment string
}

// MaxDatabases bounds the databases read: a cluster with more is
// recorded without them (DatabasesRead false: the SQL port refuses
// pg_database).
const MaxDatabases = 1000

// LanguageFacts is one pg_language row of the source database
// (plpgsql's OID is assigned by initdb, other languages by CREATE
// LANGUAGE or an extension: read, not assumed).
type LanguageFacts struct {
	OID, Owner               uint32 // oid, lanowner
	Name                     string
	IsPL, Trusted            bool   // lanispl, lanpltrusted
	CallFn, Inline, Validate uint32 // lanplcallfoid, laninline, lanvalidator
	// ACL is lanacl's elements as aclitemout prints them (nil: NULL).
	ACL []string
}

func (l LanguageFacts) equal(o LanguageFacts) bool {
	x, y := l, o
	x.ACL, y.ACL = nil, nil
	return reflect.DeepEqual(x, y) && aclEqual(l.ACL, o.ACL)
}

func (d DatabaseFacts) equal(o DatabaseFacts) bool {
	x, y := d, o
	x.ACL, y.ACL = nil, nil
	return reflect.DeepEqual(x, y) && aclEqual(d.ACL, o.ACL)
}

// aclEqual compares two ACLs, NULL apart from empty.
func aclEqual(a, b []string) bool { return slices.Equal(a, b) && (a == nil) == (b == nil) }

// databasesEqual reports whether s and o read the same databases and
// languages.
func (s *SchemaFacts) databasesEqual(o *SchemaFacts) bool {
	return s.DatabasesRead == o.DatabasesRead && slices.EqualFunc(s.Databases, o.Databases, DatabaseFacts.equal) &&
		s.LanguagesRead == o.LanguagesRead && slices.EqualFunc(s.Languages, o.Languages, LanguageFacts.equal)
}
