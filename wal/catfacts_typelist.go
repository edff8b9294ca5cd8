package wal

import "slices"

// TypeListFacts are every pg_type row of the source database as
// pgjdbc's DatabaseMetaData reads them (getTypeInfo, getUDTs and the
// driver's type cache), in the server's heap order: pgjdbc's getTypeInfo
// query has no ORDER BY and sorts the rows by JDBC type stably, so the
// order within a JDBC type is the order PostgreSQL scanned pg_type in.
// Built-in types differ by major and the database's own (every table's
// row type, enums, domains, ranges) change with DDL; read with the
// roles by the table carrying them, up to one catalog poll stale. A
// later sidecar appends fields (one length-prefixed body,
// mirror/catfacts_typelist.go, section 'z').
type TypeListFacts struct {
	// Types are the rows in ctid order but those of temporary schemas;
	// nil when there were more than MaxListedTypes (not read).
	Types []TypeListEntry
	// TempTypes says temporary schemas held types (other sessions'
	// temporary tables' row types): they are not read — sessions create
	// and drop them all the time, and every poll would record a new list
	// — so what lists them is refused while there are some.
	TempTypes bool
}

// MaxListedTypes bounds the pg_type rows read (a fresh database has
// 600 to 620; every table adds two): a database with more keeps them
// unread (what needs them refused) rather than a copy per poll.
const MaxListedTypes = 30000

// TypeListEntry is one pg_type row's columns pgjdbc reads.
type TypeListEntry struct {
	OID       uint32
	Namespace uint32 // typnamespace
	Name      string // typname
	Type      byte   // typtype
	// IsArray is typinput = 'pg_catalog.array_in'::regproc (pgjdbc's
	// test for an array type).
	IsArray bool
	// RelKind is the relkind of typrelid's relation (0 when typrelid is
	// 0): getTypeInfo lists a relation's row type only for a composite
	// type ('c').
	RelKind  byte
	BaseType uint32 // typbasetype
	// Comment is obj_description(oid, 'pg_type') ("": none).
	Comment string
}

// Equal reports whether l and o hold the same facts (nil: not read).
func (l *TypeListFacts) Equal(o *TypeListFacts) bool {
	if l == nil || o == nil {
		return l == o
	}
	return (l.Types == nil) == (o.Types == nil) && slices.Equal(l.Types, o.Types) && l.TempTypes == o.TempTypes
}
