package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Partial aggregation in a parallel scan's workers. A hash aggregation
// reading a scan directly (TPC-H Q1, Q6) hands the scan a PartialAgg
// (ScanRequest.Partial): a source decoding on several goroutines gives
// each an AggWorker, which aggregates the rows of its batches into
// groups of its own instead of handing them on; the aggregation's
// goroutine aggregates whatever batches still reach it and, once the
// scan has ended, merges the workers' groups into its own (merge).
//
// Only aggregates whose merge is exact take part, so the answer is the
// one the statement's goroutine alone gives: count, sum and avg of
// integers and numerics (the numeric sum is exact and its scale the
// largest of its values' in any order; ±Infinity and NaN add up the same
// in any order), min and max of integers, dates and timestamps (two equal
// values of those types print alike). A float sum depends on the order of
// its rows, a numeric min on which of 1.0 and 1.00 comes first: an
// aggregation with any other aggregate, DISTINCT, ORDER BY, grouping
// sets, or an argument that is not safe on another goroutine (a subquery,
// a non-immutable or external function) runs as before.
//
// A worker keeps at most partialGroups groups (partialBytes): once it has
// that many, a batch with a row of another group is handed on whole (its rows of the
// worker's groups too: the merge adds both parts), so a grouping of many
// groups costs the workers one lookup per row and holds no more memory
// than partialGroups groups (partialBytes) per worker. Groups are emitted in no
// particular order (a hash aggregation's order is unspecified, as
// PostgreSQL's).

// partialGroups is the most groups an AggWorker holds, partialBytes the
// most bytes of keys and states (both checked after each batch: a batch
// may add up to BatchSize groups more).
const (
	partialGroups = 4096
	partialBytes  = 4 << 20
)

// PartialAgg is a hash aggregation's offer to aggregate in the scan's
// workers (nil when the aggregation cannot).
type PartialAgg struct {
	a       *aggOp
	lay     layout
	workers []*AggWorker
	limit   int // groups per worker (0: partialGroups)
	// small are the vectors the aggregation reads only through the
	// small path (SmallCols, typedvec.go).
	small []bool
	// pipe: the projections and filters between the scan and the
	// aggregation, bottom up (aggpipe.go; none: the scan is read directly).
	pipe []pipeStep
}

// AggWorker aggregates batches on one worker goroutine.
type AggWorker struct {
	a      *aggOp // the aggregation's shape with this worker's compiled aggregates
	limit  int
	groups *rowMap
	ig     *intGroups // aggintkey.go (nil: a key of another form)
	states [][]aggState
	mask   []bool
	sets   [][]bool
	full   bool
	bytes  int64 // the groups' keys and states, as the aggregation charges them
	gi     []int
	all    []int // 0 … b.N-1, reused per batch
	rows   []int
	res    []types.Value
	pipe   []workerStep // aggpipe.go
}

// merger is an aggregate state that adds another state of its kind.
type merger interface {
	merge(o aggState) error
}

// partialFor is a's offer to the scan it reads through pipe (nil: a
// cannot take part).
func (a *aggOp) partialFor(p *plan.Aggregate, lay layout, pipe []pipeStep) *PartialAgg {
	if len(p.Sets) > 0 || a.sets != nil {
		return nil
	}
	for _, f := range a.aggs {
		if !f.mergeable(lay) {
			return nil
		}
	}
	return &PartialAgg{a: a, lay: lay, pipe: pipe, small: pipeSmall(a.e, pipe, a.smallOnly(lay))} // aggpipe.go
}

// mergeable says whether f's states merge exactly and its argument and
// FILTER may run on another goroutine.
func (f *aggFunc) mergeable(lay layout) bool {
	ae := f.a
	if f.grouping != nil || ae.Distinct || len(ae.Order) > 0 || f.init == nil || f.ownDistinct {
		return false
	}
	switch ae.Name {
	case "count":
	case "sum", "avg":
		if !smallType(f.argT) {
			return false
		}
	case "min", "max":
		switch f.argT {
		case plan.Int2, plan.Int4, plan.Int8, plan.Date, plan.Timestamp, plan.Timestamptz:
		default:
			return false
		}
	default:
		return false
	}
	if _, ok := f.init().(merger); !ok {
		return false
	}
	for _, x := range append(append([]plan.Scalar(nil), ae.Args...), ae.Filter) {
		if !workerSafe(x, lay) { // aggpipe.go
			return false
		}
	}
	return true
}

