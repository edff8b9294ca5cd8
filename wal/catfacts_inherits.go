package wal

import "slices"

// InheritFacts are a table's places in pg_inherits and the partitioned
// tables above it, and the comments on the columns of the views its
// record carries (SchemaFacts.Views): what psql's \d (Inherits, the
// partitions of a partitioned table), \dt and pg_class show of
// partitioned tables sidecar does not hold rows for, and what
// pg_description holds of views. Read by the copy and the catalog poll
// (replication/relmeta_inherits.go); nil when not read (a record written
// before). A later sidecar appends fields (one length-prefixed body,
// mirror/catfacts_inherits.go).
type InheritFacts struct {
	// Parents are the tables this one inherits from directly
	// (pg_inherits.inhrelid = the table), in inhseqno order.
	Parents []InheritParent
	// Ancestors are the partitioned tables above a partition, from its
	// direct parent up to the root (pg_partition_ancestors), nil for a
	// table that is not a partition.
	Ancestors []PartAncestor
	// ViewComments are col_description of the columns of the views of
	// the table's schema facts, per view.
	ViewComments []ViewComments
}

// InheritParent is one pg_inherits row of a table, seen from the child.
type InheritParent struct {
	OID          uint32
	Schema, Name string
	Kind         byte // the parent's relkind
	// DetachPending is inhdetachpending (DETACH PARTITION … CONCURRENTLY
	// interrupted).
	DetachPending bool
}

// PartAncestor is one partitioned table above a followed partition.
type PartAncestor struct {
	OID          uint32
	Schema, Name string
	OwnerOID     uint32 // relowner
	Owner        string // pg_get_userbyid(relowner)
	// Parent is the OID of the partitioned table it is a partition of
	// (0 for the root); Bound is pg_get_expr(relpartbound, oid) then
	// ("" for the root).
	Parent uint32
	Bound  string
	// Natts is relnatts.
	Natts int16
	// Indexes are its partitioned indexes (relkind 'I'), by OID.
	Indexes []PartIndex
}

// PartIndex is a partitioned index of a partitioned table.
type PartIndex struct {
	OID   uint32
	Name  string
	AM    uint32 // relam
	Natts int16  // relnatts
	// Parent is the OID of the partitioned index it is a partition of
	// (0 for none).
	Parent uint32
	// KeyAtts is pg_index.indnkeyatts, Flags its booleans (PartIndex*).
	KeyAtts int16
	Flags   uint16
}

// PartIndex flags: pg_index's booleans of a partitioned index.
const (
	PartIndexUnique uint16 = 1 << iota
	PartIndexNullsNotDistinct
	PartIndexPrimary
	PartIndexExclusion
	PartIndexImmediate
	PartIndexClustered
	PartIndexValid
	PartIndexCheckXmin
	PartIndexReady
	PartIndexLive
	PartIndexReplIdent
)

// equalAncestors compares two ancestor lists, indexes included.
func equalAncestors(a, b []PartAncestor) bool {
	return slices.EqualFunc(a, b, func(x, y PartAncestor) bool {
		return x.OID == y.OID && x.Schema == y.Schema && x.Name == y.Name && x.OwnerOID == y.OwnerOID && x.Owner == y.Owner &&
			x.Parent == y.Parent && x.Bound == y.Bound && x.Natts == y.Natts && slices.Equal(x.Indexes, y.Indexes)
	})
}

// ViewComments are a view's column comments, by attnum - 1 ("" none).
type ViewComments struct {
	OID      uint32
	Comments []string
}

// Equal reports whether i and o hold the same facts (nil: not read).
func (i *InheritFacts) Equal(o *InheritFacts) bool {
	if i == nil || o == nil {
		return i == o
	}
	return slices.Equal(i.Parents, o.Parents) && equalAncestors(i.Ancestors, o.Ancestors) &&
		slices.EqualFunc(i.ViewComments, o.ViewComments, func(a, b ViewComments) bool {
			return a.OID == b.OID && slices.Equal(a.Comments, b.Comments)
		})
}
