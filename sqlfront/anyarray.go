package sqlfront

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/sidecar-dev/sidecar/types"
)

// x op ANY (array) and x op ALL (array) over an ARRAY[...] constructor,
// an array literal ('{1,2}', '{1,2}'::int[]) or an array parameter ($1,
// $1::int[]), as PostgreSQL answers them: ANY is true when a comparison
// with an element is true, ALL false when one is false; otherwise a NULL
// element (or a NULL x) makes the answer NULL; an empty array answers
// false (ANY) or true (ALL) whatever x; a NULL array answers NULL.
// Before, every = ANY (array) was refused (issue 21).

// arrayValue is a one-dimensional array's elements (nil: NULL), of
// type elem. It is the value of an array literal or an array parameter;
// nothing outputs it.
type arrayValue struct {
	elem uint32
	vals []Value
}

// anyExpr is x op ANY/ALL (elements): elems (an ARRAY constructor,
// coerced to t) or arr (evaluating to an *arrayValue of elemT, or nil).
type anyExpr struct {
	op    string
	all   bool
	l     expr
	elems []expr
	arr   expr
	elemT uint32
	t     uint32
}

func (a *anyExpr) typ() uint32 { return oidBool }

func (a *anyExpr) eval(e *env) (Value, error) {
	lv, err := a.l.eval(e)
	if err != nil {
		return nil, err
	}
	var vals []Value
	if a.arr != nil {
		av, err := a.arr.eval(e)
		if err != nil || av == nil {
			return nil, err
		}
		arr, ok := av.(*arrayValue)
		if !ok {
			return nil, errf(codeInternal, -1, "= ANY: the array operand is not an array")
		}
		vals = arr.vals
		if arr.elem != a.t {
			conv := make([]Value, len(vals))
			for i, v := range vals {
				if conv[i], err = convert(v, arr.elem, a.t); err != nil {
					return nil, err
				}
			}
			vals = conv
		}
	} else {
		vals = make([]Value, len(a.elems))
		for i, x := range a.elems {
			if vals[i], err = x.eval(e); err != nil {
				return nil, err
			}
		}
	}
	if len(vals) == 0 {
		return a.all, nil
	}
	if lv == nil {
		return nil, nil
	}
	sawNull := false
	for _, v := range vals {
		if v == nil {
			sawNull = true
			continue
		}
		r := cmpOp(a.op, cmpValues(lv, v, a.t))
		if a.all && !r {
			return false, nil
		}
		if !a.all && r {
			return true, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return a.all, nil
}

// anyAll plans x op ANY/ALL (array).
func (pl *planner) anyAll(a *pg.A_Expr, all bool) (expr, error) {
	pos := int(a.Location)
	op := strings.TrimPrefix(qualName(a.Name), "pg_catalog.")
	what := op + " ANY"
	if all {
		what = op + " ALL"
	}
	switch op {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
	default:
		return nil, unsupported(pos, "operator "+what)
	}
	l, err := pl.compile(a.Lexpr)
	if err != nil {
		return nil, err
	}
	out := &anyExpr{op: op, all: all}
	var elemProbe expr // an expression of the element type, for the common type
	r := a.Rexpr
	var castElem uint32 // ARRAY[...]::type[]
	if tc := r.GetTypeCast(); tc != nil && len(tc.TypeName.GetArrayBounds()) > 0 && tc.Arg.GetAArrayExpr() != nil {
		if castElem, err = arrayCastElem(tc.TypeName); err != nil {
			return nil, err
		}
		r = tc.Arg
	}
	switch {
	case r.GetAArrayExpr() != nil:
		items := r.GetAArrayExpr().Elements
		for _, it := range items {
			if it.GetAArrayExpr() != nil {
				return nil, unsupported(nodeLoc(it), "a multidimensional array")
			}
			x, err := pl.compile(it)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, x)
		}
		et := castElem
		if et == 0 {
			et = oidUnknown
		}
		for _, x := range out.elems {
			if castElem != 0 {
				break
			}
			if xt := pl.typeOf(x); et == oidUnknown {
				et = xt
			} else if xt != oidUnknown && xt != et {
				if et, err = pl.commonType(&constExpr{t: et}, x, "=", pos); err != nil {
					return nil, err
				}
			}
		}
		if et == oidUnknown {
			if len(out.elems) == 0 {
				return nil, errf(codeIndetermParam, pos, "cannot determine type of empty array").hint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
			}
			et = oidText
		}
		for i, x := range out.elems {
			if castElem != 0 && pl.typeOf(x) != oidUnknown && pl.typeOf(x) != et {
				if !canCast(pl.typeOf(x), et) {
					return nil, errf(codeCannotCoerce, nodeLoc(items[i]), "cannot cast type %s to %s", typeName(pl.typeOf(x)), typeName(et))
				}
				if out.elems[i], err = castOrFold(x, pl.typeOf(x), et); err != nil {
					return nil, err
				}
				continue
			}
			if out.elems[i], err = pl.coerce(x, et, nodeLoc(items[i])); err != nil {
				return nil, err
			}
		}
		out.elemT = et
		elemProbe = &constExpr{t: et}
	default:
		arr, et, err := pl.arrayOperand(r, l)
		if err != nil {
			return nil, err
		}
		out.arr, out.elemT = arr, et
		elemProbe = &constExpr{t: et}
	}
	t, err := pl.commonType(l, elemProbe, op, pos)
	if err != nil {
		return nil, err
	}
	if !comparableType(t, op) {
		return nil, unsupported(pos, fmt.Sprintf("operator %s on type %s", what, typeName(t)))
	}
	if l, err = pl.coerce(l, t, pos); err != nil {
		return nil, err
	}
	for i, x := range out.elems {
		if out.elems[i], err = pl.coerce(x, t, pos); err != nil {
			return nil, err
		}
	}
	if out.arr != nil && out.elemT != t && !canCast(out.elemT, t) {
		return nil, errf(codeUndefinedFunc, pos, "operator does not exist: %s %s %s", typeName(pl.typeOf(l)), op, typeName(out.elemT))
	}
	if err := pl.textOrderCheck(pos, t, op == "=" || op == "<>" || op == "!=", append([]expr{l}, out.elems...)...); err != nil {
		return nil, err
	}
	out.l, out.t = l, t
	return out, nil
}

// arrayOperand plans ANY's right side when it is not an ARRAY
// constructor: a literal ('{...}', typed by x as PostgreSQL types it), a
// literal or parameter cast to an array type, or an untyped parameter
// (typed as an array of x's type). It returns an expression evaluating
// to an *arrayValue (or nil) and the element type.
func (pl *planner) arrayOperand(r *pg.Node, l expr) (expr, uint32, error) {
	pos := nodeLoc(r)
	elemOf := func(e expr) uint32 {
		if t := pl.typeOf(e); t != oidUnknown {
			return t
		}
		return oidText
	}
	et := elemOf(l)
	if tc := r.GetTypeCast(); tc != nil && len(tc.TypeName.GetArrayBounds()) > 0 {
		t, err := arrayCastElem(tc.TypeName)
		if err != nil {
			return nil, 0, err
		}
		et, r = t, tc.Arg
		pos = nodeLoc(r)
	} else if r.GetTypeCast() != nil || r.GetAConst() == nil && r.GetParamRef() == nil {
		return nil, 0, unsupported(pos, "= ANY over this array expression")
	}
	at, ok := types.Lookup(et)
	if !ok || at.Array == 0 {
		return nil, 0, unsupported(pos, "an array of "+typeName(et))
	}
	switch {
	case r.GetAConst() != nil:
		c := r.GetAConst()
		if c.Isnull {
			return &constExpr{t: uint32(at.Array)}, et, nil
		}
		s := c.GetSval()
		if s == nil {
			return nil, 0, unsupported(pos, "= ANY over a non-array constant")
		}
		v, err := parseArray(et, s.Sval)
		if err != nil {
			if pe, ok := err.(*Error); ok && pe.Pos < 0 {
				pe.Pos = int(c.Location)
			}
			return nil, 0, err
		}
		return &constExpr{v: v, t: uint32(at.Array)}, et, nil
	case r.GetParamRef() != nil:
		p, err := pl.compile(r)
		if err != nil {
			return nil, 0, err
		}
		if n, ok := pl.paramType(p); ok {
			pl.params[n-1] = uint32(at.Array)
			return p, et, nil
		}
		pt := pl.typeOf(p)
		if ptt, ok := types.Lookup(pt); ok && ptt.Category == types.CatArray {
			if pt != uint32(at.Array) {
				return nil, 0, unsupported(pos, "an array parameter used as two array types")
			}
			return p, et, nil
		}
		return nil, 0, errf(codeDatatype, pos, "op ANY/ALL (array) requires array on right side")
	}
	return nil, 0, unsupported(pos, "= ANY over this array expression")
}

// arrayElemType is the element type of an array type the SQL front end
// reads as a parameter (0 when t is not one).
func arrayElemType(t uint32) uint32 {
	at, ok := types.Lookup(t)
	if !ok || at.Category != types.CatArray {
		return 0
	}
	return uint32(at.Elem)
}

// parseArray reads a one-dimensional array's text form (array_in):
// {a,b,"c d",NULL}, whitespace around elements ignored, double quotes
// and backslashes escaping; an unquoted NULL (any case) is NULL. A
// multidimensional array or explicit bounds are refused.
func parseArray(elem uint32, s string) (*arrayValue, error) {
	return parseArrayAs(elem, s, parseAs)
}

// parseArrayAs is parseArray reading each element with as: paramAs for
// a bound array parameter, whose elements may be of the types kept as
// their canonical text (bytea, jsonb, inet: `h = ANY($1)`).
func parseArrayAs(elem uint32, s string, as func(uint32, string) (Value, error)) (*arrayValue, error) {
	bad := func(detail string) error {
		e := errf(codeInvalidText, -1, "malformed array literal: \"%s\"", s)
		e.Detail = detail
		return e
	}
	in := strings.TrimSpace(s)
	if strings.HasPrefix(in, "[") {
		return nil, unsupported(-1, "an array literal with explicit bounds")
	}
	if !strings.HasPrefix(in, "{") {
		return nil, bad("Array value must start with \"{\" or dimension information.")
	}
	if !strings.HasSuffix(in, "}") {
		return nil, bad("Unexpected end of input.")
	}
	body := in[1 : len(in)-1]
	out := &arrayValue{elem: elem}
	if strings.TrimSpace(body) == "" {
		return out, nil
	}
	i := 0
	for {
		for i < len(body) && isArraySpace(body[i]) {
			i++
		}
		if i < len(body) && body[i] == '{' {
			return nil, unsupported(-1, "a multidimensional array")
		}
		var b strings.Builder
		quoted, any := false, false
		for i < len(body) && (quoted || body[i] != ',') {
			c := body[i]
			switch {
			case c == '\\':
				if i+1 >= len(body) {
					return nil, bad("Unexpected end of input.")
				}
				b.WriteByte(body[i+1])
				i += 2
				any = true
				continue
			case c == '"':
				quoted = !quoted
				any = true
			case !quoted && (c == '{' || c == '}'):
				return nil, bad("Unexpected \"" + string(c) + "\" character.")
			default:
				b.WriteByte(c)
			}
			i++
		}
		if quoted {
			return nil, bad("Unexpected end of input.")
		}
		raw := b.String()
		if !any {
			raw = strings.TrimRightFunc(raw, func(r rune) bool { return r < 128 && isArraySpace(byte(r)) })
		}
		switch {
		case !any && raw == "":
			return nil, bad("Unexpected \",\" character.")
		case !any && strings.EqualFold(raw, "NULL"):
			out.vals = append(out.vals, nil)
		default:
			v, err := as(elem, raw)
			if err != nil {
				return nil, err
			}
			out.vals = append(out.vals, v)
		}
		if i >= len(body) {
			return out, nil
		}
		i++ // the comma
	}
}

func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// decodeArrayParam reads an array parameter (= ANY ($1)) in text or
// binary format into an *arrayValue.
func (s *session) decodeArrayParam(t, elem uint32, format int16, b []byte, n int) (Value, error) {
	text := string(b)
	if format != 0 {
		typ, ok := s.tm.TypeForOID(t)
		if !ok {
			return nil, errf(codeInvalidBinary, -1, "incorrect binary data format in bind parameter %d", n)
		}
		val, err := typ.Codec.DecodeValue(s.tm, t, pgtype.BinaryFormatCode, b)
		if err != nil {
			return nil, errf(codeInvalidBinary, -1, "incorrect binary data format in bind parameter %d", n)
		}
		txt, err := s.tm.Encode(t, pgtype.TextFormatCode, val, nil)
		if err != nil {
			return nil, errf(codeInvalidBinary, -1, "incorrect binary data format in bind parameter %d", n)
		}
		text = string(txt)
	}
	return parseArrayAs(elem, text, paramAs)
}

// arrayCastElem is the element type of a cast to an array type
// (type[]); a length-limited element type is refused.
func arrayCastElem(tn *pg.TypeName) (uint32, error) {
	bare := &pg.TypeName{Names: tn.Names, Typmods: tn.Typmods, Location: tn.Location}
	t, mod, err := typeOID(bare)
	if err != nil {
		return 0, err
	}
	if mod >= 0 || len(tn.ArrayBounds) > 1 {
		return 0, unsupported(int(tn.Location), "this array type")
	}
	return t, nil
}