// Worker is a new worker's aggregator, its aggregates compiled again
// (compiled expressions keep scratch of their own). It is called on the
// statement's goroutine; the worker is used on one other goroutine, and
// its groups are read once the scan has returned.
func (p *PartialAgg) Worker() (*AggWorker, error) {
	a := p.a
	c := &compiler{e: a.e, lay: p.lay}
	w := &aggOp{e: a.e, group: a.group, gOIDs: a.gOIDs}
	for _, f := range a.aggs {
		g := &aggFunc{a: f.a, argT: f.argT, init: f.init}
		var err error
		if f.arg != nil {
			if g.arg, err = c.compile(f.a.Args[0]); err != nil {
				return nil, err
			}
			g.small = c.compileSmall(f.a, f.argT, &w.smallCols)
		}
		if f.filter != nil {
			if g.filter, err = c.compile(f.a.Filter); err != nil {
				return nil, err
			}
		}
		w.aggs = append(w.aggs, g)
	}
	sets, _ := w.setMasks()
	pipe, err := compilePipe(a.e, p.pipe) // aggpipe.go
	if err != nil {
		return nil, err
	}
	aw := &AggWorker{a: w, limit: p.limit, groups: newRowMap(a.keyOIDs()), ig: w.intGroupsOf(), mask: sets[0], sets: sets, pipe: pipe}
	if aw.limit <= 0 {
		aw.limit = partialGroups
	}
	p.workers = append(p.workers, aw)
	return aw, nil
}

// Add aggregates the rows of raw, a batch of the scan, into the
// worker's groups and leaves raw empty (raw.N 0), or leaves raw as it is
// when it has a row of a new group and the worker holds partialGroups
// groups already: the batch is then the aggregation's goroutine's to
// aggregate. The projections and filters between the scan and the
// aggregation run on raw first (aggpipe.go): b is what they give.
func (w *AggWorker) Add(raw *Batch) error {
	if raw.N == 0 {
		return nil
	}
	b, err := runPipe(w.pipe, raw)
	if err != nil {
		return err
	}
	if b.N == 0 {
		raw.N = Compact(raw, 0, raw.N, nil)
		return nil
	}
	a := w.a
	a.smallCols.reset() // another batch
	gi := w.gi[:0]
	for i := 0; i < b.N; i++ {
		if i > 0 && w.ig == nil && a.sameGroupKey(b, i, i-1, w.mask) {
			gi = append(gi, gi[i-1]) // the row before's group (aggsamekey.go)
			continue
		}
		var g int
		var hv uint64
		if w.ig != nil {
			g, hv = a.findGroup(w.groups, w.ig, b, i, w.mask) // aggintkey.go
		} else {
			g, hv = a.findSetGroup(w.groups, b, i, 0, w.mask, 0)
		}
		if g < 0 {
			if w.full {
				w.gi = gi
				raw.BoxSmall() // typedvec.go: the aggregation's goroutine reads Vecs
				return nil     // handed on whole (no group was added for it)
			}
			key := a.key(b, i, 0, w.mask, 0)
			w.bytes += rowBytes(key) + int64(64*len(a.aggs))
			g = w.groups.addHashed(hv, key)
			if w.ig != nil {
				w.ig.add(key[0], g)
			}
			w.states = append(w.states, a.newStates(0, w.sets, nil, nil))
		}
		gi = append(gi, g)
	}
	w.gi = gi
	w.full = len(w.groups.rows) >= w.limit || w.bytes >= partialBytes
	all := w.all[:0]
	for i := range b.N {
		all = append(all, i)
	}
	w.all = all
	for k, f := range a.aggs {
		rows := all
		if f.filter != nil {
			if cap(w.res) < b.N {
				w.res = make([]types.Value, b.N)
			}
			res := w.res[:b.N]
			if err := f.filter(b, all, res); err != nil {
				return err
			}
			rows = w.rows[:0]
			for _, i := range all {
				if t, ok := res[i].(bool); ok && t {
					rows = append(rows, i)
				}
			}
			w.rows = rows
		}
		var vals []types.Value
		var sa *smallArgs
		if f.arg != nil {
			var err error
			if vals, sa, err = f.evalArg(b, rows); err != nil {
				return err
			}
		}
		for _, i := range rows {
			st := w.states[gi[i]][k]
			if sa != nil && sa.ok[i] {
				if err := sa.add(st, i); err != nil {
					return err
				}
				continue
			}
			var v types.Value = true // count(*)
			if vals != nil {
				if v = vals[i]; v == nil {
					continue
				}
			}
			if err := st.add(v); err != nil {
				return err
			}
		}
	}
	raw.N = Compact(raw, 0, raw.N, nil)
	return nil
}

// partialExtra holds the workers' groups the aggregation's goroutine
// could not take once it had spilled (their keys may be in a partition
// file): each is merged into its group when that group is emitted
// (emitGroups), and the ones no group took are emitted at the end.
type partialExtra struct {
	groups *rowMap
	states [][]aggState
	used   []bool
}

