package exec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The aggregates sql/plan's aggextra.go binds: string_agg and the
// ordered-set aggregates percentile_cont, percentile_disc and mode.
// Where PostgreSQL's answer depends on the order its plan happens to
// read rows in (string_agg without an ORDER BY that tells rows apart;
// a pick among values that compare equal but print differently), the
// aggregate is refused (0A000), never answered in another order.

// extraAgg compiles f's argument and state when ae is one of those
// aggregates (false: not one of them). FILTER and DISTINCT are left to
// the caller, except string_agg's DISTINCT, which sorts (f.ownDistinct).
func (c *compiler) extraAgg(f *aggFunc, ae plan.AggExpr) (bool, error) {
	if plan.RegrAggs[ae.Name] {
		return true, c.regrAgg(f, ae) // aggregr.go
	}
	if plan.HypoAggs[ae.Name] {
		return true, c.hypoAggFunc(f, ae) // agghypo.go
	}
	switch ae.Name {
	case "string_agg":
		arg, err := c.orderedRows(ae, true)
		if err != nil {
			return true, err
		}
		f.arg, f.argT, f.ownDistinct = arg, plan.Text, true
		distinct, order := ae.Distinct, ae.Order
		kt := keyTypes(ae)
		bytea := ae.T.OID == types.Bytea
		f.init = func() aggState { return &stringAgg{distinct: distinct, order: order, kt: kt, bytea: bytea} }
		return true, nil
	case "percentile_cont", "percentile_disc", "mode":
		arg, err := c.orderedRows(ae, false)
		if err != nil {
			return true, err
		}
		key := ae.Args[len(ae.Args)-1].Type().OID
		f.arg, f.argT = arg, key
		name, desc := ae.Name, ae.Order[0].Desc
		f.init = func() aggState { return &orderedSetAgg{name: name, t: key, desc: desc} }
		return true, nil
	}
	return false, nil
}

// keyTypes are the types of ae's ORDER BY keys.
func keyTypes(ae plan.AggExpr) []plan.OID {
	var kt []plan.OID
	for _, k := range ae.Args[len(ae.Args)-len(ae.Order):] {
		kt = append(kt, k.Type().OID)
	}
	return kt
}

// orderedRows compiles ae's arguments into one *extraRow per row (nil —
// skipped — when the aggregated value is NULL: the first value for
// string_agg, the ORDER BY key of an ordered-set aggregate).
func (c *compiler) orderedRows(ae plan.AggExpr, valueFirst bool) (vexpr, error) {
	for _, k := range ae.Args[len(ae.Args)-len(ae.Order):] {
		if !types.Orderable(k.Type().OID) {
			return nil, unsupported(ae.Name + " ordered by a value of type " + k.Type().String())
		}
	}
	args, err := c.compileArgs(ae.Args)
	if err != nil {
		return nil, err
	}
	nval := len(ae.Args) - len(ae.Order)
	return rowWise(args, func(row []types.Value) (types.Value, error) {
		skip := row[len(row)-1] == nil
		if valueFirst {
			skip = row[0] == nil
		}
		if skip {
			return nil, nil
		}
		return &extraRow{vals: append([]types.Value(nil), row[:nval]...), keys: append([]types.Value(nil), row[nval:]...)}, nil
	}), nil
}

// extraRow is one input row of string_agg or an ordered-set aggregate:
// its value arguments and ORDER BY keys.
type extraRow struct{ vals, keys []types.Value }

// rowBytes is what r holds, for the statement's working memory.
func (r *extraRow) rowBytes() int64 {
	n := int64(48)
	for _, v := range append(append([]types.Value(nil), r.vals...), r.keys...) {
		n += 16 + valueBytes(v)
	}
	return n
}

// stringAgg is string_agg(value, delimiter [ORDER BY …]) over text: the
// values joined, each after the delimiter of its own row (the first
// row's delimiter unused); NULL values skipped, a NULL delimiter empty;
// NULL over no values. DISTINCT sorts the (value, delimiter) pairs and
// drops repeats, as PostgreSQL's sort-based DISTINCT does.
type stringAgg struct {
	distinct bool
	order    []plan.AggOrder
	kt       []plan.OID
	rows     []*extraRow
	mem      *memAcct
	// inOrder: the rows arrive in PostgreSQL's order (markInputOrder).
	inOrder bool
	// bytea: string_agg(bytea, bytea), its values []byte.
	bytea bool
	// ord orders the text keys (nil: bytes; collate.go).
	ord TextOrder
}

