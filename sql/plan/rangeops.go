package plan

import "github.com/sidecar-dev/sidecar/types"

// rangeFuncs are the library functions (sql/builtin/ranges.go) of the
// range operators over two ranges.
var rangeFuncs = map[string]string{
	"@>": "range_contains", "<@": "range_contained_by", "&&": "range_overlaps", "<<": "range_before",
	">>": "range_after", "&<": "range_overleft", "&>": "range_overright", "-|-": "range_adjacent",
	"+": "range_union", "*": "range_intersect", "-": "range_minus",
}

// rangeOperator binds the operators with a range operand (the six
// built-in range types), as PostgreSQL resolves its anyrange operators:
// an untyped literal opposite a range is that range type; two ranges
// must be of one type; range @> element and element <@ range take the
// range's subtype exactly (anyelement: int8range @> 3 is 42883, no
// cast). The comparisons are range_cmp's (types.Compare). ok=false when
// neither operand is a range.
func (b *binder) rangeOperator(op string, l, r Scalar, loc int32) (e Scalar, ok bool, err error) {
	lt, rt := l.Type().OID, r.Type().OID
	if !types.IsRange(lt) && !types.IsRange(rt) {
		return nil, false, nil
	}
	switch {
	case types.IsRange(lt) && rt == Unknown:
		r = coerce(r, T(lt))
	case lt == Unknown && types.IsRange(rt):
		l = coerce(l, T(rt))
	}
	lt, rt = l.Type().OID, r.Type().OID
	switch {
	case lt == rt && comparisons[op]:
		b.noteParam(l)
		b.noteParam(r)
		return &Op{Op: op, Args: []Scalar{l, r}, T: T(Bool)}, true, nil
	case lt == rt && rangeFuncs[op] != "":
		return b.callOperator(rangeFuncs[op], l, r, loc)
	case op == "@>" && types.IsRange(lt) && rt == types.RangeElem(lt):
		return b.callOperator("range_contains_elem", l, r, loc)
	case op == "<@" && types.IsRange(rt) && lt == types.RangeElem(rt):
		return b.callOperator("elem_contained_by_range", l, r, loc)
	}
	return nil, true, errorf(CodeUndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, r.Type()).at(loc)
}