// mergePartial merges the workers' groups into groups and states, the
// aggregation's own. spilled: some groups are in partition files, so a
// group not held goes to a.extra. A new group is charged as the
// aggregation's own are.
func (a *aggOp) mergePartial(groups *rowMap, states *[][]aggState, spilled, spillable bool, mem *memAcct) error {
	if a.partial == nil {
		return nil
	}
	defer func() { a.partial.workers = nil }()
	for _, w := range a.partial.workers {
		for g, key := range w.groups.rows {
			if x, _ := groups.find(key, false); x >= 0 {
				if err := mergeStates((*states)[x], w.states[g]); err != nil {
					return err
				}
				continue
			}
			n := rowBytes(key) + int64(64*len(a.aggs))
			if !spilled && spillable && mem.tryGrowKeeping(n, partReserve) {
				groups.addHashed(groups.h.hash(key), key)
				*states = append(*states, w.states[g])
				continue
			}
			if !spilled && !spillable {
				if err := mem.grow("hash aggregate", n); err != nil {
					return err
				}
				groups.addHashed(groups.h.hash(key), key)
				*states = append(*states, w.states[g])
				continue
			}
			if a.extra == nil {
				a.extra = &partialExtra{groups: newRowMap(a.keyOIDs())}
			}
			x := a.extra
			if i, _ := x.groups.find(key, false); i >= 0 {
				if err := mergeStates(x.states[i], w.states[g]); err != nil {
					return err
				}
				continue
			}
			x.groups.addHashed(x.groups.h.hash(key), key)
			x.states, x.used = append(x.states, w.states[g]), append(x.used, false)
		}
	}
	return nil
}

// mergeStates adds a group's states from a worker (o) to st.
func mergeStates(st, o []aggState) error {
	for k := range st {
		if err := st[k].(merger).merge(o[k]); err != nil {
			return err
		}
	}
	return nil
}

// mergeExtra merges the extra group of key, if any, into st (emitGroups).
func (a *aggOp) mergeExtra(key []types.Value, st []aggState) error {
	x := a.extra
	if x == nil {
		return nil
	}
	i, _ := x.groups.find(key, false)
	if i < 0 || x.used[i] {
		return nil
	}
	x.used[i] = true
	return mergeStates(st, x.states[i])
}

// emitExtra emits the extra groups no emitted group took.
func (a *aggOp) emitExtra(emit func(*Batch) error) error {
	x := a.extra
	if x == nil {
		return nil
	}
	a.extra = nil
	rest := &rowMap{h: x.groups.h}
	var states [][]aggState
	for i, key := range x.groups.rows {
		if !x.used[i] {
			rest.rows = append(rest.rows, key)
			states = append(states, x.states[i])
		}
	}
	return a.emitGroups(rest, states, 0, emit)
}

func (c *countAgg) merge(o aggState) error {
	c.n += o.(*countAgg).n
	return nil
}

func (s *sumAgg) merge(o aggState) error {
	t := o.(*sumAgg)
	if t.n == 0 {
		return nil
	}
	switch s.t {
	case plan.Numeric:
		if err := s.addNumeric(t.decimal()); err != nil {
			return err
		}
	case plan.Int8:
		if s.acc == nil && t.acc == nil { // both addInt's (aggintkey.go)
			if s.n == 0 {
				s.i64 = t.i64
				break
			}
			r, err := addInt8(s.i64, t.i64) // aggintkey.go
			if err != nil {
				return err
			}
			s.i64 = r
			break
		}
		sv, tv := s.acc, t.acc
		if sv == nil && s.n > 0 {
			sv = s.i64
		}
		if tv == nil {
			tv = t.i64
		}
		if sv == nil {
			s.acc = tv
		} else {
			v, err := types.Arith("+", plan.Int8, sv, tv)
			if err != nil {
				return err
			}
			s.acc = v
		}
	default:
		return unsupported("merging a sum of " + plan.T(s.t).String())
	}
	s.n += t.n
	return nil
}

func (a *avgAgg) merge(o aggState) error {
	return a.sum.merge(&o.(*avgAgg).sum)
}

func (m *minMaxAgg) merge(o aggState) error {
	w := o.(*minMaxAgg)
	if w.v == nil {
		return nil
	}
	if m.v == nil {
		m.v, m.mixed = w.v, w.mixed
		return nil
	}
	c := compareIn(m.ord, m.t, w.v, m.v)
	switch {
	case m.max && c > 0 || !m.max && c < 0:
		m.v, m.mixed = w.v, w.mixed
	case c == 0:
		m.mixed = m.mixed || w.mixed // a worker's ties count too (minmaxties.go)
		m.tie(w.v)
	}
	return nil
}