func (s *stringAgg) charge(m *memAcct) { s.mem = m }

func (s *stringAgg) add(v types.Value) error {
	r := v.(*extraRow)
	if s.mem != nil {
		if err := s.mem.grow("string_agg", r.rowBytes()); err != nil {
			return err
		}
	}
	s.rows = append(s.rows, r)
	return nil
}

func (s *stringAgg) result() (types.Value, error) {
	if len(s.rows) == 0 {
		return nil, nil
	}
	rows := append([]*extraRow(nil), s.rows...)
	t := plan.Text
	text := func(v types.Value) string {
		if v == nil {
			return ""
		}
		if b, ok := v.([]byte); ok {
			return string(b)
		}
		return v.(string)
	}
	if s.bytea {
		t = types.Bytea
	}
	if s.distinct {
		// PostgreSQL sorts by the ORDER BY keys (each one of the
		// arguments), then by the arguments not among them, and drops
		// rows equal in every argument.
		pair := func(x, y *extraRow) int {
			if c := compareAggKeys(s.ord, s.kt, s.order, x.keys, y.keys); c != 0 {
				return c
			}
			if c := strings.Compare(text(x.vals[0]), text(y.vals[0])); c != 0 {
				return c
			}
			return compareNullable(t, x.vals[1], y.vals[1], false)
		}
		slices.SortFunc(rows, pair)
		rows = slices.CompactFunc(rows, func(x, y *extraRow) bool { return pair(x, y) == 0 })
	} else {
		cmp := func(x, y *extraRow) int { return compareAggKeys(s.ord, s.kt, s.order, x.keys, y.keys) }
		slices.SortStableFunc(rows, cmp)
		for i := 1; i < len(rows); i++ {
			x, y := rows[i-1], rows[i]
			if !s.inOrder && cmp(x, y) == 0 && (text(x.vals[0]) != text(y.vals[0]) || !sameValue(t, x.vals[1], y.vals[1])) {
				return nil, unsupported("string_agg whose value depends on the order of rows its ORDER BY leaves tied (PostgreSQL's plan decides it); add ORDER BY keys that tell the rows apart")
			}
		}
	}
	if err := stringAggSize(rows, text); err != nil { // aggsize.go
		return nil, err
	}
	var sb strings.Builder
	for i, r := range rows {
		if i > 0 {
			sb.WriteString(text(r.vals[1]))
		}
		sb.WriteString(text(r.vals[0]))
	}
	if s.bytea {
		return []byte(sb.String()), nil
	}
	return sb.String(), nil
}

