package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// recursiveOp runs a WITH RECURSIVE query as PostgreSQL's RecursiveUnion:
// the non-recursive term's rows are emitted and form the working table;
// the recursive term runs over the working table, its new rows (under
// UNION: the ones not emitted before) are emitted and become the next
// working table, until a round adds none. The working table and, under
// UNION, the rows seen are accounted against the statement's working
// memory (53200 past it); cancel and statement_timeout stop it between
// batches and rounds.
type recursiveOp struct {
	e          *env
	r          *plan.RecursiveUnion
	init, rec  operator
	iidx, ridx []int
	oids       []plan.OID
	// fresh: the recursive term holds WITH queries or set operations
	// (plan.recursiveTermReads), run afresh each round as PostgreSQL
	// rescans it: its WITH queries and subqueries are computed again
	// over that round's working table, not kept from the first round.
	fresh bool
}

func (e *env) buildRecursive(r *plan.RecursiveUnion) (operator, error) {
	init, err := e.build(r.Init)
	if err != nil {
		return nil, err
	}
	rec, err := e.build(r.Rec)
	if err != nil {
		return nil, err
	}
	op := &recursiveOp{e: e, r: r, init: init, rec: rec, fresh: holdsWithOrSetOp(r.Rec)}
	il, rl := layoutOf(init.cols()), layoutOf(rec.cols())
	for k := range r.Cols {
		ii, ok1 := il[r.InitCols[k]]
		ri, ok2 := rl[r.RecCols[k]]
		if !ok1 || !ok2 {
			return nil, unsupported("this recursive query")
		}
		op.iidx, op.ridx = append(op.iidx, ii), append(op.ridx, ri)
	}
	if !r.All {
		if op.oids, err = e.oidsOf(r.Cols); err != nil {
			return nil, err
		}
	}
	return op, nil
}

func (r *recursiveOp) cols() []plan.ColumnID { return r.r.Cols }

func (r *recursiveOp) run(emit func(*Batch) error) error {
	e := r.e
	name := "WITH RECURSIVE " + r.r.Name
	mem := &memAcct{e: e}
	defer mem.done()
	var seen *rowMap
	if !r.r.All {
		seen = newRowMap(r.oids)
	}
	var work, next [][]types.Value
	var workBytes, nextBytes int64
	// add takes one batch of a term: its new rows are emitted and kept
	// for the next working table.
	add := func(b *Batch, idx []int) error {
		if err := e.check(); err != nil {
			return err
		}
		b = reorder(b, idx)
		var rows [][]types.Value
		for i := 0; i < b.N; i++ {
			row := b.Row(i)
			if seen != nil {
				if _, added := seen.find(row, true); !added {
					continue
				}
			}
			n := rowBytes(row)
			if err := mem.grow(name, n); err != nil {
				return err
			}
			if seen == nil {
				nextBytes += n // the working table alone holds it
			}
			rows = append(rows, row)
		}
		if len(rows) == 0 {
			return nil
		}
		next = append(next, rows...)
		return e.emitRows(rows, len(idx), emit)
	}
	if err := r.init.run(func(b *Batch) error { return add(b, r.iidx) }); err != nil {
		return err
	}
	defer delete(e.ctes, r.r.Work)
	for len(next) > 0 {
		if err := e.check(); err != nil {
			return err
		}
		// The previous working table is dropped (under UNION its rows
		// stay accounted: the set of rows seen holds them).
		mem.n -= workBytes
		e.release(workBytes)
		work, workBytes = next, nextBytes
		next, nextBytes = nil, 0
		e.ctes[r.r.Work] = &rowSet{rows: work}
		if err := r.round(func(b *Batch) error { return add(b, r.ridx) }); err != nil {
			return err
		}
	}
	return nil
}

// round runs the recursive term once over the working table.
func (r *recursiveOp) round(emit func(*Batch) error) error {
	if !r.fresh {
		return r.rec.run(emit)
	}
	e := r.e
	rec, err := e.build(r.r.Rec) // its WITH queries start uncomputed
	if err != nil {
		return err
	}
	saved := e.subVals
	e.subVals = map[*plan.Subquery]*subResult{}
	defer func() { e.subVals = saved }()
	return rec.run(emit)
}

// holdsWithOrSetOp says whether rel has a WITH or a set operation
// (outside subqueries, which cannot read the working table directly).
func holdsWithOrSetOp(rel plan.Rel) bool {
	switch rel.(type) {
	case *plan.With, *plan.SetOp, *plan.RecursiveUnion:
		return true
	}
	for _, in := range rel.Inputs() {
		if holdsWithOrSetOp(in) {
			return true
		}
	}
	return false
}

// streamRecursive runs a recursive CTE read once without keeping its
// result: its rows go straight to the reader, so a LIMIT above stops the
// iteration (as PostgreSQL's CTE scan pulls rows on demand).
func (e *env) streamRecursive(cte *plan.CTE, emit func(*Batch) error) error {
	op, err := e.build(cte.Plan)
	if err != nil {
		return err
	}
	return op.run(emit)
}
