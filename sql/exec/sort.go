package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// sortOp orders its input (a stable sort: rows equal on every key keep
// their input order).
type sortOp struct {
	e    *env
	in   operator
	keys []plan.SortKey
	// bound, when positive, is the rows a Limit above needs (topn.go):
	// only that many are kept.
	bound int64
	// oids, when set, are the input's column types: the top-N then
	// keeps over, a dropped row tied on the keys with the worst kept
	// row, and overMixed, whether such dropped rows differ (for the
	// Limit above: limitorder.go).
	oids      []plan.OID
	over      []types.Value
	overMixed bool
	// keyed are the keys as the last run compiled them.
	keyed []winKey
	// trackTies: a Limit above, through projections, reads tieFlags:
	// for each row of the batch being emitted, whether it ties on the
	// keys with the row before it (limitorder.go).
	trackTies bool
	tieFlags  []bool
	// shown: the sort orders the statement's result (sortties.go).
	shown bool
	// groupCols: the input is a grouping-sets aggregate, these its group
	// columns (groupsetties.go).
	groupCols map[plan.ColumnID]bool
}

func (s *sortOp) cols() []plan.ColumnID { return s.in.cols() }

func (s *sortOp) run(emit func(*Batch) error) error {
	e := s.e
	lay := layoutOf(s.in.cols())
	var keys []winKey
	for _, k := range s.keys {
		idx, ok := lay[k.Col]
		if !ok {
			return unsupported("ORDER BY a column the input does not have")
		}
		t := e.md.Column(k.Col).Type.OID
		if !types.Orderable(t) {
			return noOrdering(e.md.Column(k.Col).Type, "ORDER BY a value of type "+e.md.Column(k.Col).Type.String())
		}
		keys = append(keys, winKey{idx, t, k.Desc, k.NullsFirst, e.keyOrder(t)})
	}
	s.keyed, s.over, s.overMixed = keys, nil, false
	if s.trackTies {
		emit = s.flagTies(keys, emit)
	}
	gt := s.newGroupTies(keys) // groupsetties.go
	if s.bound > 0 || e.tempDir != "" {
		if s.shown {
			emit = s.checkTies(keys, emit) // sortties.go
		}
		if gt != nil {
			emit = gt.wrap(emit)
		}
		if s.bound > 0 {
			return s.runTopN(keys, s.bound, emit)
		}
		return s.runExternal(keys, emit) // extsort.go
	}
	rs, err := e.collect(s.in, "sort")
	if err != nil {
		return err
	}
	defer e.release(rs.bytes)
	if err := e.check(); err != nil {
		return err
	}
	slices.SortStableFunc(rs.rows, func(a, b []types.Value) int { return compareKeys(keys, a, b) })
	if s.shown {
		if err := tiesUndetermined(keys, rs.rows); err != nil { // sortties.go: before any row is sent
			return err
		}
		if gt != nil {
			if err := gt.rows(rs.rows); err != nil {
				return err
			}
		}
	}
	return e.emitRows(rs.rows, len(s.in.cols()), emit)
}

// nullOrder orders a NULL before (nullsFirst) or after a value; two
// NULLs tie.
func nullOrder(xNull, yNull, nullsFirst bool) int {
	if xNull == yNull {
		return 0
	}
	if xNull == nullsFirst {
		return -1
	}
	return 1
}

// oidsOf is the types of cols.
func (e *env) oidsOf(cols []plan.ColumnID) ([]plan.OID, error) {
	out := make([]plan.OID, len(cols))
	for i, id := range cols {
		t := e.md.Column(id).Type
		if !types.Orderable(t.OID) {
			return nil, noEquality(t, "DISTINCT or a set operation on a value of type "+t.String())
		}
		out[i] = t.OID
	}
	return out, nil
}

// distinctOp passes the first row of each distinct value (of every
// column, or of the DISTINCT ON columns), in input order.
type distinctOp struct {
	e  *env
	in operator
	on []plan.ColumnID
	// sorted is the sort right below a DISTINCT ON (nil: none), whose
	// tie flags say which rows are candidates for a group's first
	// position; trackTies/tieFlags give a LIMIT above the same for the
	// rows kept (distincton.go).
	sorted    *sortOp
	trackTies bool
	tieFlags  []bool
	// shown: the sort orders the statement's result (sortties.go).
	shown bool
}

