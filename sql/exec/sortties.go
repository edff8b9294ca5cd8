package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The sort that orders a statement's result leaves rows equal on its
// keys in an order PostgreSQL's plan decides (the order its sort reads
// them in; its quicksort is not stable). Rows tied on the keys whose
// other columns differ are the usual unspecified order of ties. But
// equal keys can print differently — float 0 and -0, numeric 3 and
// 3.00, interval '1 day' and '24 hours', bpchar under different lengths,
// jsonb 1 and 1.0 — and then an ORDER BY that names every column still
// leaves `3.00` before `3` or after it as PostgreSQL's plan has it
// (randmix seeds 7163 q27, 7178 q55, 7199 q10 answered the other
// order). The sidecar cannot know that order, so the statement is
// refused (0A000) when two rows it emits adjacently tie on every key and
// a key prints differently; rows whose keys print alike pass as before.

// sortTiesUndetermined refuses a result whose order PostgreSQL's plan
// decides among keys equal but printing differently.
var sortTiesUndetermined = &types.Error{Code: types.CodeUnsupported,
	Message: "not supported yet: ORDER BY over values that compare equal but print differently (0 and -0, 1.0 and 1.00, '1 day' and '24 hours'): PostgreSQL's plan decides their order"}

// shownSorts are the sorts whose order reaches the statement's result:
// the one under the result's projections, filters, LIMIT and DISTINCT.
func shownSorts(rel plan.Rel) map[*plan.Sort]bool {
	for {
		switch x := rel.(type) {
		case *plan.Sort:
			return map[*plan.Sort]bool{x: true}
		case *plan.Project:
			rel = x.Input
		case *plan.Filter:
			rel = x.Input
		case *plan.Limit:
			rel = x.Input
		case *plan.Distinct:
			rel = x.Input
		case *plan.With:
			rel = x.Body
		default:
			return nil
		}
	}
}

// looseKeys are the keys of types whose equal values can print
// differently (looseCols).
func looseKeys(keys []winKey) []winKey {
	var loose []winKey
	for _, k := range keys {
		if len(looseCols([]plan.OID{k.oid})) > 0 {
			loose = append(loose, k)
		}
	}
	return loose
}

// tiedApart says whether rows a and b, adjacent in the sort's output,
// tie on keys and a loose key prints differently.
func tiedApart(keys, loose []winKey, a, b []types.Value) bool {
	if compareKeys(keys, a, b) != 0 {
		return false
	}
	for _, k := range loose {
		if !sameValue(k.oid, a[k.idx], b[k.idx]) {
			return true
		}
	}
	return false
}

// tiesUndetermined checks the rows of an in-memory sort, sorted.
func tiesUndetermined(keys []winKey, rows [][]types.Value) error {
	loose := looseKeys(keys)
	if len(loose) == 0 {
		return nil
	}
	for r := 1; r < len(rows); r++ {
		if tiedApart(keys, loose, rows[r-1], rows[r]) {
			return sortTiesUndetermined
		}
	}
	return nil
}

// checkTies wraps emit to refuse adjacent rows as tiesUndetermined does
// (the top-N's and the external sort's rows, as they stream).
func (s *sortOp) checkTies(keys []winKey, emit func(*Batch) error) func(*Batch) error {
	loose := looseKeys(keys)
	if len(loose) == 0 {
		return emit
	}
	var prev []types.Value // the last row emitted, its key columns
	width := len(s.in.cols())
	return func(b *Batch) error {
		row := make([]types.Value, width)
		for i := 0; i < b.N; i++ {
			for _, k := range keys {
				row[k.idx] = b.Vecs[k.idx][i]
			}
			if prev != nil && tiedApart(keys, loose, prev, row) {
				return sortTiesUndetermined
			}
			if prev == nil {
				prev = make([]types.Value, width)
			}
			prev, row = row, prev
		}
		return emit(b)
	}
}
