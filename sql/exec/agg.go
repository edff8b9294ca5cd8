package exec

import (
	"hash/maphash"
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// rowHasher hashes and compares rows of values of known types, NULL
// equal to NULL (grouping, DISTINCT and set operations treat them so).
type rowHasher struct {
	seed maphash.Seed
	oids []plan.OID
}

func newRowHasher(oids []plan.OID) *rowHasher {
	return &rowHasher{seed: maphash.MakeSeed(), oids: oids}
}

func (h *rowHasher) hash(r []types.Value) uint64 {
	var x uint64 = 14695981039346656037
	for k, v := range r {
		var y uint64 = 0x9e3779b97f4a7c15
		if v != nil {
			y = types.Hash(h.seed, h.oids[k], v)
		}
		x = (x ^ y) * 1099511628211
	}
	return x
}

func (h *rowHasher) equal(a, b []types.Value) bool {
	for k := range a {
		if (a[k] == nil) != (b[k] == nil) {
			return false
		}
		if a[k] != nil && types.Compare(h.oids[k], a[k], b[k]) != 0 {
			return false
		}
	}
	return true
}

// rowMap finds rows by their values.
type rowMap struct {
	h       *rowHasher
	buckets map[uint64][]int
	rows    [][]types.Value
}

func newRowMap(oids []plan.OID) *rowMap {
	return &rowMap{h: newRowHasher(oids), buckets: map[uint64][]int{}}
}

// find returns r's index (added=true when it was not there: appended).
func (m *rowMap) find(r []types.Value, add bool) (int, bool) {
	hv := m.h.hash(r)
	for _, i := range m.buckets[hv] {
		if m.h.equal(m.rows[i], r) {
			return i, false
		}
	}
	if !add {
		return -1, false
	}
	m.rows = append(m.rows, r)
	m.buckets[hv] = append(m.buckets[hv], len(m.rows)-1)
	return len(m.rows) - 1, true
}

// aggFunc is one aggregate's compiled form.
type aggFunc struct {
	a      plan.AggExpr
	arg    vexpr // nil: count(*)
	argT   plan.OID
	filter vexpr
	init   func() aggState
	// grouping: GROUPING()'s arguments as group positions (groupingsets.go).
	grouping []int
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
}

func (e *env) buildAgg(a *plan.Aggregate) (operator, error) {
	in, err := e.build(a.Input)
	if err != nil {
		return nil, err
	}
	lay := layoutOf(in.cols())
	op := &aggOp{e: e, in: in, out: a.Columns(), scalar: len(a.GroupBy) == 0}
	for _, id := range a.GroupBy {
		idx, ok := lay[id]
		if !ok {
			return nil, unsupported("grouping by an outer column")
		}
		t := e.md.Column(id).Type.OID
		if !types.Orderable(t) {
			return nil, unsupported("grouping by a value of type " + e.md.Column(id).Type.String())
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
		if len(ae.Args) > 1 && ae.Name != "array_agg" {
			return nil, unsupported("the aggregate " + ae.Name + " with several arguments")
		}
		if ae.Name == "array_agg" {
			if f.arg, err = c.arrayAggArg(ae); err != nil {
				return nil, err // array.go
			}
			f.argT = ae.Args[0].Type().OID
		} else if len(ae.Args) == 1 {
			if f.arg, err = c.compile(ae.Args[0]); err != nil {
				return nil, err
			}
			f.argT = ae.Args[0].Type().OID
		}
		if ae.Filter != nil {
			if f.filter, err = c.compile(ae.Filter); err != nil {
				return nil, err
			}
		}
		if f.init, err = aggInit(ae.Name, f.argT, ae.T.OID, f.arg == nil); err != nil {
			return nil, err
		}
		if ae.Distinct {
			if f.arg == nil || !types.Orderable(f.argT) {
				return nil, unsupported("DISTINCT in this aggregate")
			}
			inner, argT := f.init, f.argT
			f.init = func() aggState { return &distinctAgg{inner: inner(), seen: newRowMap([]plan.OID{argT})} }
		}
		op.aggs = append(op.aggs, f)
	}
	return op, op.groupingSets(a)
}

func (a *aggOp) cols() []plan.ColumnID { return a.out }

func (a *aggOp) run(emit func(*Batch) error) error {
	e := a.e
	mem := &memAcct{e: e}
	defer mem.done()
	sets, off := a.setMasks()
	groups := newRowMap(a.keyOIDs())
	var states [][]aggState
	newGroup := func(set int) []aggState {
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
		return s
	}
	// A set of no columns has its group even over no input.
	for set, mask := range sets {
		if !slices.Contains(mask, true) {
			groups.find(a.key(nil, 0, set, mask, off), true)
			states = append(states, newGroup(set))
		}
	}
	err := a.in.run(func(b *Batch) error {
		sel := allRows(b.N)
		// Each aggregate's rows (FILTER) and argument values, once.
		rowsOf := make([][]int, len(a.aggs))
		valsOf := make([][]types.Value, len(a.aggs))
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
				valsOf[k] = make([]types.Value, b.N)
				if err := f.arg(b, rows, valsOf[k]); err != nil {
					return err
				}
			}
			rowsOf[k] = rows
		}
		gi := make([]int, b.N)
		for set, mask := range sets {
			for i := 0; i < b.N; i++ {
				key := a.key(b, i, set, mask, off)
				g, added := groups.find(key, true)
				if added {
					if err := mem.grow("hash aggregate", rowBytes(key)+int64(64*len(a.aggs))); err != nil {
						return err
					}
					states = append(states, newGroup(set))
				}
				gi[i] = g
			}
			for k, f := range a.aggs {
				if f.grouping != nil {
					continue
				}
				vals := valsOf[k]
				for _, i := range rowsOf[k] {
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
		}
		return nil
	})
	if err != nil {
		return err
	}
	rows := make([][]types.Value, len(groups.rows))
	for g, key := range groups.rows {
		key = key[off:]
		r := append(make([]types.Value, 0, len(key)+len(a.aggs)), key...)
		for _, s := range states[g] {
			v, err := s.result()
			if err != nil {
				return err
			}
			r = append(r, v)
		}
		rows[g] = r
	}
	return e.emitRows(rows, len(a.out), emit)
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
		}
	case "avg":
		switch arg {
		case plan.Int2, plan.Int4, plan.Int8, plan.Numeric:
			return func() aggState { return &avgAgg{sum: sumAgg{t: plan.Numeric, from: arg}} }, nil
		case plan.Float4, plan.Float8:
			return func() aggState { return &avgAgg{sum: sumAgg{t: plan.Float8}} }, nil
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
	}
	return nil, unsupported("the aggregate " + name + "(" + plan.T(arg).String() + ")")
}

type countAgg struct{ n int64 }

func (c *countAgg) add(types.Value) error        { c.n++; return nil }
func (c *countAgg) result() (types.Value, error) { return c.n, nil }

// sumAgg sums into t (int8 for small integers, numeric for bigint and
// numeric, the float type for floats), as PostgreSQL's sum does.
type sumAgg struct {
	t    plan.OID
	from plan.OID // the argument type when it is converted to numeric
	acc  types.Value
	n    int64
}

func (s *sumAgg) add(v types.Value) error {
	s.n++
	if s.t == plan.Numeric && s.from != plan.Numeric {
		v = types.DecimalFromInt(v.(int64))
	}
	if s.acc == nil {
		s.acc = v
		return nil
	}
	var err error
	switch s.t {
	case plan.Float4:
		s.acc, err = types.Float4Sum(s.acc.(float64), v.(float64))
	case plan.Numeric:
		s.acc = types.AddDecimal(s.acc.(*types.Decimal), v.(*types.Decimal))
	default:
		s.acc, err = types.Arith("+", s.t, s.acc, v)
	}
	return err
}

func (s *sumAgg) result() (types.Value, error) { return s.acc, nil }

// avgAgg is avg: the sum divided by the count (numeric division for
// integers and numeric, float8 for floats).
type avgAgg struct{ sum sumAgg }

func (a *avgAgg) add(v types.Value) error {
	if a.sum.t == plan.Float8 && a.sum.acc == nil {
		a.sum.n++
		a.sum.acc = v
		return nil
	}
	return a.sum.add(v)
}

func (a *avgAgg) result() (types.Value, error) {
	if a.sum.n == 0 {
		return nil, nil
	}
	if a.sum.t == plan.Float8 {
		return types.Arith("/", plan.Float8, a.sum.acc, float64(a.sum.n))
	}
	return types.DivDecimal(a.sum.acc.(*types.Decimal), types.DecimalFromInt(a.sum.n))
}

type minMaxAgg struct {
	t   plan.OID
	max bool
	v   types.Value
}

func (m *minMaxAgg) add(v types.Value) error {
	if m.v == nil {
		m.v = v
		return nil
	}
	c := types.Compare(m.t, v, m.v)
	if m.max && c > 0 || !m.max && c < 0 {
		m.v = v
	}
	return nil
}

func (m *minMaxAgg) result() (types.Value, error) { return m.v, nil }

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
type distinctAgg struct {
	inner aggState
	seen  *rowMap
	mem   *memAcct // charged for each value seen (nil: unbounded)
}

func (d *distinctAgg) add(v types.Value) error {
	if _, added := d.seen.find([]types.Value{v}, true); added {
		if d.mem != nil {
			if err := d.mem.grow("DISTINCT aggregate", valueBytes(v)+32); err != nil {
				return err
			}
		}
		return d.inner.add(v)
	}
	return nil
}

func (d *distinctAgg) result() (types.Value, error) { return d.inner.result() }
