package wal

import "slices"

// PartRoot is a followed partitioned table (a partition root) as the
// catalog describes it: the mirror holds its leaves' rows, never a
// relation of its own, and keeps this record so that `FROM root` can be
// answered as the union of its leaves in the root's column order, as of
// the version read (issue 21 item 4).
type PartRoot struct {
	// Name is the root's canonical name (TableName.String).
	Name string
	// Columns are the root's columns in its attribute order (attnum),
	// dropped columns left out; Key is not set.
	Columns []Column
	// Leaves are the root's leaf partitions at every level, canonical
	// names sorted; LeafKinds[i] is Leaves[i]'s pg_class.relkind ('r', or
	// 'f' for a foreign table, which is never copied).
	Leaves    []string
	LeafKinds []byte
}

// Equal reports whether p and o describe the same columns (collations
// included) and leaves.
func (p *PartRoot) Equal(o *PartRoot) bool {
	if p == nil || o == nil {
		return p == o
	}
	return p.Name == o.Name && slices.Equal(p.Columns, o.Columns) && slices.Equal(p.Leaves, o.Leaves) && slices.Equal(p.LeafKinds, o.LeafKinds)
}
