package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// rowHasher hashes and compares rows of values of known types, NULL
// equal to NULL (grouping, DISTINCT and set operations treat them so).
type rowHasher struct {
	vh   valueHasher
	oids []plan.OID
}

func newRowHasher(oids []plan.OID) *rowHasher {
	return &rowHasher{vh: newValueHasher(), oids: oids}
}

// nullHash stands for a NULL in a row's hash.
const nullHash uint64 = 0x9e3779b97f4a7c15

// combine folds the hash y of a row's next value into x.
func combine(x, y uint64) uint64 { return (x ^ y) * 1099511628211 }

const hashStart uint64 = 14695981039346656037

func (h *rowHasher) value(k int, v types.Value) uint64 {
	if v == nil {
		return nullHash
	}
	return h.vh.hash(h.oids[k], v)
}

func (h *rowHasher) hash(r []types.Value) uint64 {
	x := hashStart
	for k, v := range r {
		x = combine(x, h.value(k, v))
	}
	return x
}

// equalValue reports whether a and b (of key position k) are equal,
// NULL equal to NULL.
func (h *rowHasher) equalValue(k int, a, b types.Value) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	if x, ok := a.(int64); ok {
		if y, ok := b.(int64); ok {
			return x == y
		}
	}
	return types.Compare(h.oids[k], a, b) == 0
}

func (h *rowHasher) equal(a, b []types.Value) bool {
	for k := range a {
		if !h.equalValue(k, a[k], b[k]) {
			return false
		}
	}
	return true
}

// rowMap finds rows by their values.
type rowMap struct {
	h    *rowHasher
	tab  groupTab // grouptab.go
	rows [][]types.Value
}

func newRowMap(oids []plan.OID) *rowMap {
	return &rowMap{h: newRowHasher(oids)}
}

// find returns r's index (added=true when it was not there: appended).
func (m *rowMap) find(r []types.Value, add bool) (int, bool) {
	hv := m.h.hash(r)
	for p := m.tab.probe(hv); ; {
		i := p.next()
		if i < 0 {
			break
		}
		if m.h.equal(m.rows[i], r) {
			return i, false
		}
	}
	if !add {
		return -1, false
	}
	return m.addHashed(hv, r), true
}

// addHashed appends r, whose hash is hv and which is not there yet.
func (m *rowMap) addHashed(hv uint64, r []types.Value) int {
	m.rows = append(m.rows, r)
	m.tab.add(hv, len(m.rows)-1)
	return len(m.rows) - 1
}

// aggFunc is one aggregate's compiled form.
type aggFunc struct {
	a      plan.AggExpr
	arg    vexpr // nil: count(*)
	argT   plan.OID
	filter vexpr
	init   func() aggState
	// ownDistinct: the state applies DISTINCT itself (string_agg).
	ownDistinct bool
	// small: the argument on int64 digits, for a numeric sum or average
	// (aggsmall.go; nil: none).
	small smallExpr
	// grouping: GROUPING()'s arguments as group positions (groupingsets.go).
	grouping []int
	// bufs: evalArg's vectors, reused batch after batch (aggsmall.go).
	bufs argBufs
	// spillCodec: a DISTINCT aggregate whose states spill
	// (distinctspill.go; nil: none).
	spillCodec *distinctCodec
}

// aggState accumulates one aggregate of one group.
type aggState interface {
	add(v types.Value) error
	result() (types.Value, error)
}

// aggOp is hash aggregation.
type aggOp struct {
	e      *env
	in     operator
	group  []int // input vector of each group column
	gOIDs  []plan.OID
	aggs   []*aggFunc
	out    []plan.ColumnID
	scalar bool // no GROUP BY: one row even over no input
	// sets: GROUPING SETS as masks over group (nil: one set of every
	// group column); groupingsets.go.
	sets [][]bool
	// partial: the scan read aggregates in its workers too; extra: their
	// groups left to merge at emission (aggpartial.go).
	partial *PartialAgg
	extra   *partialExtra
	// smallCols: the small-path arguments' column operands (aggsmall.go).
	smallCols smallCols
}

