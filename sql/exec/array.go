package exec

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Array expressions (the binder's Funcs without a library call, see
// sql/plan/array.go), on types.Array values with PostgreSQL's
// semantics for one-dimensional arrays.

// arrayFunc compiles an array construct; ok is false for other names.
func (c *compiler) arrayFunc(x *plan.Func) (vexpr, bool, error) {
	if op, all, ok := plan.ArrayCmp(x); ok {
		f, err := c.anyAll(op, all, x)
		return f, true, err
	}
	switch x.Name {
	case "array":
		if x.T.OID == plan.Unknown {
			f, err := c.planTimeErr(&types.Error{Code: "42P18", Message: "cannot determine type of empty array"})
			return f, true, err
		}
		f, err := c.arrayCons(x)
		return f, true, err
	case "array_cat", "array_append", "array_prepend":
		f, err := c.arrayConcat(x)
		return f, true, err
	case "array_position", "array_positions":
		f, err := c.arrayPosition(x) // arraypos.go
		return f, true, err
	case "slice":
		f, err := c.arraySlice(x) // arrayslice.go
		return f, true, err
	case "array_remove", "array_replace":
		f, err := c.arrayEdit(x) // arrayedit.go
		return f, true, err
	case "arraycontains", "arraycontained", "arrayoverlap":
		f, err := c.arrayContainment(x) // arraycontain.go
		return f, true, err
	case "subscript", "array_length", "cardinality", "array_upper", "array_lower", "array_ndims", "array_dims", "array_to_string":
	default:
		return nil, false, nil
	}
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, true, err
	}
	elem := plan.ElemType(x.Args[0].Type()).OID
	fn := arrayScalar(x.Name, elem, c.zone())
	if f := vectorScalar(x.Name); f != nil && types.IsVector(x.Args[0].Type().OID) {
		fn = f // vector.go: subscripts from 0
	}
	return rowWise(args, func(row []types.Value) (types.Value, error) {
		if row[0] == nil || row[1%len(row)] == nil && x.Name != "array_to_string" {
			return nil, nil
		}
		return fn(row)
	}), true, nil
}

// arrayScalar is the per-row function of an array function over
// non-NULL arrays of element type elem (row[0] is the array).
func arrayScalar(name string, elem types.OID, zone *types.Zone) func(row []types.Value) (types.Value, error) {
	n := func(row []types.Value) int { return len(row[0].(*types.Array).Elems) }
	dim1 := func(row []types.Value) bool { return row[1].(int64) == 1 && n(row) > 0 }
	switch name {
	case "subscript":
		return func(row []types.Value) (types.Value, error) {
			a, i := row[0].(*types.Array), row[1].(int64)
			if i < 1 || i > int64(len(a.Elems)) {
				return nil, nil
			}
			return a.Elems[i-1], nil
		}
	case "array_length", "array_upper":
		return func(row []types.Value) (types.Value, error) {
			if !dim1(row) {
				return nil, nil
			}
			return int64(n(row)), nil
		}
	case "array_lower":
		return func(row []types.Value) (types.Value, error) {
			if !dim1(row) {
				return nil, nil
			}
			return int64(1), nil
		}
	case "cardinality":
		return func(row []types.Value) (types.Value, error) { return int64(n(row)), nil }
	case "array_ndims":
		return func(row []types.Value) (types.Value, error) {
			if n(row) == 0 {
				return nil, nil
			}
			return int64(1), nil
		}
	case "array_dims":
		return func(row []types.Value) (types.Value, error) {
			if n(row) == 0 {
				return nil, nil
			}
			return "[1:" + strconv.Itoa(n(row)) + "]", nil
		}
	}
	// array_to_string(a, sep[, null_string]): NULL if a or sep is NULL;
	// NULL elements skipped unless null_string is given and not NULL.
	return func(row []types.Value) (types.Value, error) {
		if row[1] == nil {
			return nil, nil
		}
		sep := row[1].(string)
		var null *string
		if len(row) > 2 && row[2] != nil {
			s := row[2].(string)
			null = &s
		}
		var sb strings.Builder
		first := true
		for _, v := range row[0].(*types.Array).Elems {
			var s string
			switch {
			case v != nil:
				s = types.OutIn(elem, v, zone) // tz.go: a timestamptz in the session's zone
			case null != nil:
				s = *null
			default:
				continue
			}
			if !first {
				sb.WriteString(sep)
			}
			first = false
			sb.WriteString(s)
		}
		return sb.String(), nil
	}
}