// compareAggKeys orders two rows' ORDER BY keys of types kt in the
// directions of order, text by ord (nil: bytes).
func compareAggKeys(ord TextOrder, kt []plan.OID, order []plan.AggOrder, x, y []types.Value) int {
	for i := range x {
		c := compareNullableIn(ord, kt[i], x[i], y[i], order[i].NullsFirst != order[i].Desc)
		if order[i].Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// orderedSetAgg is percentile_cont, percentile_disc or mode over the
// non-NULL values of its WITHIN GROUP key, as PostgreSQL's
// orderedsetaggs.c computes them from the sorted values.
type orderedSetAgg struct {
	name string
	t    plan.OID
	desc bool
	frac types.Value // the direct argument (the same every row)
	vals []types.Value
	mem  *memAcct
	ord  TextOrder // orders text values (nil: bytes; collate.go)
}

func (o *orderedSetAgg) charge(m *memAcct) { o.mem = m }

func (o *orderedSetAgg) add(v types.Value) error {
	r := v.(*extraRow)
	if o.mem != nil {
		if err := o.mem.grow(o.name, r.rowBytes()); err != nil {
			return err
		}
	}
	if len(r.vals) > 0 {
		o.frac = r.vals[0]
	}
	o.vals = append(o.vals, r.keys[0])
	return nil
}

func (o *orderedSetAgg) result() (types.Value, error) {
	n := len(o.vals)
	if n == 0 {
		return nil, nil
	}
	cmp := func(a, b types.Value) int {
		if o.desc {
			return compareIn(o.ord, o.t, b, a)
		}
		return compareIn(o.ord, o.t, a, b)
	}
	vals := append([]types.Value(nil), o.vals...)
	slices.SortStableFunc(vals, cmp)
	if o.name == "mode" {
		best, bestN := 0, 0
		for i := 0; i < n; {
			j := i + 1
			for j < n && cmp(vals[i], vals[j]) == 0 {
				j++
			}
			if j-i > bestN {
				best, bestN = i, j-i
			}
			i = j
		}
		return o.pick(vals, best, cmp)
	}
	if o.frac == nil {
		return nil, nil
	}
	if fr, ok := o.frac.(*types.Array); ok {
		return o.multi(fr, vals, cmp) // aggpercmulti.go
	}
	return o.at(o.frac.(float64), vals, cmp)
}

// at is the percentile p of the sorted values vals.
func (o *orderedSetAgg) at(p float64, vals []types.Value, cmp func(a, b types.Value) int) (types.Value, error) {
	n := len(vals)
	if p < 0 || p > 1 || math.IsNaN(p) {
		return nil, &types.Error{Code: "22003", Message: fmt.Sprintf("percentile value %s is not between 0 and 1", cFormatG(p))}
	}
	if o.name == "percentile_disc" {
		row := int(math.Ceil(p * float64(n)))
		return o.pick(vals, max(row, 1)-1, cmp)
	}
	// percentile_cont over float8: the two neighbours, interpolated.
	x := p * float64(n-1)
	first, second := math.Floor(x), math.Ceil(x)
	lo, err := o.pick(vals, int(first), cmp)
	if err != nil || first == second {
		return lo, err
	}
	hi, err := o.pick(vals, int(second), cmp)
	if err != nil {
		return nil, err
	}
	return lo.(float64) + (x-first)*(hi.(float64)-lo.(float64)), nil
}

// pick is vals[i] when every value comparing equal to it prints alike
// (otherwise which of them PostgreSQL's sort puts first decides the
// answer: refused).
func (o *orderedSetAgg) pick(vals []types.Value, i int, cmp func(a, b types.Value) int) (types.Value, error) {
	for _, j := range []int{i - 1, i + 1} {
		for j >= 0 && j < len(vals) && cmp(vals[i], vals[j]) == 0 {
			if !sameValue(o.t, vals[i], vals[j]) {
				return nil, unsupported(o.name + " choosing among values that compare equal but differ (PostgreSQL's sort decides which)")
			}
			if j < i {
				j--
			} else {
				j++
			}
		}
	}
	return vals[i], nil
}

// cFormatG is C's printf %g (six significant digits, trailing zeros
// dropped), as PostgreSQL's messages print a double.
func cFormatG(f float64) string { return fmt.Sprintf("%.6g", f) }

// readsInOrder says whether rel hands its rows over in the order
// PostgreSQL's plan reads them: a VALUES list or generate_series /
// unnest in FROM (PostgreSQL's Values Scan and Function Scan emit rows
// in list and series order), under projections and filters only. An
// aggregate with no GROUP BY over such an input sees the rows in
// PostgreSQL's order (a plain Agg reads its input as it comes).
func readsInOrder(rel plan.Rel) bool {
	switch r := rel.(type) {
	case *plan.Values:
		return true
	case *plan.FuncScan:
		return r.Name == "generate_series" || r.Name == "unnest"
	case *plan.Project:
		return readsInOrder(r.Input)
	case *plan.Filter:
		return readsInOrder(r.Input)
	}
	return false
}

// inInputOrder is a state that can be told its rows arrive in
// PostgreSQL's order (readsInOrder): string_agg, array_agg and the JSON
// aggregates without ORDER BY keep that order instead of refusing.
type inInputOrder interface{ inputOrdered() }

func (s *stringAgg) inputOrdered() { s.inOrder = true }
func (a *arrayAgg) inputOrdered()  { a.inOrder = true }

// markInputOrder makes the states of op's aggregates without ORDER BY
// or DISTINCT treat their rows' arrival order as PostgreSQL's, when op
// is a plain aggregate over an input readsInOrder accepts.
func markInputOrder(op *aggOp, a *plan.Aggregate) {
	if len(a.GroupBy) > 0 || len(a.Sets) > 0 || !readsInOrder(a.Input) {
		return
	}
	for _, f := range op.aggs {
		if len(f.a.Order) > 0 || f.a.Distinct || f.init == nil {
			continue
		}
		inner := f.init
		f.init = func() aggState {
			st := inner()
			if o, ok := st.(inInputOrder); ok {
				o.inputOrdered()
			}
			return st
		}
	}
}
