package wal

import "slices"

// ColumnType is what pg_type and pg_cast say of one column's type, for the
// SQL port to tell which operations on a column of a type its engine does
// not know (a user range, composite or base type, xml, point, …; carried as
// the output text) answer as PostgreSQL does: the output text, IS [NOT]
// NULL (not on a composite: PostgreSQL tests each field), count, and a cast
// to text only where it is the type's output function. The copy and the
// catalog poll read it (replication/relmeta_coltypes.go).
type ColumnType struct {
	// Name is format_type(atttypid, atttypmod), for messages.
	Name string
	// Kind is pg_type.typtype of the column's type, or of its base type
	// for a domain: 'b' base, 'c' composite, 'e' enum, 'r' range, 'm'
	// multirange, 'p' pseudo-type.
	Kind byte
	// Array is true for an array type (typelem and typlen -1), a domain
	// over one included.
	Array bool
	// StringCast is true when pg_cast has a cast from the type (from its
	// base type, for a domain) to text or varchar that need not print what
	// its output function prints: xml::text keeps an XML declaration
	// xml_out rewrites; a user's CREATE CAST … WITH FUNCTION. A cast WITH
	// INOUT, or WITHOUT FUNCTION from a type printed by textout (citext),
	// does not count.
	StringCast bool
	// BaseType and BaseMod are the type and typmod PostgreSQL describes
	// the column by on the wire (getBaseTypeAndTypmod: under every
	// domain, with the innermost domain's typtypmod): the column's own
	// type and atttypmod when it is not a domain. BaseType 0: not read
	// (a record written before; mirror section 't').
	BaseType uint32
	BaseMod  int32
}

// columnTypesEqual compares the column types of f and o (nil: not read).
func (f *Facts) columnTypesEqual(o *Facts) bool {
	return (f.ColumnTypes == nil) == (o.ColumnTypes == nil) && slices.Equal(f.ColumnTypes, o.ColumnTypes)
}