// arrayCons compiles ARRAY[…]: NULL elements kept.
func (c *compiler) arrayCons(x *plan.Func) (vexpr, error) {
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, err
	}
	elem := plan.ElemType(x.T)
	convs := make([]conv, len(x.Args))
	for k, a := range x.Args {
		if a.Type().OID != plan.Unknown {
			convs[k] = c.converter(a.Type(), elem)
		}
	}
	return func(b *Batch, sel []int, out []types.Value) error {
		vecs, err := evalArgs(args, b, sel)
		if err != nil {
			return err
		}
		for _, i := range sel {
			a := &types.Array{Elem: elem.OID, Elems: make([]types.Value, len(args))}
			for k := range args {
				v, err := applyConv(convs[k], vecs[k][i])
				if err != nil {
					return err
				}
				if s, ok := v.(string); ok && x.Args[k].Type().OID == plan.Unknown {
					if v, err = types.In(elem.OID, -1, s); err != nil {
						return err
					}
				}
				a.Elems[k] = v
			}
			out[i] = a
		}
		return nil
	}, nil
}

// anyAll compiles x op ANY/ALL (array) as PostgreSQL's ScalarArrayOpExpr:
// a NULL array is NULL; an empty array is false for ANY and true for
// ALL (even when x is NULL); else a NULL x is NULL, and a NULL element
// makes an undecided result NULL.
func (c *compiler) anyAll(op string, all bool, x *plan.Func) (vexpr, error) {
	le, ae, err := c.two(x.Args[0], x.Args[1])
	if err != nil {
		return nil, err
	}
	cmp, err := c.comparer(x.Args[0].Type(), plan.ElemType(x.Args[1].Type()))
	if err != nil {
		return nil, err
	}
	return binaryExpr(le, ae, false, func(x, arr types.Value) (types.Value, error) {
		if arr == nil {
			return nil, nil
		}
		elems := arr.(*types.Array).Elems
		if len(elems) == 0 {
			return all, nil
		}
		if x == nil {
			return nil, nil
		}
		res, null := types.Value(all), false
		for _, e := range elems {
			if e == nil {
				null = true
				continue
			}
			n, err := cmp(x, e)
			if err != nil {
				return nil, err
			}
			if cmpResult(op, n) != all {
				return !all, nil
			}
		}
		if null {
			res = nil
		}
		return res, nil
	}), nil
}

// arrayConcat compiles array || array, array || element and element ||
// array: a NULL array operand is an empty one (NULL || NULL is NULL); a
// NULL element is appended.
func (c *compiler) arrayConcat(x *plan.Func) (vexpr, error) {
	le, re, err := c.two(x.Args[0], x.Args[1])
	if err != nil {
		return nil, err
	}
	elem := plan.ElemType(x.T).OID
	name := x.Name
	return binaryExpr(le, re, false, func(a, b types.Value) (types.Value, error) {
		out := &types.Array{Elem: elem}
		part := func(v types.Value, isArray bool) {
			switch {
			case !isArray:
				out.Elems = append(out.Elems, v)
			case v != nil:
				out.Elems = append(out.Elems, v.(*types.Array).Elems...)
			}
		}
		if name == "array_cat" && a == nil && b == nil {
			return nil, nil
		}
		part(a, name != "array_prepend")
		part(b, name != "array_append")
		if out.Elems == nil {
			out.Elems = []types.Value{}
		}
		out.NullBitmap = concatBitmap(a, b, name)
		return out, nil
	}), nil
}

