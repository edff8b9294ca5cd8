package exec

import (
	"fmt"
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// DISTINCT aggregates past the working memory. PostgreSQL feeds a
// DISTINCT aggregate through a tuplesort of its group's inputs, which
// spills past work_mem, and hands the distinct values to the aggregate
// in ascending order. Here, when the statement may spill (canSpill), a
// DISTINCT aggregate's state (spillDistinct) keeps the distinct inputs
// it has seen in a hash set charged to the aggregation's share of the
// working memory; when the share is full every state of the operator
// writes its inputs, sorted, as one run of a sort per aggregate whose
// rows are (group number, the input's columns, a flag) — the group
// number first, so one run holds every group's values in group order
// (distinctSpill). At the end the runs of each aggregate are merged
// into one file with repeats dropped (ties by run: the first input
// seen is kept, as in memory) and, the groups being emitted in their
// number's order, each group's state reads its values from that file
// in turn and feeds them, ascending, to the plain aggregate.
//
// The memory held at once is the share, whatever the number of
// distinct values; the aggregate's own state (array_agg's, string_agg's
// result) stays charged as before: a result past the working memory is
// refused (53200), as PostgreSQL fails on a value past 1 GB.

// distinctCodec is how one DISTINCT aggregate's inputs are written and
// ordered.
type distinctCodec struct {
	// oids are the types of an input's columns (without the group
	// number in front and the flag behind).
	oids []plan.OID
	// keys order the file rows (group number at 0, then the input's
	// columns at 1…); memKeys are the same keys over the input's
	// columns alone.
	keys, memKeys []winKey
	// eq are the input columns two inputs must match on to be one.
	eq []int
	// toRow is an input value's columns, fromRow the value back.
	toRow   func(v types.Value) []types.Value
	fromRow func(r []types.Value) types.Value
	// mixed, when set, says whether two inputs matching on eq print
	// differently (array_agg: which one PostgreSQL keeps is its sort's
	// choice) and mixedErr is the refusal then.
	mixed    func(a, b []types.Value) bool
	mixedErr error
	// plain is the state of the aggregate over inputs already distinct
	// and in order (inOrder: sums of floats in PostgreSQL's order).
	plain func() aggState
	name  string
	// single: an input is its own one-column row, compared whole (no
	// ORDER BY columns, no mixed check): held without a key of its
	// own, found through an int64 index when of an integer-like type
	// (ints; aggintkey.go) and sorted on those int64s (distinctfast.go).
	single bool
	ints   *intGroups // a template: its val, for the type (nil: not integer-like)
}

// spillDistinctInit is f's state constructor for a DISTINCT aggregate
// that spills, setting f.spillCodec (plain is the state over distinct
// inputs given in order; false: the aggregate's inputs are not of a
// form the files hold, its state stays as it was).
func (e *env) spillDistinctInit(f *aggFunc, plain func() aggState) (func() aggState, bool) {
	ae := f.a
	c := &distinctCodec{plain: plain, name: ae.Name + "(DISTINCT …)"}
	c.keys = []winKey{{idx: 0, oid: plan.Int8}} // the group number
	key := func(idx int, oid plan.OID, desc, nullsFirst bool, ord TextOrder) {
		c.keys = append(c.keys, winKey{idx + 1, oid, desc, nullsFirst, ord})
		c.memKeys = append(c.memKeys, winKey{idx, oid, desc, nullsFirst, ord})
	}
	switch {
	case ae.Name == "array_agg" && f.ownDistinct:
		nv := plan.OrderedAggArgs(ae.Name)
		if nv != 1 {
			return nil, false
		}
		elem := ae.Args[0].Type().OID
		kt := keyTypes(ae)
		order := ae.Order
		c.oids = append([]plan.OID{elem}, kt...)
		for i, t := range kt {
			key(1+i, t, order[i].Desc, order[i].NullsFirst, e.keyOrder(t))
			c.eq = append(c.eq, 1+i)
		}
		c.toRow = func(v types.Value) []types.Value {
			r := v.(*aggRow)
			return append([]types.Value{r.v}, r.keys...)
		}
		c.fromRow = func(r []types.Value) types.Value {
			return &aggRow{v: r[0], keys: r[1:], order: order, kt: kt}
		}
		c.mixed = func(a, b []types.Value) bool { return !sameValue(elem, a[0], b[0]) }
		c.mixedErr = unsupported("array_agg whose value depends on the order of rows its ORDER BY leaves tied (PostgreSQL's plan decides it); add ORDER BY keys that tell the rows apart")
	case ae.Name == "string_agg" && f.ownDistinct:
		t := plan.Text
		if ae.T.OID == types.Bytea {
			t = types.Bytea
		}
		kt := keyTypes(ae)
		order := ae.Order
		c.oids = append([]plan.OID{t, t}, kt...)
		// stringAgg's DISTINCT order: the ORDER BY keys, the value's
		// bytes, the delimiter (NULL last).
		for i, k := range kt {
			key(2+i, k, order[i].Desc, order[i].NullsFirst, e.keyOrder(k))
		}
		key(0, t, false, false, nil)
		key(1, t, false, false, nil)
		for i := range c.oids {
			c.eq = append(c.eq, i)
		}
		c.toRow = func(v types.Value) []types.Value {
			r := v.(*extraRow)
			return append([]types.Value{r.vals[0], r.vals[1]}, r.keys...)
		}
		c.fromRow = func(r []types.Value) types.Value {
			return &extraRow{vals: r[:2], keys: r[2:]}
		}
	case !f.ownDistinct && plan.OrderedAggArgs(ae.Name) == 0 && f.arg != nil && f.grouping == nil && types.Orderable(f.argT):
		c.oids = []plan.OID{f.argT}
		key(0, f.argT, false, false, nil)
		c.eq = []int{0}
		c.toRow = func(v types.Value) []types.Value { return []types.Value{v} }
		c.fromRow = func(r []types.Value) types.Value { return r[0] }
		c.single, c.ints = true, newIntGroups(c.oids)
	default:
		return nil, false
	}
	f.spillCodec = c
	return func() aggState { return &spillDistinct{c: c, inner: plain()} }, true
}

// spillDistinct is one group's state of a DISTINCT aggregate that
// spills: the distinct inputs held (rows), found by their eq columns
// (set), until the operator's distinctSpill writes them out.
type spillDistinct struct {
	c     *distinctCodec
	inner aggState
	ds    *distinctSpill // nil: never written out
	k     int            // the aggregate's place in ds
	gid   int64          // the group's number in ds
	set   *rowMap
	ints  *intGroups // single inputs of an integer-like type: the set (distinctfast.go)
	key1  []types.Value
	rows  [][]types.Value
	held  int64
	mem   *memAcct
	mixed bool
	dirty bool // in ds.dirty
	// innerMem is what the plain state holds (its result).
	innerMem *memAcct
}

func (s *spillDistinct) charge(m *memAcct) {
	s.mem = m
	if c, ok := s.inner.(memCharged); ok {
		// the plain state's result is held as before, and given back
		// once taken (groups emitted one after another)
		s.innerMem = &memAcct{e: m.e}
		c.charge(s.innerMem)
	}
}

func (s *spillDistinct) add(v types.Value) error {
	if s.c.single {
		return s.addSingle(v) // distinctfast.go
	}
	r := s.c.toRow(v)
	s.ensureSet()
	key := make([]types.Value, len(s.c.eq))
	for i, c := range s.c.eq {
		key[i] = r[c]
	}
	if i, added := s.set.find(key, false); !added && i >= 0 {
		if s.c.mixed != nil && s.c.mixed(s.rows[i], r) {
			s.mixed = true
		}
		return nil
	}
	n := rowBytes(r) + rowBytes(key) + 16
	if err := s.hold(n); err != nil {
		return err
	}
	s.ensureSet() // hold may have written the inputs out
	s.set.find(key, true)
	s.rows = append(s.rows, r)
	if s.ds != nil && !s.dirty {
		s.dirty = true
		s.ds.dirty = append(s.ds.dirty, s)
	}
	return nil
}

// ensureSet makes the set of inputs held.
func (s *spillDistinct) ensureSet() {
	if s.set == nil {
		oids := make([]plan.OID, len(s.c.eq))
		for i, c := range s.c.eq {
			oids[i] = s.c.oids[c]
		}
		s.set = newRowMap(oids)
	}
}

// hold charges n bytes: within the operator's share, writing every
// state's inputs out first when the share is full.
func (s *spillDistinct) hold(n int64) error {
	if s.mem == nil {
		return nil
	}
	if s.ds != nil && !s.mem.tryGrowKeeping(n, 0) {
		if err := s.ds.flush(); err != nil {
			return err
		}
		if !s.mem.tryGrowKeeping(n, 0) {
			// the groups alone fill the share: one value more than it
			// (the hash aggregation sends new groups to its files)
			if err := s.mem.grow("DISTINCT aggregate", n); err != nil {
				return err
			}
		}
	} else if s.ds == nil {
		if err := s.mem.grow("DISTINCT aggregate", n); err != nil {
			return err
		}
	}
	s.held += n
	return nil
}

// drop forgets the inputs held, giving their memory back.
func (s *spillDistinct) drop() {
	if s.mem != nil && s.held > 0 {
		s.mem.n -= s.held
		s.mem.e.release(s.held)
	}
	s.held, s.rows, s.set, s.ints, s.dirty = 0, nil, nil, nil, false
}

func (s *spillDistinct) result() (types.Value, error) {
	if s.innerMem != nil {
		defer s.innerMem.done()
	}
	inOrder(s.inner) // fed ascending, as PostgreSQL's sort feeds it
	if s.ds != nil && s.ds.spilled {
		if err := s.ds.finish(); err != nil {
			return nil, err
		}
		err := s.ds.take(s.k, s.gid, func(r []types.Value) error {
			if r[len(r)-1] == true {
				s.mixed = true
			}
			return s.inner.add(s.c.fromRow(r[1 : len(r)-1]))
		})
		if err != nil {
			return nil, err
		}
	} else {
		rows := s.rows
		s.drop()         // the inputs become the plain state's (charged there)
		s.sortRows(rows) // distinctfast.go
		for i, r := range rows {
			if i > 0 && compareKeys(s.c.memKeys, rows[i-1], r) == 0 {
				if s.c.mixed != nil && s.c.mixed(rows[i-1], r) {
					s.mixed = true
				}
				continue
			}
			if err := s.inner.add(s.c.fromRow(r)); err != nil {
				return nil, err
			}
		}
	}
	if s.mixed && s.c.mixedErr != nil {
		return nil, s.c.mixedErr
	}
	return s.inner.result()
}

// distinctSpill is the files of one aggregation's (or one partition's
// replay's) DISTINCT aggregates that spill: per aggregate, a sort whose
// runs hold (group number, input columns, mixed flag) rows.
type distinctSpill struct {
	e      *env
	codecs []*distinctCodec // per aggregate (nil: not one that spills)
	sps    []*spill
	// dirty are the states holding inputs, ordered by group at flush.
	dirty   []*spillDistinct
	groups  int64
	spilled bool // a run was written: results read the files
	done    bool // finish ran
	rd      []*runReader
	peek    [][]types.Value
	// runs counts the runs written (tests read it through Stats).
	runs int
}

// newDistinctSpill is the files of a's spilling DISTINCT aggregates
// (nil when it has none).
func (a *aggOp) newDistinctSpill() *distinctSpill {
	var ds *distinctSpill
	for k, f := range a.aggs {
		if f.spillCodec == nil {
			continue
		}
		if ds == nil {
			ds = &distinctSpill{e: a.e, codecs: make([]*distinctCodec, len(a.aggs)), sps: make([]*spill, len(a.aggs))}
		}
		ds.codecs[k] = f.spillCodec
		oids := append(append([]plan.OID{plan.Int8}, f.spillCodec.oids...), plan.Bool)
		ds.sps[k] = &spill{e: a.e, oids: oids, op: "DISTINCT aggregate"}
	}
	return ds
}

// groupKeep is the memory a new group of the aggregation must leave
// free: its partition files' buffers (partReserve) and, with spilling
// DISTINCT aggregates, a quarter of the share for their inputs (the
// groups alone never fill it).
func (ds *distinctSpill) groupKeep() int64 {
	if ds == nil {
		return partReserve
	}
	return partReserve + ds.e.spillShare()/4
}

// makeRoom writes the DISTINCT inputs held out when n more bytes of
// groups would pass the statement's working memory (an aggregation that
// cannot send groups to files holds every group).
func (ds *distinctSpill) makeRoom(n int64) error {
	if ds == nil || ds.e.used+n <= ds.e.limit {
		return nil
	}
	return ds.flush()
}

// attach makes a new group's spilling states write to ds.
func (ds *distinctSpill) attach(states []aggState) {
	if ds == nil {
		return
	}
	gid := ds.groups
	ds.groups++
	for k, st := range states {
		if s, ok := st.(*spillDistinct); ok {
			s.ds, s.k, s.gid = ds, k, gid
		}
	}
}

// flush writes every held input out: per aggregate one run, its
// groups in order, each group's inputs sorted.
func (ds *distinctSpill) flush() error {
	if len(ds.dirty) == 0 {
		return nil
	}
	slices.SortFunc(ds.dirty, func(a, b *spillDistinct) int {
		if a.k != b.k {
			return a.k - b.k
		}
		return int(a.gid - b.gid)
	})
	ds.spilled = true
	var out []types.Value // one file row, reused
	for i := 0; i < len(ds.dirty); {
		k := ds.dirty[i].k
		sp := ds.sps[k]
		if err := sp.beginRun(); err != nil {
			return err
		}
		ds.runs++
		j := i
		for ; j < len(ds.dirty) && ds.dirty[j].k == k; j++ {
			s := ds.dirty[j]
			s.sortRows(s.rows) // distinctfast.go
			if err := s.writeRows(sp, &out); err != nil {
				sp.endRun()
				return spillErr(ds.e, "DISTINCT aggregate", err)
			}
			s.mixed = false
			s.drop()
		}
		if err := sp.endRun(); err != nil {
			return err
		}
		i = j
	}
	ds.dirty = ds.dirty[:0]
	return nil
}

// finish writes the inputs still held and merges each aggregate's runs
// into one file of distinct inputs, opened for take.
func (ds *distinctSpill) finish() error {
	if ds.done {
		return nil
	}
	ds.done = true
	if err := ds.flush(); err != nil {
		return err
	}
	ds.rd = make([]*runReader, len(ds.sps))
	ds.peek = make([][]types.Value, len(ds.sps))
	for k, sp := range ds.sps {
		if sp == nil || len(sp.runs) == 0 {
			continue
		}
		for len(sp.runs) > 1 {
			n := min(len(sp.runs), mergeFanIn)
			group := slices.Clone(sp.runs[:n])
			rest := slices.Clone(sp.runs[n:])
			sp.runs = nil
			if err := ds.mergeRuns(k, group); err != nil {
				return err
			}
			// the merged run holds the earliest input: it goes first
			sp.runs = append(sp.runs, rest...)
		}
		r, err := sp.open(sp.runs[0])
		if err != nil {
			return err
		}
		ds.rd[k] = r
	}
	return nil
}

// mergeRuns merges aggregate k's runs names into a new run (the last
// of its runs), dropping inputs equal to the one before (ties by run:
// the earlier input kept, its flag set when the two print otherwise).
func (ds *distinctSpill) mergeRuns(k int, names []string) error {
	sp, c := ds.sps[k], ds.codecs[k]
	if err := sp.beginRun(); err != nil {
		return err
	}
	var rows [][]types.Value
	var last []types.Value
	flag := len(sp.oids) - 1
	err := sp.merge(c.keys, names, func(r []types.Value) error {
		if last != nil && compareKeys(c.keys, last, r) == 0 {
			if r[flag] == true || c.mixed != nil && c.mixed(last[1:flag], r[1:flag]) {
				last[flag] = true
			}
			return nil
		}
		if last != nil {
			rows = append(rows, last)
			if len(rows) == BatchSize {
				err := sp.appendRows(rows)
				rows = rows[:0]
				if err != nil {
					return err
				}
			}
		}
		last = r
		return nil
	})
	if err == nil && last != nil {
		rows = append(rows, last)
	}
	if err == nil {
		err = sp.appendRows(rows)
	}
	if err2 := sp.endRun(); err == nil {
		err = err2
	}
	return spillErr(ds.e, "DISTINCT aggregate", err)
}

// take calls fn for each distinct input of group gid of aggregate k,
// in order (groups are asked for in their number's order).
func (ds *distinctSpill) take(k int, gid int64, fn func(r []types.Value) error) error {
	rd := ds.rd[k]
	if rd == nil {
		return nil
	}
	for n := 0; ; n++ {
		if n%BatchSize == BatchSize-1 {
			if err := ds.e.check(); err != nil {
				return err
			}
		}
		if ds.peek[k] == nil {
			r, err := rd.next()
			if err != nil {
				return err
			}
			if r == nil {
				rd.f.Close()
				ds.rd[k] = nil
				return nil
			}
			ds.peek[k] = r
		}
		g, ok := ds.peek[k][0].(int64)
		if !ok {
			return fmt.Errorf("DISTINCT aggregate: a run row without its group")
		}
		if g > gid {
			return nil
		}
		r := ds.peek[k]
		ds.peek[k] = nil
		if g < gid {
			continue // a group emitted without asking (none today)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
}

// remove deletes the files and gives back what the states still hold.
func (ds *distinctSpill) remove() {
	if ds == nil {
		return
	}
	for _, r := range ds.rd {
		if r != nil {
			r.f.Close()
		}
	}
	ds.rd = nil
	for _, sp := range ds.sps {
		if sp != nil {
			sp.remove()
		}
	}
	ds.e.spillRuns += ds.runs
	ds.runs = 0
}
