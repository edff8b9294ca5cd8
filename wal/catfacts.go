package wal

import "slices"

// Catalog facts a pgoutput Relation message does not carry: the order each
// text column compares in, the database's default collation, and a
// table's inheritance descendants. The copy reads them from PostgreSQL's
// catalogs (replication/relmeta.go) and the mirror keeps them with the
// Relation, so the SQL port can answer as PostgreSQL does or refuse.

// CollOrder says how a collation orders text, as far as sidecar knows.
type CollOrder uint8

// Collation orders.
const (
	// CollUnknown: no collation was read (a non-collatable type, a Relation
	// from the stream or from a record written before facts were read).
	CollUnknown CollOrder = iota
	// CollBytes: the order of the UTF-8 bytes (C, POSIX, ucs_basic,
	// C.UTF-8, the builtin provider), deterministic.
	CollBytes
	// CollOther: a libc locale or an ICU collation, deterministic: equality
	// is byte equality, but order is the locale's.
	CollOther
	// CollNondeterministic: equal strings may differ in bytes.
	CollNondeterministic
	// CollLibc: a deterministic libc locale whose order this host's glibc
	// was proven to reproduce (catfacts_collation.go); Collation.Version
	// says under which glibc.
	CollLibc
)

// Collation is a column's (or the database default's) collation.
type Collation struct {
	// Name is pg_collation.collname, "default" for the database default
	// (whose order is then Facts.Default's).
	Name string
	// Locale describes the provider and locale for messages, e.g.
	// "icu und-x-icu" or "libc en_US.UTF-8".
	Locale string
	Order  CollOrder
	// Version is, for CollLibc, the collation version PostgreSQL reported
	// (its glibc's version), which this host's glibc matched when the
	// order was proven; "" otherwise.
	Version string `json:",omitempty"`
}

// Facts are a table's catalog facts beyond its columns.
type Facts struct {
	// Kind is pg_class.relkind: 'r' table, 'p' partitioned table (followed
	// as its root: its rows are all its partitions' rows).
	Kind byte
	// Default is the database's default collation.
	Default Collation
	// Descendants are the tables that inherit from this one, directly or
	// not (pg_inherits), for an ordinary table; empty for a partitioned
	// root followed as the root, whose rows include its partitions'.
	Descendants []Descendant
	// PartitionOf is the canonical name of the partitioned root of a
	// partition ("" otherwise): a root followed as its partitions is not a
	// table of the mirror, and reading it whole is refused by name.
	PartitionOf string
	// Columns are the columns' definitions beyond their types, in the
	// Relation's column order (nil when not read: a record written
	// before they were). The SQL port's pg_catalog answers from them.
	Columns []ColumnFacts
	// PrimaryKey is the table's primary key constraint (nil: none, or
	// not read when Columns is nil).
	PrimaryKey *KeyConstraint
	// Schema are the table's constraints, indexes, comments and owned
	// sequences (catfacts_schema.go; nil when not read).
	Schema *SchemaFacts
	// NotCarried are the table's columns the stream and the copy do not
	// carry, by name in attnum order: its generated columns (pgoutput
	// never sends them before PostgreSQL 18, nor by default from 18; COPY
	// TO leaves them out). The mirror has no values for them, so a read
	// that would show them is refused rather than answered without them.
	NotCarried []string
	// AttNums are pg_attribute.attnum of the Relation's columns, in its
	// column order, and NotCarriedColumns the definitions of the columns
	// NotCarried names, in attnum order (catfacts_generated.go): the
	// catalog lists a table's columns at their attnums, with gaps where
	// columns were dropped. Both nil when not read (a record written
	// before they were).
	AttNums           []int16
	NotCarriedColumns []NotCarriedColumn
	// Dropped are the table's dropped columns, which PostgreSQL keeps in
	// pg_attribute (read with AttNums).
	Dropped []DroppedColumn
	// Inherits are its parents, partitioned ancestors and its views'
	// column comments (catfacts_inherits.go; nil when not read).
	Inherits *InheritFacts
	// ColumnTypes are the columns' types as pg_type and pg_cast describe
	// them, in the Relation's column order (catfacts_coltypes.go; nil when
	// not read: a record written before they were).
	ColumnTypes []ColumnType
	// Partition is its partition bound and constraint
	// (catfacts_partition.go; nil when not read).
	Partition *PartitionFacts
}

// ColumnFacts are what pg_attribute and pg_attrdef say of one column.
type ColumnFacts struct {
	NotNull bool // attnotnull
	// Default is pg_get_expr(adbin, adrelid) read with search_path
	// public; HasDefault says there is one (atthasdef).
	HasDefault bool
	Default    string
	// DefaultPretty is pg_get_expr(adbin, adrelid, true), as psql
	// prints it.
	DefaultPretty string
	Identity      byte // attidentity: 0, 'a' always, 'd' by default
	Generated     byte // attgenerated: 0 or 's' stored
}

// KeyConstraint is a primary key: its constraint (and index) name and
// its columns by name, in key order.
type KeyConstraint struct {
	Name    string
	Columns []string
}

// Descendant is one table inheriting from a followed table.
type Descendant struct {
	Name   string // canonical name (TableName.String)
	Parent string // canonical name of the table it inherits from directly
	Kind   byte   // pg_class.relkind: 'r', 'p' (partitioned), 'f' (foreign)
}

// Equal reports whether f and o hold the same facts.
func (f *Facts) Equal(o *Facts) bool {
	if f == nil || o == nil {
		return f == o
	}
	return f.Kind == o.Kind && f.Default == o.Default && f.PartitionOf == o.PartitionOf && slices.Equal(f.Descendants, o.Descendants) &&
		slices.Equal(f.Columns, o.Columns) && (f.PrimaryKey == nil) == (o.PrimaryKey == nil) &&
		(f.PrimaryKey == nil || f.PrimaryKey.Name == o.PrimaryKey.Name && slices.Equal(f.PrimaryKey.Columns, o.PrimaryKey.Columns)) &&
		f.Schema.Equal(o.Schema) && slices.Equal(f.NotCarried, o.NotCarried) && f.columnNumbersEqual(o) && f.Inherits.Equal(o.Inherits) &&
		f.columnTypesEqual(o) && f.Partition.Equal(o.Partition)
}

// SameFacts reports whether r and o carry the same catalog facts (column
// collations and Facts); with Equal, that they are the same in full.
func (r *Relation) SameFacts(o *Relation) bool {
	if len(r.Columns) != len(o.Columns) || !r.Facts.Equal(o.Facts) {
		return false
	}
	for i := range r.Columns {
		if r.Columns[i].Collation != o.Columns[i].Collation {
			return false
		}
	}
	return true
}

// WithFacts returns a copy of r with the collations and facts of f (a
// Relation of the same columns read from the catalog); r is not modified.
func (r *Relation) WithFacts(f *Relation) *Relation {
	out := *r
	out.Columns = slices.Clone(r.Columns)
	for i := range out.Columns {
		if i < len(f.Columns) && f.Columns[i].Name == out.Columns[i].Name {
			out.Columns[i].Collation = f.Columns[i].Collation
		}
	}
	out.Facts = f.Facts
	return &out
}