// concatBitmap is whether PostgreSQL's result of name(a, b) keeps a null
// bitmap from its array operands (types.Array.NullBitmap): array_cat's
// result has one when either array has one (an empty operand returns
// the other array as it is), array_append's and array_prepend's
// (array_set_element) when the array has one and is not empty. NULL
// elements in the result are counted by the array itself.
func concatBitmap(a, b types.Value, name string) bool {
	bm := func(v types.Value) bool {
		x, ok := v.(*types.Array)
		return ok && x.HasNullBitmap()
	}
	switch name {
	case "array_append":
		return bm(a)
	case "array_prepend":
		return bm(b)
	}
	return bm(a) || bm(b)
}

// rowWise evaluates fn over the rows of args' values (a library call,
// an array function).
func rowWise(args []vexpr, fn func(row []types.Value) (types.Value, error)) vexpr {
	return func(b *Batch, sel []int, out []types.Value) error {
		vecs, err := evalArgs(args, b, sel)
		if err != nil {
			return err
		}
		row := make([]types.Value, len(args))
		for _, i := range sel {
			for k := range args {
				row[k] = vecs[k][i]
			}
			v, err := fn(row)
			if err != nil {
				return err
			}
			out[i] = v
		}
		return nil
	}
}

// planTimeErr is an expression whose error PostgreSQL raises while it
// parses or plans the statement (a malformed literal): the statement
// fails with it before any row (env.foldErr), and the expression fails
// if it is ever evaluated. A refusal (0A000) stays an error of the
// build, so the statement is refused before it is described.
func (c *compiler) planTimeErr(err error) (vexpr, error) {
	var te *types.Error
	if errors.As(err, &te) && te.Code == types.CodeUnsupported {
		return nil, err
	}
	if c.e.foldErr == nil {
		c.e.foldErr = err
	}
	return func(*Batch, []int, []types.Value) error { return err }, nil
}

// memCharged is an aggregate state that holds values: the aggregation
// charges them to the statement's working memory.
type memCharged interface{ charge(m *memAcct) }

func (d *distinctAgg) charge(m *memAcct) { d.mem = m }

// aggRow is one input of array_agg: the value (NULL kept, unlike other
// aggregates' inputs, so it is wrapped) and its ORDER BY keys.
type aggRow struct {
	v     types.Value
	v2    types.Value // json[b]_object_agg's value (v is its key)
	keys  []types.Value
	order []plan.AggOrder
	kt    []plan.OID
}

// arrayAggArg compiles array_agg's argument and ORDER BY keys into one
// non-NULL aggRow per row.
func (c *compiler) arrayAggArg(ae plan.AggExpr) (vexpr, error) {
	args, err := c.compileArgs(ae.Args)
	if err != nil {
		return nil, err
	}
	var kt []plan.OID
	nv := plan.OrderedAggArgs(ae.Name) // the values before the ORDER BY keys
	for _, k := range ae.Args[nv:] {
		if !types.Orderable(k.Type().OID) {
			return nil, noOrdering(k.Type(), ae.Name+" ordered by a value of type "+k.Type().String())
		}
		kt = append(kt, k.Type().OID)
	}
	order := ae.Order
	return rowWise(args, func(row []types.Value) (types.Value, error) {
		r := &aggRow{v: row[0], keys: append([]types.Value(nil), row[nv:]...), order: order, kt: kt}
		if nv == 2 {
			r.v2 = row[1]
		}
		return r, nil
	}), nil
}

