package wal

import "slices"

// UserTypeFacts are the source database's own domains and enums (every
// schema but pg_catalog and information_schema), read with the schemas
// by the table carrying the cluster's facts: pg_type lists them whether
// or not a followed column uses them, and clients read them whole
// (SQLAlchemy's reflection: `WHERE typtype = 'd'`, `'e'`).
type UserTypeFacts struct {
	// Types are the domains and enums and their array types, by OID.
	Types []TypeFacts
	// Labels are the enums' pg_enum rows, by OID.
	Labels []EnumLabel
	// Namespaces are the schemas of Types (pg_namespace rows).
	Namespaces []NamespaceFacts
	// Namesakes are the other pg_type rows having a name of Types (a
	// table's row type, a built-in type of that name in pg_catalog): on a
	// search path one may hide a user type (pg_type_is_visible).
	Namesakes []TypeName
	// Retired are the texts labels had before a RENAME VALUE, as the
	// catalog polls saw them change (enumhistory.go); RetiredLost says
	// the history outgrew its bound and was dropped.
	Retired     []RetiredLabel
	RetiredLost bool
}

// EnumLabel is one pg_enum row.
type EnumLabel struct {
	OID, TypeOID uint32
	SortOrder    float32
	Label        string
}

// TypeName is a pg_type row's name and schema.
type TypeName struct {
	Namespace string
	Name      string
}

// MaxUserTypes bounds the user types read: a database with more is
// recorded without them (the SQL port then refuses what they answer).
const MaxUserTypes = 10000

// Equal reports whether u and o hold the same types (nil: not read).
func (u *UserTypeFacts) Equal(o *UserTypeFacts) bool {
	if u == nil || o == nil {
		return u == o
	}
	return slices.Equal(u.Types, o.Types) && slices.Equal(u.Labels, o.Labels) && slices.Equal(u.Namespaces, o.Namespaces) && slices.Equal(u.Namesakes, o.Namesakes) &&
		slices.Equal(u.Retired, o.Retired) && u.RetiredLost == o.RetiredLost
}
