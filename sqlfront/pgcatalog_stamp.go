package sqlfront

import "github.com/sidecar-dev/sidecar/wal"

// A catalog plan is made from the followed tables' facts at planning:
// the reach proofs (pgcatalog_reach.go) and the functions bound
// (format_type, pg_type_is_visible, …) read them then, while the
// catalog relations' rows are built when the plan runs. A cached plan
// made before the catalog poll recorded new facts (a domain created, a
// role added) would prove and answer from the old ones beside rows of
// the new: the plan cache plans it again when the facts changed.

// factsStamp is the identity of the tables' facts (Mirror.UpdateFacts
// records new facts as a new value, never in place).
func factsStamp(tables []Table) []*wal.Facts {
	out := make([]*wal.Facts, len(tables))
	for i := range tables {
		out[i] = tables[i].Facts
	}
	return out
}

// stampFacts records the facts a catalog plan is made from, when it
// binds its first catalog relation (before any proof or function reads
// them: a poll during the planning leaves an older stamp, so the plan is
// made again at its next use).
func (c *vecCatalog) stampFacts() {
	if c.facts == nil {
		c.facts = factsStamp(c.pl.src.Tables())
	}
}
