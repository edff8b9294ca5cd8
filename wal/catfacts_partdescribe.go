package wal

import "slices"

// PartDescribeFacts are what psql's \d and \d+ print of the partitioned
// tables above the followed partitions (issue 23, session 26): the
// mirror keeps no record of their own, so their columns' storage and
// comments, partition key, partitioned indexes, check and foreign-key
// constraints, the constraints referencing them, publications, policies,
// statistics objects, triggers and partitions' bounds are read from the
// server by the table carrying the cluster's facts
// (replication/relmeta_partdescribe.go), up to one catalog poll stale.
// Each is kept as the rows PostgreSQL answers to psql's own \d query of
// that name (the regclass columns as OIDs, Rels naming them), read under
// search_path public. Tables is nil when there were more than
// MaxPartDescribe (then the SQL port refuses, as before). A later
// sidecar appends fields (one length-prefixed body,
// mirror/catfacts_partdescribe.go, section 'C').
type PartDescribeFacts struct {
	Tables []PartDescribe
}

// MaxPartDescribe bounds the partitioned tables described (a database
// with more keeps none: \d of them stays refused).
const MaxPartDescribe = 2000

// MaxPartDescribeRows bounds the rows of one query of one table (a
// table with more, e.g. thousands of partitions, is not described).
const MaxPartDescribeRows = 10000

// PartDescribe is one partitioned table's answers to psql's \d queries.
type PartDescribe struct {
	OID          uint32
	Schema, Name string
	// Results are the answers by query name (relmeta_partdescribe.go's
	// names, which the SQL port's psql texts share).
	Results []PartResult
	// Rels are the relations the answers' regclass columns name (by OID),
	// so the SQL port prints them as regclass does under the session's
	// search path.
	Rels []PartRel
}

// PartResult is one query's rows; a cell is its text output.
type PartResult struct {
	Query string
	Rows  [][]PartCell
}

// PartCell is one value's text output, or NULL.
type PartCell struct {
	Text string
	Null bool
}

// PartRel is a relation named by OID in a PartDescribe.
type PartRel struct {
	OID          uint32
	Schema, Name string
}

// Result is the rows of the query named q, and whether it was read.
func (p *PartDescribe) Result(q string) ([][]PartCell, bool) {
	for _, r := range p.Results {
		if r.Query == q {
			return r.Rows, true
		}
	}
	return nil, false
}

// Equal reports whether p and o hold the same facts (nil: not read).
func (p *PartDescribeFacts) Equal(o *PartDescribeFacts) bool {
	if p == nil || o == nil {
		return p == o
	}
	return (p.Tables == nil) == (o.Tables == nil) && slices.EqualFunc(p.Tables, o.Tables, func(a, b PartDescribe) bool {
		return a.OID == b.OID && a.Schema == b.Schema && a.Name == b.Name && slices.Equal(a.Rels, b.Rels) &&
			slices.EqualFunc(a.Results, b.Results, func(x, y PartResult) bool {
				return x.Query == y.Query && slices.EqualFunc(x.Rows, y.Rows, slices.Equal)
			})
	})
}
