package wal

import "slices"

// ListedColumnsFacts are the columns of every table, partitioned table,
// view, materialized view and foreign table of the relation list
// (RelationListFacts) as pg_attribute and pg_attrdef hold them: what
// the SQL port's pg_attribute, pg_attrdef and information_schema.columns
// list for the relations sidecar does not follow (an unfollowed table,
// the partitioned tables above followed partitions, a view over
// unfollowed tables). Read with the relation list by the table carrying
// it, at the same poll: up to one catalog poll stale after ALTER TABLE.
// A later sidecar appends fields (one length-prefixed body,
// mirror/catfacts_listedcols.go, section 'A').
type ListedColumnsFacts struct {
	// Columns are the user columns (attnum > 0, dropped ones included)
	// by relation OID and attnum; nil when there were more than
	// MaxListedColumns (not read).
	Columns []ListedColumn
}

// MaxListedColumns bounds the columns read: a database with more keeps
// them unread (what needs them refused, as before they were read)
// rather than a copy per poll of them all.
const MaxListedColumns = 50000

// ListedColumn is one pg_attribute row (and its pg_attrdef row) of a
// relation of the relation list.
type ListedColumn struct {
	Rel     uint32 // attrelid
	Name    string // attname
	Num     int16  // attnum
	TypeOID uint32 // atttypid
	TypeMod int32  // atttypmod
	Len     int16  // attlen
	NDims   int32  // attndims
	// NotNull, HasDefault, Dropped, IsLocal are attnotnull, atthasdef,
	// attisdropped, attislocal.
	NotNull, HasDefault, Dropped, IsLocal bool
	Identity, Generated                   byte   // attidentity, attgenerated (0: '')
	InhCount                              int32  // attinhcount
	Collation                             uint32 // attcollation
	// Default and DefaultPretty are pg_get_expr(adbin, adrelid) and
	// (adbin, adrelid, true) under search_path public ("": none).
	Default, DefaultPretty string
}

// Equal reports whether l and o hold the same facts (nil: not read).
func (l *ListedColumnsFacts) Equal(o *ListedColumnsFacts) bool {
	if l == nil || o == nil {
		return l == o
	}
	return (l.Columns == nil) == (o.Columns == nil) && slices.Equal(l.Columns, o.Columns)
}
