package wal

// PartitionFacts are what psql's \d and \d+ print of a partition beyond
// its pg_inherits row (InheritFacts.Parents): its bound and its
// partition constraint. Read by the copy and the catalog poll
// (replication/relmeta_partition.go) for every table, empty for a table
// that is not a partition; nil when not read (a record written before:
// the SQL port then refuses what they answer). A later sidecar appends
// fields (one length-prefixed body, mirror/catfacts_partition.go).
type PartitionFacts struct {
	// Bound is pg_get_expr(relpartbound, oid) ("" not a partition).
	Bound string
	// Constraint is pg_get_partition_constraintdef(oid) read with
	// search_path public ("" none).
	Constraint string
}

// Equal reports whether p and o hold the same facts (nil: not read).
func (p *PartitionFacts) Equal(o *PartitionFacts) bool {
	if p == nil || o == nil {
		return p == o
	}
	return *p == *o
}