// arrayAgg is array_agg: every input value, NULLs included, in the
// order of its ORDER BY. Where that order is not fully determined
// (no ORDER BY, or ties between different values) PostgreSQL's answer
// depends on the order its plan reads rows in, so the aggregate is
// refused (0A000) rather than answered in another order.
type arrayAgg struct {
	elem plan.OID
	// elem2 is the type of the rows' v2 (json[b]_object_agg: v is the
	// key, v2 the value); 0 when they have none.
	elem2 plan.OID
	name  string // the aggregate, for errors ("" is array_agg)
	rows  []*aggRow
	mem   *memAcct
	// inOrder: the rows arrive in PostgreSQL's order (aggextra.go's
	// markInputOrder): ties keep it.
	inOrder bool
	// distinct: array_agg(DISTINCT …), whose ORDER BY keys are all
	// its argument (the binder's rule): repeats after sorting dropped.
	distinct bool
	// ord orders the text keys (nil: bytes; collate.go).
	ord TextOrder
}

func (a *arrayAgg) charge(m *memAcct) { a.mem = m }

func (a *arrayAgg) add(v types.Value) error {
	r := v.(*aggRow)
	if a.mem != nil {
		n := 48 + valueBytes(r.v) + valueBytes(r.v2)
		for _, k := range r.keys {
			n += 16 + valueBytes(k)
		}
		if err := a.mem.grow(a.aggName(), n); err != nil {
			return err
		}
	}
	a.rows = append(a.rows, r)
	return nil
}

func (a *arrayAgg) result() (types.Value, error) {
	if len(a.rows) == 0 {
		return nil, nil
	}
	rows, err := a.ordered()
	if err != nil {
		return nil, err
	}
	out := &types.Array{Elem: a.elem, Elems: make([]types.Value, len(rows))}
	for i, r := range rows {
		out.Elems[i] = r.v
	}
	return out, nil
}

func (a *arrayAgg) aggName() string {
	if a.name == "" {
		return "array_agg"
	}
	return a.name
}

// ordered is the rows in their ORDER BY order; refused where ties
// between different values leave the order to PostgreSQL's plan.
func (a *arrayAgg) ordered() ([]*aggRow, error) {
	cmpKeys := func(x, y *aggRow) int { return compareAggKeys(a.ord, x.kt, x.order, x.keys, y.keys) } // aggextra.go
	rows := append([]*aggRow(nil), a.rows...)
	slices.SortStableFunc(rows, cmpKeys)
	for i, r := range rows {
		if i > 0 && !a.inOrder && cmpKeys(rows[i-1], r) == 0 && (!sameValue(a.elem, rows[i-1].v, r.v) || a.elem2 != 0 && !sameValue(a.elem2, rows[i-1].v2, r.v2)) {
			return nil, unsupported(a.aggName() + " whose value depends on the order of rows its ORDER BY leaves tied (PostgreSQL's plan decides it); add ORDER BY keys that tell the rows apart")
		}
	}
	if a.distinct {
		// The keys are the value: tied rows are equal values, alike in
		// print (checked above), PostgreSQL keeping one.
		rows = slices.CompactFunc(rows, func(x, y *aggRow) bool { return cmpKeys(x, y) == 0 })
	}
	return rows, nil
}

// compareNullable orders a and b of type t with NULLs first or last
// (for a descending key the caller negates the result, so it passes
// NULLS FIRST of a DESC key as last).
func compareNullable(t plan.OID, a, b types.Value, nullsFirst bool) int {
	return compareNullableIn(nil, t, a, b, nullsFirst)
}

// compareNullableIn is compareNullable with text ordered by ord (nil:
// bytes; collate.go).
func compareNullableIn(ord TextOrder, t plan.OID, a, b types.Value, nullsFirst bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil || b == nil:
		if (a == nil) == nullsFirst {
			return -1
		}
		return 1
	}
	return compareIn(ord, t, a, b)
}

// sameValue says whether a and b (NULL allowed) print alike, so their
// order in an array cannot show.
func sameValue(t plan.OID, a, b types.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return types.Out(t, a) == types.Out(t, b)
}