func (e *env) buildAgg(a *plan.Aggregate) (operator, error) {
	a = sortedAggInput(a, e.md) // aggsorted.go
	in, err := e.build(a.Input)
	if err != nil {
		return nil, err
	}
	streamInput(in) // run copies the keys and arguments it keeps
	lay := layoutOf(in.cols())
	op := &aggOp{e: e, in: in, out: a.Columns(), scalar: len(a.GroupBy) == 0}
	for _, id := range a.GroupBy {
		idx, ok := lay[id]
		if !ok {
			return nil, unsupported("grouping by an outer column")
		}
		t := e.md.Column(id).Type.OID
		if !types.Orderable(t) {
			return nil, noEquality(e.md.Column(id).Type, "grouping by a value of type "+e.md.Column(id).Type.String())
		}
		op.group, op.gOIDs = append(op.group, idx), append(op.gOIDs, t)
	}
	c := &compiler{e: e, lay: lay}
	for _, ae := range a.Aggs {
		// PostgreSQL evaluates an aggregate whose arguments and FILTER
		// read only outer columns at that outer query's level; the binder
		// puts every aggregate at its own level, so those are refused.
		var read plan.ColSet
		for _, x := range append(append([]plan.Scalar(nil), ae.Args...), ae.Filter) {
			if x != nil {
				read.AddSet(plan.ColumnsOf(x))
			}
		}
		own := false
		for _, id := range read.Sorted() {
			if _, ok := lay[id]; ok {
				own = true
			}
		}
		if read.Len() > 0 && !own {
			return nil, unsupported("an aggregate of outer columns only, in a subquery")
		}
		f := &aggFunc{a: ae}
		if ae.Name == "grouping" {
			if err := op.groupingFunc(f, a); err != nil {
				return nil, err
			}
			op.aggs = append(op.aggs, f)
			continue
		}
		extra, err := c.extraAgg(f, ae) // aggextra.go
		if err != nil {
			return nil, err
		}
		if !extra && len(ae.Args) > 1 && plan.OrderedAggArgs(ae.Name) == 0 {
			return nil, unsupported("the aggregate " + ae.Name + " with several arguments")
		}
		if extra {
			// argument and state compiled by extraAgg
		} else if plan.OrderedAggArgs(ae.Name) > 0 {
			if f.arg, err = c.arrayAggArg(ae); err != nil {
				return nil, err // array.go
			}
			f.argT = ae.Args[0].Type().OID
		} else if len(ae.Args) == 1 {
			if f.arg, err = c.compile(ae.Args[0]); err != nil {
				return nil, err
			}
			f.argT = ae.Args[0].Type().OID
			f.small = c.compileSmall(ae, f.argT, &op.smallCols)
		}
		if ae.Filter != nil {
			if f.filter, err = c.compile(ae.Filter); err != nil {
				return nil, err
			}
		}
		if extra {
		} else if init, ok := jsonAggInit(ae, c.zone(), e.dialect); ok {
			f.init = init // jsonagg.go
		} else if f.init, err = aggInit(ae.Name, f.argT, ae.T.OID, f.arg == nil); err != nil {
			return nil, err
		}
		f.init = e.collatedInit(f.init) // collate.go: min/max, ORDER BY and WITHIN GROUP of text
		plain := f.init                 // the state over distinct inputs (distinctspill.go)
		if ae.Distinct && ae.Name == "array_agg" {
			f.ownDistinct = true // array.go: sorted by its argument, repeats dropped
			inner := f.init
			f.init = func() aggState {
				st := inner()
				st.(*arrayAgg).distinct = true
				return st
			}
		}
		if ae.Distinct && !f.ownDistinct {
			if f.arg == nil || !types.Orderable(f.argT) {
				return nil, unsupported("DISTINCT in this aggregate")
			}
			inner, argT := f.init, f.argT
			sorted := argT == plan.Float4 || argT == plan.Float8
			f.init = func() aggState {
				return &distinctAgg{inner: inner(), seen: newRowMap([]plan.OID{argT}), sorted: sorted, argT: argT}
			}
		}
		if ae.Distinct && e.canSpill() {
			if f.ownDistinct {
				plain = f.init
			}
			if init, ok := e.spillDistinctInit(f, plain); ok { // distinctspill.go
				f.init = init
			}
		}
		op.aggs = append(op.aggs, f)
	}
	markInputOrder(op, a) // aggextra.go
	if err := op.groupingSets(a); err != nil {
		return nil, err
	}
	if s, pipe := partialInput(in); s != nil && !s.repeat { // aggpipe.go
		op.partial = op.partialFor(a, lay, pipe) // aggpartial.go
		s.partial = op.partial
	}
	op.typeJoinInput() // joinvec.go
	return op, nil
}

