package builtin

import (
	"github.com/sidecar-dev/sidecar/types"
)

// The range functions of PostgreSQL's rangetypes.c over the six built-in
// range types (types/rangetype.go computes them): the constructors
// (int4range(a, b [, flags]), …: a NULL bound is infinite), lower,
// upper, isempty, lower_inc, upper_inc, lower_inf, upper_inf,
// range_merge, and the operators' functions sql/plan's rangeOperator
// binds (range_contains @>, range_contained_by <@, range_contains_elem,
// elem_contained_by_range, range_overlaps &&, range_before <<,
// range_after >>, range_overleft &<, range_overright &>, range_adjacent
// -|-, range_union +, range_intersect *, range_minus -). PostgreSQL
// declares them over anyrange; here each range type has its overload,
// which resolves alike: no implicit cast reaches a range type.

var rangeTypes = []OID{types.Int4range, types.Int8range, types.Numrange, types.Daterange, types.Tsrange, types.Tstzrange}

func rangeOf(a types.Value) types.RangeVal { return a.(types.RangeVal) }

func (r *Registry) addRanges() {
	for _, rt := range rangeTypes {
		rt, elem := rt, types.RangeElem(rt)
		name := types.NameOf(rt)
		r.def(name, rt, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return types.MakeRange(rt, a[0], a[1], "[)")
		}, elem, elem).nonStrict()
		r.def(name, rt, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			if a[2] == nil {
				return nil, errorf("22000", "range constructor flags argument must not be NULL")
			}
			return types.MakeRange(rt, a[0], a[1], str(a[2]))
		}, elem, elem, types.Text).nonStrict()
		r.def("lower", elem, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			x := rangeOf(a[0])
			if x.IsEmpty() || x.Flags&types.RangeLBInf != 0 {
				return nil, nil
			}
			return x.Lower, nil
		}, rt)
		r.def("upper", elem, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			x := rangeOf(a[0])
			if x.IsEmpty() || x.Flags&types.RangeUBInf != 0 {
				return nil, nil
			}
			return x.Upper, nil
		}, rt)
		for _, f := range []struct {
			name string
			flag byte
		}{{"isempty", types.RangeEmpty}, {"lower_inc", types.RangeLBInc}, {"upper_inc", types.RangeUBInc}, {"lower_inf", types.RangeLBInf}, {"upper_inf", types.RangeUBInf}} {
			flag := f.flag
			r.def(f.name, types.Bool, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
				return rangeOf(a[0]).Flags&flag != 0, nil
			}, rt)
		}
		preds := []struct {
			name string
			f    func(OID, types.RangeVal, types.RangeVal) bool
		}{
			{"range_contains", types.RangeContains},
			{"range_contained_by", func(o OID, x, y types.RangeVal) bool { return types.RangeContains(o, y, x) }},
			{"range_overlaps", types.RangeOverlaps},
			{"range_before", types.RangeBefore},
			{"range_after", types.RangeAfter},
			{"range_overleft", types.RangeOverleft},
			{"range_overright", types.RangeOverright},
			{"range_adjacent", types.RangeAdjacent},
		}
		for _, p := range preds {
			f := p.f
			r.def(p.name, types.Bool, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
				return f(rt, rangeOf(a[0]), rangeOf(a[1])), nil
			}, rt, rt)
		}
		// The element's type must be the range's subtype exactly
		// (anyelement matches no cast): another is 42883 as PostgreSQL.
		elemCheck := func(name string, params []OID, args ...OID) error {
			for i, p := range params {
				if p != args[i] {
					return &Error{Code: CodeUndefinedFunction, Message: "function " + callString(name, params) + " does not exist",
						Hint: "No function matches the given name and argument types. You might need to add explicit type casts."}
				}
			}
			return nil
		}
		r.def("range_contains_elem", types.Bool, func(_ *Context, a []types.Value, params []OID) (types.Value, error) {
			if err := elemCheck("range_contains_elem", params, rt, elem); err != nil {
				return nil, err
			}
			return types.RangeContainsElem(rt, rangeOf(a[0]), a[1]), nil
		}, rt, AnyElement)
		r.def("elem_contained_by_range", types.Bool, func(_ *Context, a []types.Value, params []OID) (types.Value, error) {
			if err := elemCheck("elem_contained_by_range", params, elem, rt); err != nil {
				return nil, err
			}
			return types.RangeContainsElem(rt, rangeOf(a[1]), a[0]), nil
		}, AnyElement, rt)
		r.def("range_union", rt, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return types.RangeUnion(rt, rangeOf(a[0]), rangeOf(a[1]), true)
		}, rt, rt)
		r.def("range_merge", rt, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return types.RangeUnion(rt, rangeOf(a[0]), rangeOf(a[1]), false)
		}, rt, rt)
		r.def("range_intersect", rt, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return types.RangeIntersect(rt, rangeOf(a[0]), rangeOf(a[1]))
		}, rt, rt)
		r.def("range_minus", rt, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return types.RangeMinus(rt, rangeOf(a[0]), rangeOf(a[1]))
		}, rt, rt)
	}
}