func (d *distinctOp) cols() []plan.ColumnID { return d.in.cols() }

func (d *distinctOp) run(emit func(*Batch) error) error {
	e := d.e
	cols := d.in.cols()
	keyCols := cols
	if len(d.on) > 0 {
		keyCols = d.on
	}
	oids, err := e.oidsOf(keyCols)
	if err != nil {
		return err
	}
	lay := layoutOf(cols)
	idx := make([]int, len(keyCols))
	for k, id := range keyCols {
		idx[k] = lay[id]
	}
	seen := newRowMap(oids)
	mem := &memAcct{e: e}
	defer mem.done()
	// Past the memory a DISTINCT of whole rows spills (setspill.go); a
	// DISTINCT ON keeps its input's order, so it does not.
	spillable := len(d.on) == 0 && e.canSpill()
	cs := &countSpill{e: e, op: "DISTINCT", h: seen.h, width: len(idx), kind: plan.Union}
	var parts *partFiles
	defer func() {
		if parts != nil {
			parts.remove()
		}
	}()
	var ties *onTies // DISTINCT ON: distincton.go
	if len(d.on) > 0 {
		if ties, err = d.onTies(mem); err != nil {
			return err
		}
	}
	err = d.in.run(func(b *Batch) error {
		var keep []int
		var flags, keptFlags []bool
		if d.sorted != nil {
			flags = d.sorted.flags()
		}
		for i := 0; i < b.N; i++ {
			if ties != nil {
				ties.next(flags != nil && flags[i] || d.sorted == nil)
			}
			key := make([]types.Value, len(idx))
			for k, c := range idx {
				key[k] = b.Vecs[c][i]
			}
			if g, _ := seen.find(key, false); g >= 0 {
				if ties != nil {
					if err := ties.dup(g, b, i); err != nil {
						return err
					}
				}
				continue
			}
			n := rowBytes(key)
			if spillable && (parts != nil || !mem.tryGrowKeeping(n, partReserve)) {
				if parts == nil {
					var err error
					if parts, err = cs.start(mem); err != nil {
						return err
					}
				}
				if err := cs.write(parts, key, 1, 0, 0); err != nil {
					return err
				}
				continue
			}
			if !spillable {
				if err := mem.grow("DISTINCT", n); err != nil {
					return err
				}
			}
			g, _ := seen.find(key, true)
			if ties != nil {
				tied, err := ties.keep(g, b, i)
				if err != nil {
					return err
				}
				keptFlags = append(keptFlags, tied)
			}
			keep = append(keep, i)
		}
		if len(keep) == 0 {
			return nil
		}
		d.tieFlags = keptFlags
		return emit(pick(b, keep))
	})
	if err != nil || parts == nil {
		return spillErr(e, "DISTINCT", err)
	}
	seen = nil
	mem.done()
	return spillErr(e, "DISTINCT", cs.drain(parts, 0, emit))
}

// pick is the rows keep of b.
func pick(b *Batch, keep []int) *Batch {
	out := &Batch{N: len(keep), Vecs: make([][]types.Value, len(b.Vecs))}
	for c, v := range b.Vecs {
		nv := make([]types.Value, len(keep))
		for k, i := range keep {
			nv[k] = v[i]
		}
		out.Vecs[c] = nv
	}
	return out
}

// setOp is UNION [ALL], INTERSECT [ALL], EXCEPT [ALL].
type setOp struct {
	e           *env
	s           *plan.SetOp
	left, right operator
	lidx, ridx  []int
}

