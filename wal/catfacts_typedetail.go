package wal

import "slices"

// TypeDetailFacts are what psql's \dT, \dD and \dO (and pg_type,
// pg_constraint, pg_description and pg_collation beside them) read of
// the source database's types beyond its domains and enums
// (UserTypeFacts), read with the schemas by the table carrying the
// cluster's facts. None of it is replicated: up to one catalog poll
// stale. A later sidecar appends fields (the section is one
// length-prefixed body, mirror/catfacts_typedetail.go).
type TypeDetailFacts struct {
	// Types are the database's other types outside pg_catalog and
	// information_schema — composite types of CREATE TYPE … AS (…)
	// (relkind 'c'; tables' and views' row types are not), ranges,
	// multiranges, base types (an extension's), shell types — and their
	// array types, by OID.
	Types []OtherType
	// ACLs are typacl of the types outside pg_catalog (information_schema's
	// domains, the domains and enums, Types) whose typacl is not NULL, by
	// OID.
	ACLs []TypeACL
	// Comments are the pg_description rows (objsubid 0) of the types
	// outside pg_catalog, by OID.
	Comments []ObjectComment
	// Constraints are the domains' pg_constraint rows (contypid not 0:
	// CHECK, and from 17 NOT NULL), information_schema's domains'
	// included, in their heap order (ctid: the order PostgreSQL's scans
	// of pg_constraint by contypid return them in, psql's \dD lists).
	Constraints []DomainConstraint
	// Collations are the pg_collation rows outside pg_catalog and
	// information_schema, those a type outside pg_catalog names
	// (typcollation), and default, C and POSIX (100, 950, 951), by OID.
	Collations []CollationRow
	// CollationNamesakes are the other collations (of the database's
	// encoding or any) having a name of Collations: on a search path one
	// may hide another (pg_collation_is_visible).
	CollationNamesakes []TypeName
	// Namespaces are the schemas of Types and Collations (pg_namespace
	// rows).
	Namespaces []NamespaceFacts
	// Namesakes are the other pg_type rows having a name of Types (as
	// UserTypeFacts.Namesakes).
	Namesakes []TypeName
	// CollationComments are the pg_description rows of Collations, by
	// OID.
	CollationComments []ObjectComment
}

// OtherType is one pg_type row of TypeDetailFacts.Types: the columns
// UserTypeFacts reads, typrelid (a composite type's relation) and
// typisdefined (false: a shell type).
type OtherType struct {
	TypeFacts
	Relid   uint32
	Defined bool
}

// TypeACL is one type's typacl, each aclitem's text.
type TypeACL struct {
	OID uint32
	ACL []string
}

// DomainConstraint is one pg_constraint row of a domain.
type DomainConstraint struct {
	OID, TypeOID, Namespace         uint32
	Name                            string
	Type                            byte // contype: 'c' CHECK, 'n' NOT NULL (17+)
	Deferrable, Deferred, Validated bool
	Local, NoInherit                bool // conislocal, connoinherit
	InhCount                        int  // coninhcount
	// Def and DefPretty are pg_get_constraintdef(oid) and (oid, true).
	Def, DefPretty string
}

// CollationRow is one pg_collation row. Locale is colliculocale (15,
// 16) or colllocale (17+), Rules collicurules (16+); a *Null flag says
// the column is NULL. collcollate and collctype are NULL only from 17.
type CollationRow struct {
	OID, Namespace, Owner                                      uint32
	Name                                                       string
	Provider                                                   byte
	Deterministic                                              bool
	Encoding                                                   int32
	Collate, Ctype                                             string
	Locale, Rules                                              string
	Version                                                    string
	CollateNull, CtypeNull, LocaleNull, RulesNull, VersionNull bool
}

// MaxTypeDetails bounds the rows read (types, comments, constraints,
// collations): a database with more is recorded without them (the SQL
// port then refuses what they answer).
const MaxTypeDetails = 20000

// Equal reports whether d and o hold the same facts (nil: not read).
func (d *TypeDetailFacts) Equal(o *TypeDetailFacts) bool {
	if d == nil || o == nil {
		return d == o
	}
	return slices.Equal(d.Types, o.Types) && slices.EqualFunc(d.ACLs, o.ACLs, func(a, b TypeACL) bool { return a.OID == b.OID && slices.Equal(a.ACL, b.ACL) }) &&
		slices.Equal(d.Comments, o.Comments) && slices.Equal(d.Constraints, o.Constraints) && slices.Equal(d.Collations, o.Collations) &&
		slices.Equal(d.CollationNamesakes, o.CollationNamesakes) && slices.Equal(d.Namespaces, o.Namespaces) && slices.Equal(d.Namesakes, o.Namesakes) &&
		slices.Equal(d.CollationComments, o.CollationComments)
}
