package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Under GROUPING SETS, ROLLUP or CUBE a row of a set leaving a column
// out holds NULL there, as does the row of a group whose value is NULL:
// with a NULL in column a, `GROUP BY ROLLUP (a) ORDER BY a` answers two
// rows (NULL, …), the NULL group and the total, tied on every key. Their
// order is the one PostgreSQL's plan leaves them in (a sorted
// GroupAggregate emits the total last, a hashed or mixed one otherwise;
// its sort is not stable): on PostgreSQL 15 `ROLLUP (a)` put the total
// first and `ROLLUP (a, b) ORDER BY 1, 2` the NULL group first. sidecar
// cannot know that order, so a result sorted over a grouping-sets
// aggregate is refused (0A000) when two rows it emits adjacently tie on
// every key, print alike in every group column the sort's input has, and
// differ elsewhere: rows looking like one group, in an order sidecar
// would have to guess. Rows told apart by a group column are the usual
// unspecified order of ties, as without grouping sets.

// groupSetTiesUndetermined refuses such a result.
var groupSetTiesUndetermined = &types.Error{Code: types.CodeUnsupported,
	Message: "not supported yet: ORDER BY leaving tied rows of different grouping sets that print alike in every grouping column (a NULL group and a total row): PostgreSQL's plan decides their order; add GROUPING(…) as an ORDER BY key"}

// groupSetCols are, when rel (a Sort's input) is an Aggregate with
// grouping sets under projections, filters and DISTINCT only, the IDs its group
// columns keep in rel's output (ok); ok is false for any other input.
func groupSetCols(rel plan.Rel) (cols map[plan.ColumnID]bool, ok bool) {
	switch x := rel.(type) {
	case *plan.Aggregate:
		if len(x.Sets) == 0 {
			return nil, false
		}
		cols = map[plan.ColumnID]bool{}
		for _, id := range x.GroupBy {
			cols[id] = true
		}
		return cols, true
	case *plan.Filter:
		return groupSetCols(x.Input)
	case *plan.Distinct:
		return groupSetCols(x.Input)
	case *plan.Project:
		in, ok := groupSetCols(x.Input)
		if !ok {
			return nil, false
		}
		cols = map[plan.ColumnID]bool{}
		for i, e := range x.Exprs {
			if r, isRef := e.(*plan.ColRef); isRef && in[r.ID] {
				cols[x.Cols[i]] = true
			}
		}
		return cols, true
	}
	return nil, false
}

// groupTies checks the rows a shown sort over grouping sets emits, in
// order (width: the input's columns; groups: the indexes of its group
// columns).
type groupTies struct {
	keys   []winKey
	groups []int
	oids   []plan.OID // every input column's type
	prev   []types.Value
}

// newGroupTies is the check for sort s, nil when its input is not a
// grouping-sets aggregate or its order is not the result's.
func (s *sortOp) newGroupTies(keys []winKey) *groupTies {
	if !s.shown || s.groupCols == nil {
		return nil
	}
	cols := s.in.cols()
	g := &groupTies{keys: keys, oids: make([]plan.OID, len(cols))}
	for i, id := range cols {
		g.oids[i] = s.e.md.Column(id).Type.OID
		if s.groupCols[id] {
			g.groups = append(g.groups, i)
		}
	}
	return g
}

// next takes the next row emitted (kept: the check keeps its own copy).
func (g *groupTies) next(row []types.Value) error {
	prev := g.prev
	g.prev = append(g.prev[:0:0], row...)
	if prev == nil || compareKeys(g.keys, prev, row) != 0 {
		return nil
	}
	for _, i := range g.groups {
		if !sameValue(g.oids[i], prev[i], row[i]) {
			return nil
		}
	}
	for i := range row {
		if !sameValue(g.oids[i], prev[i], row[i]) {
			return groupSetTiesUndetermined
		}
	}
	return nil
}

// rows checks the rows of an in-memory sort, sorted.
func (g *groupTies) rows(rows [][]types.Value) error {
	for _, r := range rows {
		if err := g.next(r); err != nil {
			return err
		}
	}
	return nil
}

// wrap checks the rows of the top-N's and the external sort's batches
// as they stream.
func (g *groupTies) wrap(emit func(*Batch) error) func(*Batch) error {
	return func(b *Batch) error {
		row := make([]types.Value, len(b.Vecs))
		for i := 0; i < b.N; i++ {
			for c := range b.Vecs {
				row[c] = b.Vecs[c][i]
			}
			if err := g.next(row); err != nil {
				return err
			}
		}
		return emit(b)
	}
}
