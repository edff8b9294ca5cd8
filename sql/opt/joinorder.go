package opt

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// maxReorder is the most relations a tree of inner joins may have to be
// reordered (larger trees keep the FROM order).
const maxReorder = 10

// joinOrder reorders every tree of inner (and cross) joins in rel. The
// relations under such a tree (its leaves: scans, outer joins, anything
// but an inner join) are joined greedily: of the pairs a join condition
// connects, the one whose result is estimated smallest first, until one
// relation is left (a cross product only when no condition connects
// what is left). Each join builds its hash table on its smaller side
// (the executor builds the right side). Each conjunct is placed on the
// lowest join that has its columns. The tree's columns come out in their
// old order (a projection on top when the order changed).
//
// Trees whose conditions hold a volatile call keep their order (where
// such a conjunct is evaluated, and how often, must not change). A
// conjunct holding a subquery is placed like the others, on the lowest
// join that has its columns (the subquery's outer references among
// them), as PostgreSQL places a join qual: kept in FROM order, TPC-H
// Q2's correlated min() held the tree to a cross join of supplier and
// part.
func joinOrder(rel plan.Rel, md *plan.Metadata) plan.Rel {
	e := newEstimator()
	e.note(rel)
	// walk reorders r; positional says whether r's column order matters
	// above it (the statement's result, a set operation's input):
	// operators that read their input by column ID (projections,
	// aggregations, joins under those) need no projection to restore it.
	var walk func(r plan.Rel, positional bool) plan.Rel
	walk = func(r plan.Rel, positional bool) plan.Rel {
		same := func(c plan.Rel) plan.Rel { return walk(c, positional) }
		switch x := r.(type) {
		case *plan.Join:
			if x.Kind == plan.InnerJoin || x.Kind == plan.CrossJoin {
				return reorder(x, e, md, positional, walk)
			}
			if j, ok := rebuild(r, same).(*plan.Join); ok && x.Kind == plan.LeftJoin {
				return leftBuild(j, e, md, positional) // leftbuild.go
			}
			return rebuild(r, same)
		case *plan.With:
			// The CTEs' plans were optimized on their own (mapExprs).
			return &plan.With{CTEs: x.CTEs, Body: walk(x.Body, positional)}
		case *plan.Filter, *plan.Sort, *plan.Limit, *plan.Distinct, *plan.Window:
			return rebuild(r, same)
		case *plan.Project, *plan.Aggregate:
			return rebuild(r, func(c plan.Rel) plan.Rel { return walk(c, false) })
		}
		return rebuild(r, func(c plan.Rel) plan.Rel { return walk(c, true) })
	}
	return walk(rel, true)
}

// joinItem is a relation of the greedy search: a leaf or the join of
// several (leaves: the bit set of the leaves it holds).
type joinItem struct {
	rel    plan.Rel
	leaves uint64
	rows   float64
	cols   plan.ColSet
}

// joinConj is a conjunct of the tree's conditions and the leaves whose
// columns it reads.
type joinConj struct {
	p      plan.Scalar
	leaves uint64
	placed bool
}