func (e *env) buildSetOp(s *plan.SetOp) (operator, error) {
	l, err := e.build(s.Left)
	if err != nil {
		return nil, err
	}
	r, err := e.build(s.Right)
	if err != nil {
		return nil, err
	}
	op := &setOp{e: e, s: s, left: l, right: r}
	ll, rl := layoutOf(l.cols()), layoutOf(r.cols())
	for k := range s.Cols {
		li, ok1 := ll[s.LeftCols[k]]
		ri, ok2 := rl[s.RightCols[k]]
		if !ok1 || !ok2 {
			return nil, unsupported("this set operation")
		}
		lt, rt, ot := e.md.Column(s.LeftCols[k]).Type, e.md.Column(s.RightCols[k]).Type, e.md.Column(s.Cols[k]).Type
		if lt.OID != ot.OID && lt.OID != plan.Unknown || rt.OID != ot.OID && rt.OID != plan.Unknown {
			return nil, unsupported("a set operation whose branches have other types than its result")
		}
		op.lidx, op.ridx = append(op.lidx, li), append(op.ridx, ri)
	}
	if !s.All || s.Kind != plan.Union {
		if _, err := e.oidsOf(s.Cols); err != nil {
			return nil, err
		}
	}
	return op, nil
}

func (s *setOp) cols() []plan.ColumnID { return s.s.Cols }

// reorder maps a branch's batch to the output columns.
func reorder(b *Batch, idx []int) *Batch {
	out := &Batch{N: b.N, Vecs: make([][]types.Value, len(idx))}
	for k, i := range idx {
		out.Vecs[k] = b.Vecs[i]
	}
	return out
}

func (s *setOp) run(emit func(*Batch) error) error {
	e := s.e
	if s.s.Kind == plan.Union && s.s.All {
		if err := s.left.run(func(b *Batch) error { return emit(reorder(b, s.lidx)) }); err != nil {
			return err
		}
		return s.right.run(func(b *Batch) error { return emit(reorder(b, s.ridx)) })
	}
	oids, _ := e.oidsOf(s.s.Cols)
	m := newRowMap(oids)
	mem := &memAcct{e: e}
	defer mem.done()
	op := s.s.Kind.String()
	cs := &countSpill{e: e, op: op, h: m.h, width: len(oids), kind: s.s.Kind, all: s.s.All}
	if s.s.Kind == plan.Intersect {
		cs.loose = looseCols(oids)
	}
	spillable := e.canSpill()
	// parts, once the rows fill the working memory, holds the rows not
	// held with their counts (setspill.go).
	var parts *partFiles
	defer func() {
		if parts != nil {
			parts.remove()
		}
	}()
	var counts [][2]int64
	feed := func(side int, in operator, idx []int) error {
		return in.run(func(b *Batch) error {
			b = reorder(b, idx)
			for i := 0; i < b.N; i++ {
				row := b.Row(i)
				g, _ := m.find(row, false)
				if g < 0 {
					// A right row of INTERSECT or EXCEPT counts only for
					// a left row: one held, or (spilling) one on disk.
					held := side == 0 || s.s.Kind == plan.Union
					if !held && parts == nil {
						continue
					}
					n := rowBytes(row)
					if !held || spillable && (parts != nil || !mem.tryGrowKeeping(n, partReserve)) {
						if parts == nil {
							var err error
							if parts, err = cs.start(mem); err != nil {
								return err
							}
						}
						if err := cs.write(parts, row, int64(1-side), int64(side), 0); err != nil {
							return err
						}
						continue
					}
					if !spillable {
						if err := mem.grow(op, n); err != nil {
							return err
						}
					}
					g, _ = m.find(row, true)
					counts = append(counts, [2]int64{})
				}
				if side == 1 && len(cs.loose) > 0 {
					cs.noteMixed(g, m.rows[g], row)
				}
				counts[g][side]++
			}
			return e.check()
		})
	}
	if err := feed(0, s.left, s.lidx); err != nil {
		return spillErr(e, op, err)
	}
	if err := feed(1, s.right, s.ridx); err != nil {
		return spillErr(e, op, err)
	}
	if err := cs.emit(m.rows, counts, emit); err != nil || parts == nil {
		return err
	}
	m, counts, cs.mixed = nil, nil, nil
	mem.done()
	return spillErr(e, op, cs.drain(parts, 0, emit))
}
