package builtin

import (
	"errors"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// jsonb_path_exists, jsonb_path_match, jsonb_path_query_first,
// jsonb_path_query_array (and the rows of jsonb_path_query), @? and @@:
// jsonpath_exec.c's executeItemOptUnwrapTarget, executeBoolItem and
// executePredicate over the subset types.ParseJSONPath reads. Lax mode
// unwraps arrays where PostgreSQL does (member and wildcard accessors,
// filters, numeric methods, operands of comparisons and arithmetic),
// wraps a non-array under [ ] and ignores structural errors; strict mode
// raises them. Errors inside predicates are unknown; with silent true
// the functions' soft errors give NULL (or no rows). Where PostgreSQL
// stops at the first item (jsonb_path_exists, @? and exists (…) in lax
// mode) and an error comes first, the call is refused: PostgreSQL skips
// some work there (non-numbers under unary ±) this evaluator does not.

// jpErr is an error of the evaluation: soft errors (RETURN_ERROR) are
// caught by predicates and silenced by silent; hard ones (a missing
// variable) always raise.
type jpErr struct {
	e    *Error
	hard bool
}

func (e *jpErr) Error() string { return e.e.Message }

func jpSoft(code, format string, args ...any) error {
	return &jpErr{e: errorf(code, format, args...)}
}

// jpCtx is JsonPathExecContext.
type jpCtx struct {
	root   *jnode
	vars   *jnode
	strict bool
	last   int // innermostArraySize - 1; -2 outside subscripts
	// ignore is ignoreStructuralErrors: lax mode, and strict mode
	// below .**.
	ignore bool
	// throw is throwErrors: not silent, and not inside a predicate's
	// operands.
	throw bool
	// r is the library (its major), nil when not known.
	r *Registry
}

// jpBool is JsonPathBool.
type jpBool int

const (
	jpFalse jpBool = iota
	jpTrue
	jpUnknown
)

// jpNum is a number the evaluator computed, as a jsonb node.
func jpNum(d *types.Decimal) *jnode {
	s := jsonbNumText(d)
	return &jnode{kind: jNumber, str: s, raw: s}
}

// jsonbNumText is a number as jsonb holds and prints it: numeric_out of
// its value (1e2 is 100), for numbers read from a datum (json.go) and
// computed by jsonpath alike.
func jsonbNumText(d *types.Decimal) string { return d.String() }

// exec applies it and the accessors after it to v (@ is cur); unwrap is
// whether an array target is unwrapped (lax, except for the elements of
// an unwrapped array).
func (c *jpCtx) exec(it *types.JPItem, v, cur *jnode, unwrap bool) ([]*jnode, error) {
	var out []*jnode
	next := func(items ...*jnode) error {
		for _, n := range items {
			if it.Next == nil {
				out = append(out, n)
				continue
			}
			r, err := c.exec(it.Next, n, cur, !c.strict)
			out = append(out, r...)
			if err != nil {
				return err
			}
		}
		return nil
	}
	unwrapArray := func() ([]*jnode, error) {
		for _, e := range v.vals {
			r, err := c.exec(it, e, cur, false)
			out = append(out, r...)
			if err != nil {
				return out, err
			}
		}
		return out, nil
	}
	var err error
	switch it.Kind {
	case types.JPRoot:
		err = next(c.root)
	case types.JPCurrent:
		err = next(cur)
	case types.JPVar:
		if c.vars == nil || c.vars.field(it.Str) == nil {
			return nil, &jpErr{e: errorf("42704", "could not find jsonpath variable %q", it.Str), hard: true}
		}
		err = next(c.vars.field(it.Str))
	case types.JPNull:
		err = next(&jnode{kind: jNull, raw: "null"})
	case types.JPBool:
		if it.Bool {
			err = next(&jnode{kind: jTrue, raw: "true"})
		} else {
			err = next(&jnode{kind: jFalse, raw: "false"})
		}
	case types.JPNum:
		err = next(jpNum(it.Num))
	case types.JPString:
		err = next(&jnode{kind: jString, str: it.Str, raw: jsonText(jsbOID, &jnode{kind: jString, str: it.Str})})
	case types.JPLast:
		if c.last < -1 {
			return nil, errorf("XX000", "evaluating jsonpath LAST outside of array subscript")
		}
		err = next(jpNum(types.DecimalFromInt(int64(c.last))))
	case types.JPKey:
		switch {
		case v.kind == jObject:
			if f := v.field(it.Str); f != nil {
				err = next(f)
			} else if !c.ignore {
				return nil, jpSoft("2203A", "JSON object does not contain key %q", it.Str)
			}
		case unwrap && v.kind == jArray:
			return unwrapArray()
		case !c.ignore:
			return nil, jpSoft("2203A", "jsonpath member accessor can only be applied to an object")
		}
	case types.JPAnyKey:
		switch {
		case v.kind == jObject:
			_, vals := jsonbOrder(v.keys, v.vals)
			err = next(vals...)
		case unwrap && v.kind == jArray:
			return unwrapArray()
		case !c.ignore:
			return nil, jpSoft("2203C", "jsonpath wildcard member accessor can only be applied to an object")
		}
	case types.JPAnyArray:
		switch {
		case v.kind == jArray:
			err = next(v.vals...)
		case !c.strict:
			err = next(v)
		case !c.ignore:
			return nil, jpSoft("22039", "jsonpath wildcard array accessor can only be applied to an array")
		}
	case types.JPIndex:
		if v.kind != jArray && c.strict {
			if !c.ignore {
				return nil, jpSoft("22039", "jsonpath array accessor can only be applied to an array")
			}
			break
		}
		elems := []*jnode{v}
		if v.kind == jArray {
			elems = v.vals
		}
		saved := c.last
		c.last = len(elems) - 1
		defer func() { c.last = saved }()
		for _, s := range it.Subs {
			from, err := c.index(s.From, v, cur)
			if err != nil {
				return out, err
			}
			to := from
			if s.To != nil {
				if to, err = c.index(s.To, v, cur); err != nil {
					return out, err
				}
			}
			if !c.ignore && (from < 0 || from > to || to >= int64(len(elems))) {
				return out, jpSoft("22033", "jsonpath array subscript is out of bounds")
			}
			from = max(from, 0)
			to = min(to, int64(len(elems))-1)
			for i := from; i <= to; i++ {
				if err := next(elems[i]); err != nil {
					return out, err
				}
			}
		}
	case types.JPFilter:
		if unwrap && v.kind == jArray {
			return unwrapArray()
		}
		st, err := c.boolItem(it.Left, v, v)
		if err != nil {
			return nil, err
		}
		if st == jpTrue {
			return out, next(v)
		}
	case types.JPMethod:
		switch it.Str {
		case "size":
			n := int64(1)
			if v.kind == jArray {
				n = int64(len(v.vals))
			} else if c.strict {
				if !c.ignore {
					return nil, jpSoft("22039", "jsonpath item method .size() can only be applied to an array")
				}
				break
			}
			err = next(jpNum(types.DecimalFromInt(n)))
		case "type":
			t := v.typeName()
			err = next(&jnode{kind: jString, str: t, raw: strconv.Quote(t)})
		case "keyvalue", "double", "bigint", "boolean", "decimal", "integer", "number", "string":
			if unwrap && v.kind == jArray {
				return unwrapArray()
			}
			n, _, e := c.method(it.Str, v) // jsonpath_methods.go
			if e != nil {
				return nil, e
			}
			if n != nil {
				err = next(n)
				break
			}
			kvs, e := c.keyValues(v)
			if e != nil {
				return nil, e
			}
			err = next(kvs...)
		default: // abs, floor, ceiling
			if unwrap && v.kind == jArray {
				return unwrapArray()
			}
			if v.kind != jNumber {
				return nil, jpSoft("22036", "jsonpath item method .%s() can only be applied to a numeric value", it.Str)
			}
			d, e := jpDecimal(v)
			if e != nil {
				return nil, e
			}
			switch it.Str {
			case "abs":
				if d.V.Sign() < 0 {
					d = types.NegDecimal(d)
				}
			case "floor":
				d = decIntegral(d, floorDiv)
			case "ceiling":
				d = decIntegral(d, ceilDiv)
			}
			err = next(jpNum(d))
		}
	case types.JPAny:
		return c.execAny(it, v, cur) // jsonpath_methods.go
	case types.JPAdd, types.JPSubtract, types.JPMul, types.JPDiv, types.JPMod:
		r, e := c.arith(it, v, cur)
		if e != nil {
			return nil, e
		}
		err = next(r)
	case types.JPPlus, types.JPMinus:
		seq, e := c.unwrapped(it.Left, v, cur, true)
		if e != nil {
			return nil, e
		}
		for _, n := range seq {
			if n.kind != jNumber {
				return out, jpSoft("2203B", "operand of unary jsonpath operator %s is not a numeric value", map[bool]string{true: "+", false: "-"}[it.Kind == types.JPPlus])
			}
			if it.Kind == types.JPMinus {
				d, e := jpDecimal(n)
				if e != nil {
					return out, e
				}
				n = jpNum(types.NegDecimal(d))
			}
			if err := next(n); err != nil {
				return out, err
			}
		}
	default: // a predicate as an expression: its boolean, null when unknown
		st, e := c.boolItem(it, v, cur)
		if e != nil {
			return nil, e
		}
		n := &jnode{kind: jNull, raw: "null"}
		switch st {
		case jpTrue:
			n = &jnode{kind: jTrue, raw: "true"}
		case jpFalse:
			n = &jnode{kind: jFalse, raw: "false"}
		}
		err = next(n)
	}
	return out, err
}

// unwrapped is executeItemOptUnwrapResult: it's items, arrays among them
// replaced by their elements in lax mode when unwrap.
func (c *jpCtx) unwrapped(it *types.JPItem, v, cur *jnode, unwrap bool) ([]*jnode, error) {
	seq, err := c.exec(it, v, cur, !c.strict)
	if err != nil || !unwrap || c.strict {
		return seq, err
	}
	var out []*jnode
	for _, n := range seq {
		if n.kind == jArray {
			out = append(out, n.vals...)
		} else {
			out = append(out, n)
		}
	}
	return out, nil
}

// jpDecimal is a JSON number's numeric.
func jpDecimal(n *jnode) (*types.Decimal, error) {
	d, err := types.In(types.Numeric, -1, n.str)
	if err != nil {
		return nil, err
	}
	return d.(*types.Decimal), nil
}

// index is getArrayIndex: the subscript's single number, truncated.
func (c *jpCtx) index(it *types.JPItem, v, cur *jnode) (int64, error) {
	seq, err := c.exec(it, v, cur, !c.strict)
	if err != nil {
		return 0, err
	}
	if len(seq) != 1 || seq[0].kind != jNumber {
		return 0, jpSoft("22033", "jsonpath array subscript is not a single numeric value")
	}
	d, err := jpDecimal(seq[0])
	if err != nil {
		return 0, err
	}
	t := decRound(d, 0, true)
	if !t.V.IsInt64() || t.V.Int64() > 1<<31-1 || t.V.Int64() < -1<<31 {
		return 0, jpSoft("22033", "jsonpath array subscript is out of integer range")
	}
	return t.V.Int64(), nil
}

var jpArithName = map[types.JPKind]string{types.JPAdd: "+", types.JPSubtract: "-", types.JPMul: "*", types.JPDiv: "/", types.JPMod: "%"}

// arith is executeBinaryArithmExpr.
func (c *jpCtx) arith(it *types.JPItem, v, cur *jnode) (*jnode, error) {
	// Both operands are evaluated before either is checked.
	lseq, err := c.unwrapped(it.Left, v, cur, true)
	if err != nil {
		return nil, err
	}
	rseq, err := c.unwrapped(it.Right, v, cur, true)
	if err != nil {
		return nil, err
	}
	operand := func(seq []*jnode, which string) (*types.Decimal, error) {
		if len(seq) != 1 || seq[0].kind != jNumber {
			return nil, jpSoft("22038", "%s operand of jsonpath operator %s is not a single numeric value", which, jpArithName[it.Kind])
		}
		return jpDecimal(seq[0])
	}
	l, err := operand(lseq, "left")
	if err != nil {
		return nil, err
	}
	r, err := operand(rseq, "right")
	if err != nil {
		return nil, err
	}
	var d *types.Decimal
	switch it.Kind {
	case types.JPAdd:
		d = types.AddDecimal(l, r)
	case types.JPSubtract:
		d = types.SubDecimal(l, r)
	case types.JPMul:
		d = types.MulDecimal(l, r)
	case types.JPDiv:
		d, err = types.DivDecimal(l, r)
	case types.JPMod:
		d, err = types.ModDecimal(l, r)
	}
	if err != nil {
		var te *types.Error
		if errors.As(err, &te) {
			return nil, jpSoft(te.Code, "%s", te.Message)
		}
		return nil, err
	}
	return jpNum(d), nil
}

// boolItem is executeBoolItem: v is the item the predicate is applied
// to (jb), cur the filter's @.
func (c *jpCtx) boolItem(it *types.JPItem, v, cur *jnode) (jpBool, error) {
	switch it.Kind {
	case types.JPAnd, types.JPOr:
		l, err := c.boolItem(it.Left, v, cur)
		if err != nil {
			return 0, err
		}
		if it.Kind == types.JPAnd && l == jpFalse || it.Kind == types.JPOr && l == jpTrue {
			return l, nil
		}
		r, err := c.boolItem(it.Right, v, cur)
		if err != nil {
			return 0, err
		}
		if it.Kind == types.JPAnd && r == jpTrue || it.Kind == types.JPOr && r == jpFalse {
			return l, nil
		}
		return r, nil
	case types.JPNot:
		b, err := c.boolItem(it.Left, v, cur)
		if err != nil || b == jpUnknown {
			return b, err
		}
		return 1 - b, nil
	case types.JPIsUnknown:
		b, err := c.boolItem(it.Left, v, cur)
		if err != nil {
			return 0, err
		}
		if b == jpUnknown {
			return jpTrue, nil
		}
		return jpFalse, nil
	case types.JPExists:
		saved := c.throw
		c.throw = false
		seq, err := c.exec(it.Left, v, cur, !c.strict)
		c.throw = saved
		if err != nil {
			switch {
			case !soft(err):
				return 0, err
			case c.strict:
				return jpUnknown, nil
			case len(seq) > 0:
				return jpTrue, nil // PostgreSQL stops at the first item
			}
			// In lax mode PostgreSQL stops at the first item and skips
			// what it need not compute (non-numbers under unary ±).
			return 0, unsupported("exists (…) of a lax path whose evaluation fails before an item is found")
		}
		if len(seq) > 0 {
			return jpTrue, nil
		}
		return jpFalse, nil
	}
	return c.predicate(it, v, cur)
}

// soft says whether err is a soft evaluation error.
func soft(err error) bool {
	var je *jpErr
	return errors.As(err, &je) && !je.hard
}

// predicate is executePredicate.
func (c *jpCtx) predicate(it *types.JPItem, v, cur *jnode) (jpBool, error) {
	caught := func(err error) (jpBool, error) {
		if soft(err) {
			return jpUnknown, nil
		}
		return 0, err
	}
	saved := c.throw
	c.throw = false
	defer func() { c.throw = saved }()
	lseq, err := c.unwrapped(it.Left, v, cur, true)
	if err != nil {
		return caught(err)
	}
	var rseq []*jnode
	switch it.Kind {
	case types.JPLikeRegex:
	default:
		if rseq, err = c.unwrapped(it.Right, v, cur, it.Kind != types.JPStartsWith); err != nil {
			return caught(err)
		}
	}
	var re func(string) (bool, error)
	if it.Kind == types.JPLikeRegex {
		re = func(s string) (bool, error) { return jpLikeRegex(it, s) }
		rseq = []*jnode{nil}
	}
	found, unknown := false, false
	for _, l := range lseq {
		for _, r := range rseq {
			var res jpBool
			switch it.Kind {
			case types.JPLikeRegex:
				res = jpUnknown
				if l.kind == jString {
					m, err := re(l.str)
					if err != nil {
						return 0, err
					}
					res = jpFalse
					if m {
						res = jpTrue
					}
				}
			case types.JPStartsWith:
				res = jpUnknown
				if l.kind == jString && r.kind == jString {
					res = jpFalse
					if strings.HasPrefix(l.str, r.str) {
						res = jpTrue
					}
				}
			default:
				res, err = jpCompare(it.Kind, l, r)
				if err != nil {
					return 0, err
				}
			}
			switch res {
			case jpUnknown:
				if c.strict {
					return jpUnknown, nil
				}
				unknown = true
			case jpTrue:
				if !c.strict {
					return jpTrue, nil
				}
				found = true
			}
		}
	}
	switch {
	case found:
		return jpTrue, nil
	case unknown:
		return jpUnknown, nil
	}
	return jpFalse, nil
}

// jpCompare is compareItems.
func jpCompare(op types.JPKind, a, b *jnode) (jpBool, error) {
	ka, kb := a.kind, b.kind
	if ka == jFalse {
		ka = jTrue
	}
	if kb == jFalse {
		kb = jTrue
	}
	if ka != kb {
		if ka == jNull || kb == jNull {
			if op == types.JPNe {
				return jpTrue, nil
			}
			return jpFalse, nil
		}
		return jpUnknown, nil
	}
	cmp := 0
	switch ka {
	case jNull:
	case jTrue:
		cmp = int(btoi(a.kind == jTrue)) - int(btoi(b.kind == jTrue))
	case jNumber:
		x, err := jpDecimal(a)
		if err != nil {
			return 0, err
		}
		y, err := jpDecimal(b)
		if err != nil {
			return 0, err
		}
		cmp = types.CompareDecimal(x, y)
	case jString:
		cmp = strings.Compare(a.str, b.str)
	default:
		return jpUnknown, nil
	}
	var r bool
	switch op {
	case types.JPEq:
		r = cmp == 0
	case types.JPNe:
		r = cmp != 0
	case types.JPLt:
		r = cmp < 0
	case types.JPGt:
		r = cmp > 0
	case types.JPLe:
		r = cmp <= 0
	case types.JPGe:
		r = cmp >= 0
	}
	if r {
		return jpTrue, nil
	}
	return jpFalse, nil
}

func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// jpLikeRegex matches s against like_regex's pattern with its XQuery
// flags as jspConvertRegexFlags maps them: ARE, newline-sensitive dot
// unless s, anchors at newlines with m, i case-insensitive.
func jpLikeRegex(it *types.JPItem, s string) (bool, error) {
	if strings.ContainsAny(it.Flags, "xq") {
		return false, unsupported("like_regex flags x and q")
	}
	fl := ""
	if strings.ContainsRune(it.Flags, 'i') {
		fl += "i"
	}
	nlstop, nlanch := !strings.ContainsRune(it.Flags, 's'), strings.ContainsRune(it.Flags, 'm')
	switch {
	case nlstop && nlanch:
		fl += "n"
	case nlstop:
		fl += "p"
	case nlanch:
		fl += "w"
	}
	f, err := regexFlags(fl, false)
	if err != nil {
		return false, err
	}
	re, _, err := regexFor(nil, it.Str, f, s)
	if err != nil {
		return false, err
	}
	return re.MatchString(s), nil
}

// jsonPathRun evaluates path over target: the items, or the error.
func jsonPathRun(r *Registry, target, path string, vars types.Value, silent bool) ([]*jnode, *jpCtx, error) {
	jp, err := types.ParseJSONPath(path)
	if err != nil {
		return nil, nil, err
	}
	root, err := parseJSON(target)
	if err != nil {
		return nil, nil, err
	}
	c := &jpCtx{root: root, strict: jp.Strict, last: -2, ignore: !jp.Strict, throw: !silent, r: r}
	if vars != nil {
		if c.vars, err = parseJSON(str(vars)); err != nil {
			return nil, nil, err
		}
		if c.vars.kind != jObject {
			return nil, nil, errorf(CodeInvalidParameter, `"vars" argument is not an object`)
		}
	}
	items, err := c.exec(jp.Expr, root, nil, !c.strict)
	return items, c, err
}

// jpFinish turns an evaluation error into the function's: a hard or
// (not silent) soft error is raised; with silent a soft error ends the
// evaluation, and the items found before it are the result (as
// executeJsonPath leaves them in its list).
func jpFinish(err error, silent bool) error {
	if err == nil {
		return nil
	}
	var je *jpErr
	if !errors.As(err, &je) {
		return err
	}
	if je.hard || !silent {
		return je.e
	}
	return nil
}

// JSONPathRows are jsonb_path_query's rows (a[2], a[3]: vars, silent).
func JSONPathRows(a []types.Value) ([]types.Value, error) {
	return jsonPathRows(nil, a)
}

// jsonPathRows are jsonb_path_query's rows under r's major (nil: not
// known).
func jsonPathRows(r *Registry, a []types.Value) ([]types.Value, error) {
	vars, silent := jpOptArgs(a)
	items, _, err := jsonPathRun(r, str(a[0]), str(a[1]), vars, silent)
	if err := jpFinish(err, silent); err != nil {
		return nil, err
	}
	out := make([]types.Value, len(items))
	for i, n := range items {
		out[i] = jsonText(jsbOID, n)
	}
	return out, nil
}

// jpOptArgs are the vars and silent arguments, if given.
func jpOptArgs(a []types.Value) (vars types.Value, silent bool) {
	if len(a) > 2 {
		vars = a[2]
	}
	if len(a) > 3 {
		silent = a[3].(bool)
	}
	return vars, silent
}

// addJSONPath registers the jsonpath functions and @? @@.
func (r *Registry) addJSONPath() {
	jp := types.JSONPath
	exists := func(opr bool) Impl {
		return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			vars, silent := jpOptArgs(a)
			if opr {
				silent = true
			}
			items, c, err := jsonPathRun(r, str(a[0]), str(a[1]), vars, silent)
			if err != nil && soft(err) {
				switch {
				case c.strict && silent:
					return nil, nil
				case c.strict:
					return nil, jpFinish(err, false)
				case len(items) > 0:
					return true, nil // PostgreSQL stops at the first item
				}
				// In lax mode PostgreSQL stops at the first item and
				// skips what it need not compute (non-numbers under ±).
				return nil, unsupported("jsonb_path_exists of a lax path whose evaluation fails before an item is found")
			}
			if err != nil {
				return nil, jpFinish(err, silent)
			}
			return len(items) > 0, nil
		}
	}
	match := func(opr bool) Impl {
		return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			vars, silent := jpOptArgs(a)
			if opr {
				silent = true
			}
			items, _, err := jsonPathRun(r, str(a[0]), str(a[1]), vars, silent)
			if err := jpFinish(err, silent); err != nil {
				return nil, err
			}
			if len(items) == 1 {
				switch items[0].kind {
				case jTrue:
					return true, nil
				case jFalse:
					return false, nil
				case jNull:
					return nil, nil
				}
			}
			if !silent {
				return nil, errorf("22038", "single boolean result is expected")
			}
			return nil, nil
		}
	}
	first := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		rows, err := jsonPathRows(r, a)
		if err != nil || len(rows) == 0 {
			return nil, err
		}
		return rows[0], nil
	}
	array := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		rows, err := jsonPathRows(r, a)
		if err != nil {
			return nil, err
		}
		return "[" + strings.Join(func() []string {
			s := make([]string, len(rows))
			for i, v := range rows {
				s[i] = v.(string)
			}
			return s
		}(), ", ") + "]", nil
	}
	for _, args := range [][]OID{{jsbOID, jp}, {jsbOID, jp, jsbOID}, {jsbOID, jp, jsbOID, types.Bool}} {
		r.def("jsonb_path_exists", types.Bool, exists(false), args...)
		r.def("jsonb_path_match", types.Bool, match(false), args...)
		r.def("jsonb_path_query_first", jsbOID, first, args...)
		r.def("jsonb_path_query_array", jsbOID, array, args...)
	}
	r.def("jsonb_path_exists_opr", types.Bool, exists(true), jsbOID, jp)
	r.def("jsonb_path_match_opr", types.Bool, match(true), jsbOID, jp)
	r.ops["@?"] = []string{"jsonb_path_exists_opr"}
	r.ops["@@"] = []string{"jsonb_path_match_opr"}
	r.partialOps["@@"] = true // tsvector @@ tsquery: not here
}
