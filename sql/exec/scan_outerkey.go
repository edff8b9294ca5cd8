package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A scan inside a correlated subquery (scanOp.repeat) keeps its decoded
// rows once and serves every outer value from them (runCached); when
// they do not fit its share of the working memory (noCache) it reads
// the table again for each outer value. Its primary-key range then may
// be the outer value's: TPC-H Q2's subquery reads partsupp keyed on
// ps_partkey = p_partkey, a few rows per part, where the whole table
// (800,000 rows at SF 1) was read and filtered for each of the ~3,000
// outer pairs when the cache did not fit (5 minutes at SF 1 under the
// default working memory). Never while the cache is filled (repeat is
// off then): the cache holds every row, for every outer value.

// outerKey is the value of key bound x when x is an outer column of a
// repeated scan read without its cache (outer=false: x is not; a nil
// value: the outer value is NULL, no row's key equals it and the
// scan's filter drops every row, so no range is given).
func (s *scanOp) outerKey(x plan.Scalar) (v types.Value, oid plan.OID, outer bool) {
	r, ok := x.(*plan.ColRef)
	if !ok || !s.repeat || !s.noCache {
		return nil, 0, false
	}
	for _, id := range s.s.Cols {
		if id == r.ID {
			return nil, 0, false // the scan's own column
		}
	}
	v, ok = s.e.outer[r.ID]
	if !ok {
		return nil, 0, false
	}
	return v, r.T.OID, true
}

// keyReadRows is how many rows of a table one read of an outer value's
// key range is taken to cost: a repeated scan reads ranges until it has
// run rows/keyReadRows times, then keeps the whole table (runCached).
const keyReadRows = 100

// readOuterKey says whether this run of a repeated scan reads only the
// outer value's key range instead of filling or using its cache: while
// no cache is held, its key range has an outer bound, and fewer than
// the table's rows/keyReadRows runs were read so. TPC-H Q2's subquery
// is run for a few thousand parts at SF 1, each with four partsupp rows:
// its cache decoded and indexed all 800,000 rows (the map inserts and
// their memory were the query's largest cost, 1.32× PostgreSQL's CPU,
// which reads four rows per part through the primary key's index). A
// subquery run for many outer values still ends up cached: the ranges
// read before cost at most about as much as one more pass.
func (s *scanOp) readOuterKey() bool {
	k, t := s.s.Key, s.s.Table
	if s.cache != nil || k == nil || t == nil || int64(s.keyReads) >= t.Rows/keyReadRows {
		return false
	}
	bound := false
	for _, x := range append(append([]plan.Scalar(nil), k.Eq...), k.Lo, k.Hi) {
		if r, ok := x.(*plan.ColRef); ok && !slices.Contains(s.s.Cols, r.ID) {
			if _, outer := s.e.outer[r.ID]; outer {
				bound = true
			}
		}
	}
	if !bound {
		return false
	}
	s.keyReads++
	return true
}