// reorder reorders the tree of inner joins j; walk reorders the leaves'
// own trees.
func reorder(j *plan.Join, e *estimator, md *plan.Metadata, positional bool, walk func(plan.Rel, bool) plan.Rel) plan.Rel {
	var leaves []plan.Rel
	var conds []plan.Scalar
	var flatten func(r plan.Rel)
	flatten = func(r plan.Rel) {
		if x, ok := r.(*plan.Join); ok && (x.Kind == plan.InnerJoin || x.Kind == plan.CrossJoin) {
			flatten(x.Left)
			flatten(x.Right)
			conds = append(conds, plan.Conjuncts(x.On)...)
			return
		}
		leaves = append(leaves, walk(r, false))
	}
	flatten(j)
	keep := len(leaves) > maxReorder
	for _, p := range conds {
		keep = keep || volatile(p)
	}
	if keep {
		return &plan.Join{Kind: j.Kind, Left: walk(j.Left, positional), Right: walk(j.Right, positional), On: j.On, Est: j.Est}
	}
	items := make([]*joinItem, len(leaves))
	for i, l := range leaves {
		items[i] = &joinItem{rel: withEst(l, e), leaves: 1 << i, rows: e.rows(l), cols: plan.SetOf(l.Columns())}
	}
	conjs := make([]*joinConj, len(conds))
	for i, p := range conds {
		c := &joinConj{p: p}
		cols := plan.ColumnsOf(p)
		for k, it := range items {
			if cols.Intersects(it.cols) {
				c.leaves |= 1 << k
			}
		}
		conjs[i] = c
	}
	for len(items) > 1 {
		bi, bj, best, connected := -1, -1, 0.0, false
		for i := 0; i < len(items); i++ {
			for k := i + 1; k < len(items); k++ {
				a, b := items[i], items[k]
				on := applicable(conjs, a.leaves|b.leaves)
				conn := connects(on, a.leaves, b.leaves)
				if connected && !conn {
					continue
				}
				var rows float64
				if conn {
					rows = e.joinRows(a.rows, b.rows, a.cols, b.cols, scalars(on))
				} else {
					rows = a.rows * b.rows
				}
				if bi < 0 || (conn && !connected) || rows < best {
					bi, bj, best, connected = i, k, rows, conn
				}
			}
		}
		a, b := items[bi], items[bj]
		on := applicable(conjs, a.leaves|b.leaves)
		for _, c := range on {
			c.placed = true
		}
		left, right := a, b
		if b.rows > a.rows { // the hash table on the smaller side
			left, right = b, a
		}
		kind := plan.CrossJoin
		if len(on) > 0 {
			kind = plan.InnerJoin
		}
		cols := plan.SetOf(left.rel.Columns())
		cols.AddSet(right.cols)
		joined := &joinItem{
			rel:    &plan.Join{Kind: kind, Left: left.rel, Right: right.rel, On: plan.And(scalars(on)), Est: best},
			leaves: a.leaves | b.leaves,
			rows:   best,
			cols:   cols,
		}
		items[bi] = joined
		items = slices.Delete(items, bj, bj+1)
	}
	if !positional {
		return items[0].rel
	}
	return inOrder(items[0].rel, j.Columns(), md)
}

// applicable are the conjuncts not yet placed that read only leaves of
// set.
func applicable(conjs []*joinConj, set uint64) []*joinConj {
	var out []*joinConj
	for _, c := range conjs {
		if !c.placed && c.leaves&^set == 0 {
			out = append(out, c)
		}
	}
	return out
}

// connects says whether one of on reads both a and b.
func connects(on []*joinConj, a, b uint64) bool {
	for _, c := range on {
		if c.leaves&a != 0 && c.leaves&b != 0 {
			return true
		}
	}
	return false
}

func scalars(cs []*joinConj) []plan.Scalar {
	out := make([]plan.Scalar, len(cs))
	for i, c := range cs {
		out[i] = c.p
	}
	return out
}

// withEst is a leaf with its estimate shown (scans).
func withEst(r plan.Rel, e *estimator) plan.Rel {
	if s, ok := r.(*plan.Scan); ok {
		c := *s
		c.Est = e.rows(s)
		return &c
	}
	return r
}

// inOrder is r with its columns in the order want (a projection when
// they are in another).
func inOrder(r plan.Rel, want []plan.ColumnID, md *plan.Metadata) plan.Rel {
	if slices.Equal(r.Columns(), want) {
		return r
	}
	p := &plan.Project{Input: r, Cols: want}
	for _, id := range want {
		p.Exprs = append(p.Exprs, &plan.ColRef{ID: id, T: md.Column(id).Type})
	}
	return p
}

// hasSubquery says whether p holds a subquery.
func hasSubquery(p plan.Scalar) bool {
	found := false
	plan.Walk(p, func(x plan.Scalar) bool {
		_, found = x.(*plan.Subquery)
		return !found
	})
	return found
}