func (a *aggOp) cols() []plan.ColumnID { return a.out }

func (a *aggOp) run(emit func(*Batch) error) error {
	e := a.e
	mem := &memAcct{e: e}
	defer mem.done()
	sets, off := a.setMasks()
	h := newRowHasher(a.keyOIDs())
	groups := &rowMap{h: h}
	ig := a.intGroupsOf() // aggintkey.go (nil: a key of another form)
	var states [][]aggState
	ds := a.newDistinctSpill() // DISTINCT aggregates' files (distinctspill.go)
	defer ds.remove()
	// A set of no columns has its group even over no input.
	for set, mask := range sets {
		if !slices.Contains(mask, true) {
			groups.find(a.key(nil, 0, set, mask, off), true)
			states = append(states, a.newStates(set, sets, mem, ds))
		}
	}
	// parts, once the groups fill the working memory, holds the input
	// rows of the groups not held (aggspill.go).
	var parts *partFiles
	defer func() {
		if parts != nil {
			parts.remove()
		}
	}()
	spillable := a.spillable()
	err := a.in.run(func(b *Batch) error {
		a.smallCols.reset() // another batch
		sel := allRows(b.N)
		// Each aggregate's rows (FILTER) and argument values, once.
		rowsOf := make([][]int, len(a.aggs))
		valsOf := make([][]types.Value, len(a.aggs))
		smallOf := make([]*smallArgs, len(a.aggs))
		for k, f := range a.aggs {
			rows := sel
			if f.filter != nil {
				res := make([]types.Value, b.N)
				if err := f.filter(b, sel, res); err != nil {
					return err
				}
				rows = nil
				for _, i := range sel {
					if t, ok := res[i].(bool); ok && t {
						rows = append(rows, i)
					}
				}
			}
			if f.arg != nil {
				var err error
				if valsOf[k], smallOf[k], err = f.evalArg(b, rows); err != nil { // aggsmall.go
					return err
				}
			}
			rowsOf[k] = rows
		}
		gi := make([]int, b.N)
		var out []int // rows whose group (in this set) is not held
		var outHash []uint64
		for set, mask := range sets {
			out, outHash = out[:0], outHash[:0]
			for i := 0; i < b.N; i++ {
				if i > 0 && ig == nil && gi[i-1] >= 0 && a.sameGroupKey(b, i, i-1, mask) {
					gi[i] = gi[i-1] // the row before's group (aggsamekey.go)
					continue
				}
				// the group found from the row's values: a key is built
				// only for a new group
				var g int
				var hv uint64
				if ig != nil {
					g, hv = a.findGroup(groups, ig, b, i, mask) // aggintkey.go
				} else {
					g, hv = a.findSetGroup(groups, b, i, set, mask, off)
				}
				if g < 0 {
					key := a.key(b, i, set, mask, off)
					n := rowBytes(key) + int64(64*len(a.aggs))
					if spillable && (parts != nil || !mem.tryGrowKeeping(n, ds.groupKeep())) {
						if parts == nil {
							var err error
							if parts, err = a.startSpill(mem); err != nil {
								return err
							}
						}
						gi[i] = -1
						out, outHash = append(out, i), append(outHash, hv)
						continue
					}
					if !spillable {
						if err := ds.makeRoom(n); err != nil { // distinctspill.go
							return err
						}
						if err := mem.grow("hash aggregate", n); err != nil {
							return err
						}
					}
					g = groups.addHashed(hv, key)
					if ig != nil {
						ig.add(key[0], g)
					}
					states = append(states, a.newStates(set, sets, mem, ds))
				}
				gi[i] = g
			}
			for k, f := range a.aggs {
				if f.grouping != nil {
					continue
				}
				vals, sa := valsOf[k], smallOf[k]
				for _, i := range rowsOf[k] {
					if gi[i] < 0 {
						continue // its group is in a partition file
					}
					if sa != nil && sa.ok[i] {
						if err := sa.add(states[gi[i]][k], i); err != nil {
							return err
						}
						continue
					}
					var v types.Value = true // count(*): every row counts
					if vals != nil {
						if v = vals[i]; v == nil {
							continue // aggregates skip NULL inputs
						}
					}
					if err := states[gi[i]][k].add(v); err != nil {
						return err
					}
				}
			}
			if len(out) > 0 {
				for k := range a.aggs {
					smallOf[k].materialize(out, valsOf[k])
				}
				if err := a.spillRows(parts, b, out, outHash, set, mask, off, rowsOf, valsOf); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil {
		err = a.mergePartial(groups, &states, parts != nil, spillable, mem) // aggpartial.go
	}
	if err != nil {
		return a.spillErr(err)
	}
	if err := a.emitGroups(groups, states, off, emit); err != nil {
		return err
	}
	if parts == nil {
		return a.emitExtra(emit)
	}
	groups, states = nil, nil
	mem.done()
	if err := parts.finish(); err != nil {
		return err
	}
	if err := a.spillErr(a.drain(parts, 0, h, sets, off, emit)); err != nil {
		return err
	}
	return a.emitExtra(emit)
}

// newStates is a new group's aggregate states in grouping set set.
func (a *aggOp) newStates(set int, sets [][]bool, mem *memAcct, ds *distinctSpill) []aggState {
	s := make([]aggState, len(a.aggs))
	for k, f := range a.aggs {
		if f.grouping != nil {
			s[k] = &constAgg{v: groupingValue(f.grouping, sets[set])}
			continue
		}
		s[k] = f.init()
		if d, ok := s[k].(memCharged); ok {
			d.charge(mem) // what it holds is the statement's working memory
		}
	}
	ds.attach(s) // distinctspill.go
	return s
}

// emitGroups emits each group's key (without the set index) and
// aggregate results, a batch at a time.
func (a *aggOp) emitGroups(groups *rowMap, states [][]aggState, off int, emit func(*Batch) error) error {
	rows := make([][]types.Value, 0, min(len(groups.rows), BatchSize))
	for g, key := range groups.rows {
		if err := a.mergeExtra(key, states[g]); err != nil { // aggpartial.go
			return err
		}
		key = key[off:]
		r := append(make([]types.Value, 0, len(key)+len(a.aggs)), key...)
		for _, s := range states[g] {
			v, err := s.result()
			if err != nil {
				return err
			}
			r = append(r, v)
		}
		rows = append(rows, r)
		if len(rows) == BatchSize {
			if err := a.e.emitRows(rows, len(a.out), emit); err != nil {
				return err
			}
			rows = rows[:0]
		}
	}
	return a.e.emitRows(rows, len(a.out), emit)
}

// aggInit is the state constructor of aggregate name over arg giving
// res (0A000 for an aggregate the executor does not compute).
func aggInit(name string, arg, res plan.OID, star bool) (func() aggState, error) {
	switch name {
	case "count":
		return func() aggState { return &countAgg{} }, nil
	case "sum":
		switch arg {
		case plan.Int2, plan.Int4:
			return func() aggState { return &sumAgg{t: plan.Int8} }, nil
		case plan.Int8, plan.Numeric:
			return func() aggState { return &sumAgg{t: plan.Numeric, from: arg} }, nil
		case plan.Float4:
			return func() aggState { return &sumAgg{t: plan.Float4} }, nil
		case plan.Float8:
			return func() aggState { return &sumAgg{t: plan.Float8} }, nil
		case plan.Interval:
			return func() aggState { return &intervalSumAgg{} }, nil // aggintv.go
		case types.Money:
			return func() aggState { return &moneySumAgg{} }, nil // aggmoney.go
		}
	case "avg":
		switch arg {
		case plan.Int2, plan.Int4, plan.Int8, plan.Numeric:
			return func() aggState { return &avgAgg{sum: sumAgg{t: plan.Numeric, from: arg}} }, nil
		case plan.Float4, plan.Float8:
			return func() aggState { return &floatAvg{} }, nil // floatavg.go
		case plan.Interval:
			return func() aggState { return &intervalSumAgg{avg: true} }, nil
		}
	case "min", "max":
		if types.Orderable(arg) {
			return func() aggState { return &minMaxAgg{t: arg, max: name == "max"} }, nil
		}
	case "array_agg":
		return func() aggState { return &arrayAgg{elem: arg} }, nil // array.go
	case "bool_and", "every", "bool_or":
		if arg == plan.Bool {
			return func() aggState { return &boolAgg{or: name == "bool_or"} }, nil
		}
	case "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop", "bit_and", "bit_or", "bit_xor":
		return libAggInit(name, arg)
	}
	return nil, unsupported("the aggregate " + name + "(" + plan.T(arg).String() + ")")
}

type countAgg struct{ n int64 }

func (c *countAgg) add(types.Value) error        { c.n++; return nil }
func (c *countAgg) result() (types.Value, error) { return c.n, nil }

// sumAgg sums into t (int8 for small integers, numeric for bigint and
// numeric, the float type for floats), as PostgreSQL's sum does.
//
// A numeric sum runs on an int64 while every value so far is a finite
// numeric whose digits fit one (bigints, TPC-H's money columns), and on
// one big accumulator of its own past that: no allocation per row either
// way (numsum.go).
type sumAgg struct {
	t    plan.OID
	from plan.OID // the argument type when it is converted to numeric
	acc  types.Value
	n    int64
	// small: the sum so far is i64 at scale (acc and big unused).
	small bool
	i64   int64
	scale int32
	// big is the sum past the int64 (numsum.go).
	big *bigSum
	// fg: whether a float sum is the same in PostgreSQL's order of rows
	// (types.FloatSumGuard; checked by result).
	fg types.FloatSumGuard
	// ordered: the rows arrive in an order PostgreSQL's is known to equal
	// (a window's frame, its peers checked apart): fg is not consulted.
	ordered bool
	// ovf: a float sum overflowed in the sidecar's order (floatavg.go).
	ovf error
}

// inOrder marks a sum or average state as fed in PostgreSQL's own order
// of rows (window frames): its float value needs no order check.
func inOrder(st aggState) {
	switch a := st.(type) {
	case *sumAgg:
		a.ordered = true
	case *avgAgg:
		a.sum.ordered = true
	case *floatAvg:
		a.ordered = true
	case *regrState:
		a.g.InOrder()
	case libAgg:
		if o, ok := a.s.(interface{ InOrder() }); ok {
			o.InOrder() // stddev, variance (builtin's floatVar)
		}
	}
}

func (s *sumAgg) add(v types.Value) error {
	s.n++
	if s.t == plan.Numeric {
		return s.addNumeric(v)
	}
	if s.t == plan.Int8 && s.acc == nil {
		if x, ok := v.(int64); ok {
			return s.addInt(x) // aggintkey.go: no boxing per row
		}
		if s.n > 1 {
			s.acc = s.i64 // addInt's sum so far (no other value arrives today)
		}
	}
	if f, ok := v.(float64); ok {
		return s.addFloat(f) // floatavg.go
	}
	if s.acc == nil {
		s.acc = v
		return nil
	}
	var err error
	s.acc, err = types.Arith("+", s.t, s.acc, v)
	return err
}

func (s *sumAgg) result() (types.Value, error) {
	if s.t == plan.Numeric {
		if d := s.decimal(); d != nil {
			d, err := types.CheckNumericRange(d) // PostgreSQL's make_result: 22003 past the format
			if err != nil {
				return nil, err
			}
			return d, nil
		}
		return nil, nil
	}
	switch {
	case s.ordered:
	case s.t == plan.Float4:
		if err := s.fg.Check("sum", 24); err != nil {
			return nil, err
		}
	case s.t == plan.Float8:
		if err := s.fg.Check("sum", 53); err != nil {
			return nil, err
		}
	}
	if s.ovf != nil {
		return nil, s.ovf
	}
	if s.t == plan.Int8 && s.acc == nil && s.n > 0 {
		return s.i64, nil // addInt's sum
	}
	return s.acc, nil
}

// avgAgg is avg over integers and numeric: the numeric sum divided by
// the count (floats: floatAvg, floatavg.go).
type avgAgg struct{ sum sumAgg }

func (a *avgAgg) add(v types.Value) error { return a.sum.add(v) }

func (a *avgAgg) result() (types.Value, error) {
	if a.sum.n == 0 {
		return nil, nil
	}
	return types.DivDecimal(a.sum.decimal(), types.DecimalFromInt(a.sum.n))
}

type minMaxAgg struct {
	t   plan.OID
	max bool
	v   types.Value
	ord TextOrder // collate.go
	// mixed: a value equal to v that prints otherwise was seen (0 and
	// -0, 1.0 and 1.00, '1 day' and '24 hours'); inOrder: the rows
	// arrive in PostgreSQL's order (markInputOrder). See minmaxties.go.
	mixed, inOrder bool
}

func (m *minMaxAgg) add(v types.Value) error {
	if m.v == nil {
		m.v = v
		return nil
	}
	c := compareIn(m.ord, m.t, v, m.v)
	switch {
	case m.max && c > 0 || !m.max && c < 0:
		m.v, m.mixed = v, false
	case c == 0:
		m.tie(v)
	}
	return nil
}

func (m *minMaxAgg) result() (types.Value, error) {
	if m.mixed && !m.inOrder {
		return nil, minMaxUndetermined(m.max)
	}
	return m.v, nil
}

type boolAgg struct {
	or bool
	v  types.Value
}

func (b *boolAgg) add(v types.Value) error {
	x := v.(bool)
	if b.v == nil {
		b.v = x
	} else if b.or {
		b.v = b.v.(bool) || x
	} else {
		b.v = b.v.(bool) && x
	}
	return nil
}

func (b *boolAgg) result() (types.Value, error) { return b.v, nil }

// distinctAgg feeds its inner aggregate each distinct value once.
//
// sorted (a float argument): PostgreSQL sorts a DISTINCT aggregate's
// input and feeds the distinct values in ascending order, so a float
// sum, average or variance of them has one right value; the values are
// kept (charged to mem as the seen set is) and fed in that order when
// the result is asked, the inner state marked as in PostgreSQL's order
// (inOrder: no order refusal).
type distinctAgg struct {
	inner  aggState
	seen   *rowMap
	mem    *memAcct // charged for each value seen (nil: unbounded)
	sorted bool
	argT   plan.OID
	vals   []types.Value // sorted: the distinct values, fed at result
}

func (d *distinctAgg) add(v types.Value) error {
	if _, added := d.seen.find([]types.Value{v}, true); added {
		if d.mem != nil {
			if err := d.mem.grow("DISTINCT aggregate", 2*valueBytes(v)+32); err != nil {
				return err
			}
		}
		if d.sorted {
			d.vals = append(d.vals, v)
			return nil
		}
		return d.inner.add(v)
	}
	return nil
}

func (d *distinctAgg) result() (types.Value, error) {
	if d.sorted {
		slices.SortStableFunc(d.vals, func(a, b types.Value) int { return types.Compare(d.argT, a, b) })
		inOrder(d.inner)
		for _, v := range d.vals {
			if err := d.inner.add(v); err != nil {
				return nil, err
			}
		}
		d.sorted, d.vals = false, nil
	}
	return d.inner.result()
}

// findSetGroup is row i's group in set among groups (-1: not held)
// and the hash of its key, by the general path.
func (a *aggOp) findSetGroup(groups *rowMap, b *Batch, i, set int, mask []bool, off int) (int, uint64) {
	hv := a.keyHash(groups.h, b, i, set, mask, off)
	for p := groups.tab.probe(hv); ; {
		x := p.next()
		if x < 0 {
			return -1, hv
		}
		if a.keyEqual(groups.h, groups.rows[x], b, i, set, mask, off) {
			return x, hv
		}
	}
}

// keyHash is the hash of row i's group key in set, as rowHasher.hash
// of a.key(b, i, set, mask, off) gives, without building the key.
func (a *aggOp) keyHash(h *rowHasher, b *Batch, i, set int, mask []bool, off int) uint64 {
	x := hashStart
	if off > 0 {
		x = combine(x, h.value(0, int64(set)))
	}
	for k, idx := range a.group {
		var v types.Value
		if mask[k] {
			v = b.Vecs[idx][i]
		}
		x = combine(x, h.value(off+k, v))
	}
	return x
}

// keyEqual reports whether held is row i's group key in set.
func (a *aggOp) keyEqual(h *rowHasher, held []types.Value, b *Batch, i, set int, mask []bool, off int) bool {
	if off > 0 && held[0].(int64) != int64(set) {
		return false
	}
	for k, idx := range a.group {
		var v types.Value
		if mask[k] {
			v = b.Vecs[idx][i]
		}
		if !h.equalValue(off+k, held[off+k], v) {
			return false
		}
	}
	return true
}
