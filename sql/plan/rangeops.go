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
		if err := checkRangeLiteral(r, loc); err != nil {
			return nil, true, err
		}
	case lt == Unknown && types.IsRange(rt):
		l = coerce(l, T(rt))
		if err := checkRangeLiteral(l, loc); err != nil {
			return nil, true, err
		}
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

// checkRangeLiteral reads a range constant's text when it is bound, as
// PostgreSQL's parser coerces a literal (range_in runs at parse time):
// its error comes before the operator or function resolution's and
// before any other expression's evaluation. A datetime overflow is left
// to evaluation (a tstzrange's bounds are read in the session's zone).
func checkRangeLiteral(e Scalar, loc int32) error {
	c, ok := e.(*Const)
	if !ok || c.Null || !types.IsRange(c.T.OID) {
		return nil
	}
	if _, err := types.ParseRange(c.T.OID, c.Text, nil); err != nil {
		if le := libraryErr(err); le.Code != "22008" {
			return le.at(loc)
		}
	}
	return nil
}
