package exec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// layout maps a column to its vector in an operator's input batches.
type layout map[plan.ColumnID]int

func layoutOf(cols []plan.ColumnID) layout {
	l := make(layout, len(cols))
	for i, id := range cols {
		l[id] = i
	}
	return l
}

// vexpr evaluates an expression for the rows sel of b, writing out[i]
// for each i in sel (out has at least b.N entries); rows not in sel are
// not evaluated, so their errors do not show.
type vexpr func(b *Batch, sel []int, out []types.Value) error

// conv converts a non-NULL value between types (nil: none needed).
type conv func(types.Value) (types.Value, error)

// converter is the cast from → to (nil when the Go values are alike).
func (c *compiler) converter(from, to plan.Type) conv {
	if z := c.zone(); !z.IsUTC() {
		return c.dialectConverter(from, to, converterIn(from, to, z)) // tz.go, dialect.go
	}
	return c.dialectConverter(from, to, converter0(from, to))
}

// converter0 is the cast from → to at TimeZone UTC.
func converter0(from, to plan.Type) conv {
	if from.OID == to.OID {
		return nil
	}
	f, t := from.OID, to.OID
	if isInt(f) && isInt(t) {
		return nil
	}
	return func(v types.Value) (types.Value, error) { return types.Convert(v, f, t, -1) }
}

func isInt(o plan.OID) bool { return o == plan.Int2 || o == plan.Int4 || o == plan.Int8 }

func numRank(o plan.OID) int {
	switch o {
	case plan.Int2:
		return 1
	case plan.Int4:
		return 2
	case plan.Int8:
		return 3
	case plan.Numeric:
		return 4
	case plan.Float4:
		return 5
	case plan.Float8:
		return 6
	}
	return 0
}

func isStr(o plan.OID) bool {
	return o == plan.Text || o == plan.Varchar || o == plan.Bpchar || o == plan.Name || o == plan.Unknown
}

// cmpType is the type two operands of a comparison are compared as, as
// PostgreSQL's operator resolution picks it for the types sidecar
// compares (ok=false: refused).
func cmpType(l, r plan.Type) (plan.Type, bool) {
	lo, ro := l.OID, r.OID
	switch {
	case lo == ro:
		return plan.T(lo), true
	case numRank(lo) > 0 && numRank(ro) > 0:
		if numRank(lo) >= numRank(ro) {
			return plan.T(lo), true
		}
		return plan.T(ro), true
	case isStr(lo) && isStr(ro):
		return plan.T(plan.Text), true
	case lo == plan.Date && ro == plan.Timestamp, lo == plan.Timestamp && ro == plan.Date:
		return plan.T(plan.Timestamp), true
	case (lo == plan.Date || lo == plan.Timestamp) && ro == plan.Timestamptz, lo == plan.Timestamptz && (ro == plan.Date || ro == plan.Timestamp):
		return plan.T(plan.Timestamptz), true // date_cmp_timestamptz, timestamp_cmp_timestamptz: in the session's zone
	case (lo == types.Inet || lo == types.Cidr) && (ro == types.Inet || ro == types.Cidr):
		return plan.T(types.Inet), true // cidr is binary coercible to inet
	case (lo == types.Bit || lo == types.Varbit) && (ro == types.Bit || ro == types.Varbit):
		return plan.T(types.Varbit), true // bit and varbit are binary coercible; bit_cmp either way
	}
	return plan.Type{}, false
}

// applyConv is c applied to v (NULL stays NULL).
func applyConv(c conv, v types.Value) (types.Value, error) {
	if c == nil || v == nil {
		return v, nil
	}
	return c(v)
}

// compiler compiles expressions over one input layout.
type compiler struct {
	e   *env
	lay layout
	// folding: compiling the operands of a constant expression, which
	// is evaluated whole (its operands' errors are its own: COALESCE
	// stops at its first non-NULL constant, CASE at its first true
	// condition, as PostgreSQL's folding does)
	folding bool
}

func (c *compiler) compile(s plan.Scalar) (vexpr, error) {
	whole := !c.folding && foldable(s)
	if whole {
		c.folding = true
		defer func() { c.folding = false }()
	}
	f, err := c.compile1(s)
	if err != nil || !whole {
		return f, err
	}
	// PostgreSQL folds an immutable expression of constants while it
	// plans (eval_const_expressions): its error fails the statement even
	// where no row would evaluate it (CASE WHEN x THEN 1/0 …).
	v, err := scalarOnce(f)
	if err != nil {
		if c.e.foldErr == nil {
			c.e.foldErr = err
		}
		return f, nil
	}
	return constExpr(v), nil
}

// foldable says whether s is an operator, function or cast over
// constants only, which PostgreSQL evaluates at plan time.
func foldable(s plan.Scalar) bool {
	switch s.(type) {
	case *plan.Op, *plan.Func, *plan.Cast, *plan.BoolOp, *plan.IsNull, *plan.InList, *plan.Case:
	default:
		return false
	}
	ok := true
	plan.Walk(s, func(x plan.Scalar) bool {
		switch y := x.(type) {
		case *plan.ColRef, *plan.Param, *plan.Subquery:
			ok = false
		case *plan.Func:
			if stableCall(y) {
				ok = false // PostgreSQL folds only immutable functions
			}
		case *plan.Cast:
			if y.T.OID == plan.Timestamptz || y.Arg.Type().OID == plan.Timestamptz || y.T.OID == types.Tstzrange || y.Arg.Type().OID == types.Tstzrange {
				ok = false // a stable cast (time zone): evaluated per row
			}
		}
		return ok
	})
	return ok
}

func (c *compiler) compile1(s plan.Scalar) (vexpr, error) {
	switch x := s.(type) {
	case *plan.ColRef:
		idx, ok := c.lay[x.ID]
		if !ok {
			if !c.e.outerOK[x.ID] {
				return nil, unsupported("a reference to a column of an outer query here")
			}
			e, id := c.e, x.ID
			return func(b *Batch, sel []int, out []types.Value) error {
				v := e.outer[id]
				for _, i := range sel {
					out[i] = v
				}
				return nil
			}, nil
		}
		return func(b *Batch, sel []int, out []types.Value) error {
			v := b.Vecs[idx]
			for _, i := range sel {
				out[i] = v[i]
			}
			return nil
		}, nil
	case *plan.Const:
		// The followed major's input first: its error, or its refusal
		// where it reads the text otherwise (dialect.go).
		err := c.dialectConst(x)
		var v types.Value
		if ev, ok, eerr := c.enumConst(x); ok { // enum.go
			v, err = ev, eerr
		} else if err == nil {
			v, err = constValueIn(x, c.zone())
		}
		if err != nil {
			return c.planTimeErr(err) // PostgreSQL reads a literal while parsing
		}
		return constExpr(v), nil
	case *plan.Param:
		n := x.N - 1
		e := c.e
		return func(b *Batch, sel []int, out []types.Value) error {
			if n >= len(e.params) {
				return &types.Error{Code: "08P01", Message: fmt.Sprintf("there is no parameter $%d", n+1)}
			}
			for _, i := range sel {
				out[i] = e.params[n]
			}
			return nil
		}, nil
	case *plan.Op:
		return c.op(x)
	case *plan.BoolOp:
		return c.boolOp(x)
	case *plan.IsNull:
		arg, err := c.isNullArg(x.Arg) // record.go
		if err != nil {
			return nil, err
		}
		not := x.Not
		return func(b *Batch, sel []int, out []types.Value) error {
			if err := arg(b, sel, out); err != nil {
				return err
			}
			for _, i := range sel {
				out[i] = recordIsNull(out[i], not) // record.go
			}
			return nil
		}, nil
	case *plan.Cast:
		arg, err := c.compile(x.Arg)
		if err != nil {
			return nil, err
		}
		from, to := x.Arg.Type(), x.T
		if f, ok, err := c.enumCast(arg, from, to); ok {
			return f, err // enum.go
		}
		if from.OID == plan.Record || to.OID == plan.Record {
			return nil, unsupported("a cast of a row")
		}
		if from.OID != plan.Unknown && from.OID != to.OID && types.CastContext(from.OID, to.OID) == types.CastNone {
			return nil, unsupported(fmt.Sprintf("a cast from %s to %s", from, to))
		}
		zone := c.zone()
		var check func(string) error
		if isStr(from.OID) {
			check = c.dialectInput(to.OID) // dialect.go
		}
		return func(b *Batch, sel []int, out []types.Value) error {
			if err := arg(b, sel, out); err != nil {
				return err
			}
			for _, i := range sel {
				if out[i] == nil {
					continue
				}
				if s, ok := out[i].(string); ok && check != nil {
					if err := check(s); err != nil {
						return err
					}
				}
				v, err := types.ConvertIn(out[i], from.OID, to.OID, to.Mod, zone)
				if err != nil {
					return err
				}
				out[i] = v
			}
			return nil
		}, nil
	case *plan.Case:
		return c.caseExpr(x)
	case *plan.InList:
		return c.inList(x)
	case *plan.Func:
		return c.function(x)
	case *plan.Subquery:
		return c.subquery(x)
	}
	if f, ok, err := c.compileRecord(s); ok {
		return f, err // record.go
	}
	return nil, unsupported(fmt.Sprintf("the expression %T", s))
}

// constValue is a constant's value.
func constValue(x *plan.Const) (types.Value, error) {
	if x.Null {
		return nil, nil
	}
	if x.T.OID == plan.Unknown {
		return x.Text, nil
	}
	return types.In(x.T.OID, x.T.Mod, x.Text)
}

// constValueIn is a constant's value in zone z (a timestamptz literal
// without an offset is a local time of z).
func constValueIn(x *plan.Const, z *types.Zone) (types.Value, error) {
	if x.Null || x.T.OID != plan.Timestamptz && x.T.OID != types.Tstzrange || z.IsUTC() {
		return constValue(x)
	}
	return types.InIn(x.T.OID, x.T.Mod, x.Text, z)
}

func constExpr(v types.Value) vexpr {
	return func(b *Batch, sel []int, out []types.Value) error {
		for _, i := range sel {
			out[i] = v
		}
		return nil
	}
}

// args evaluates two operands.
func (c *compiler) two(l, r plan.Scalar) (vexpr, vexpr, error) {
	a, err := c.compile(l)
	if err != nil {
		return nil, nil, err
	}
	b, err := c.compile(r)
	return a, b, err
}

// op compiles an operator.
func (c *compiler) op(x *plan.Op) (vexpr, error) {
	if len(x.Args) == 1 {
		arg, err := c.compile(x.Args[0])
		if err != nil {
			return nil, err
		}
		if x.Op != "-" || numRank(x.T.OID) == 0 && x.T.OID != plan.Interval {
			return nil, unsupported("prefix operator " + x.Op + " on " + x.T.String())
		}
		t := x.T.OID
		neg := func(t plan.OID, v types.Value) (types.Value, error) {
			if t == plan.Interval {
				v, err := builtin.IntervalNeg(v.(types.IntervalVal))
				return v, libraryErr(err)
			}
			return types.Neg(t, v)
		}
		return func(b *Batch, sel []int, out []types.Value) error {
			if err := arg(b, sel, out); err != nil {
				return err
			}
			for _, i := range sel {
				if out[i] != nil {
					v, err := neg(t, out[i])
					if err != nil {
						return err
					}
					out[i] = v
				}
			}
			return nil
		}, nil
	}
	l, r := x.Args[0], x.Args[1]
	lt, rt := l.Type(), r.Type()
	le, re, err := c.two(l, r)
	if err != nil {
		return nil, err
	}
	var fn func(a, b types.Value) (types.Value, error)
	strict := true
	switch x.Op {
	case "=", "<>", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		cmp, err := c.comparer(lt, rt)
		if err != nil {
			return nil, err
		}
		op := x.Op
		switch op {
		case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
			strict = false
			want := op == "IS DISTINCT FROM"
			fn = func(a, b types.Value) (types.Value, error) {
				if a == nil || b == nil {
					return (a == nil) != (b == nil) == want, nil
				}
				n, err := cmp(a, b)
				return (n != 0) == want, err
			}
		default:
			fn = func(a, b types.Value) (types.Value, error) {
				n, err := cmp(a, b)
				return cmpResult(op, n), err
			}
		}
	case "+", "-", "*", "/", "%":
		if fn = c.tzArith(x.Op, lt, rt, x.T); fn != nil { // tz.go
			break
		}
		if fn, err = arith(x.Op, lt, rt, x.T); err != nil {
			return nil, err
		}
	case "||":
		fn = concatIn(lt, rt, c.zone()) // tz.go
	case "~~", "!~~", "~~*", "!~~*":
		if fn, err = likeOp(x.Op, lt, rt, c.caseMap()); err != nil { // casemap.go
			return nil, err
		}
	default:
		return nil, unsupported("operator " + x.Op)
	}
	if strict && x.Op != "||" && !c.folding && (c.constNull(l, le) || c.constNull(r, re)) {
		return constExpr(nil), nil // foldorder.go
	}
	return binaryExpr(le, re, strict, fn), nil
}

// binaryExpr evaluates fn over two operands (strict: NULL in, NULL out).
func binaryExpr(le, re vexpr, strict bool, fn func(a, b types.Value) (types.Value, error)) vexpr {
	var scr valScratch // scratch.go
	return func(b *Batch, sel []int, out []types.Value) error {
		rv := scr.get(b.N)
		if err := le(b, sel, out); err != nil {
			return err
		}
		if err := re(b, sel, rv); err != nil {
			return err
		}
		for _, i := range sel {
			if strict && (out[i] == nil || rv[i] == nil) {
				out[i] = nil
				continue
			}
			v, err := fn(out[i], rv[i])
			if err != nil {
				return err
			}
			out[i] = v
		}
		return nil
	}
}

func cmpResult(op string, n int) bool {
	switch op {
	case "=":
		return n == 0
	case "<>":
		return n != 0
	case "<":
		return n < 0
	case "<=":
		return n <= 0
	case ">":
		return n > 0
	}
	return n >= 0
}

// comparer compares non-NULL values of types l and r as PostgreSQL's
// comparison operators do.
func (c *compiler) comparer(l, r plan.Type) (func(a, b types.Value) (int, error), error) {
	t, ok := cmpType(l, r)
	if !ok {
		return nil, unsupported(fmt.Sprintf("comparing %s with %s", l, r))
	}
	if t.OID == plan.Record {
		return recordComparer, nil // record.go
	}
	if !types.Orderable(t.OID) && t.OID != plan.Text {
		return nil, noOperator(t, "comparing values of type "+t.String()) // jsonrefuse.go
	}
	if f := dateTimestampComparer(l.OID, r.OID); f != nil {
		return f, nil // datecmp.go: no conversion per row
	}
	if f := c.toTimestamptzComparer(l.OID, r.OID); f != nil {
		return f, nil // datecmp.go: out of range is not an error
	}
	lc, rc := c.converter(l, t), c.converter(r, t)
	if bpcharPair(l.OID, r.OID) {
		t, lc, rc = plan.T(plan.Bpchar), nil, nil
	}
	oid := t.OID
	general := func(a, b types.Value) (int, error) {
		a, err := applyConv(lc, a)
		if err != nil {
			return 0, err
		}
		if b, err = applyConv(rc, b); err != nil {
			return 0, err
		}
		return compareIn(c.e.textOrder, oid, a, b), nil
	}
	if oid == plan.Numeric && smallType(l.OID) && smallType(r.OID) {
		return smallComparer(general), nil // numcmp.go: no numeric made per row
	}
	return general, nil
}

// arith is + - * / % of operands l, r giving res.
func arith(op string, l, r, res plan.Type) (func(a, b types.Value) (types.Value, error), error) {
	if numRank(l.OID) > 0 && numRank(r.OID) > 0 && numRank(res.OID) > 0 {
		lc, rc := converter0(l, res), converter0(r, res)
		t := res.OID
		fast := t == plan.Numeric && (op == "+" || op == "-" || op == "*") // numfast.go
		// The fast path's results: a compiled expression runs on one goroutine.
		var slab types.DecimalSlab
		return func(a, b types.Value) (types.Value, error) {
			if fast {
				if v, ok := fastNumeric(&slab, op, a, b); ok {
					return v, nil
				}
			}
			a, err := applyConv(lc, a)
			if err != nil {
				return nil, err
			}
			if b, err = applyConv(rc, b); err != nil {
				return nil, err
			}
			return types.Arith(op, t, a, b)
		}, nil
	}
	if f := dateTimeArith(op, l, r); f != nil && (res.OID != plan.Timestamptz || l.OID == plan.Timestamptz) {
		return f, nil
	}
	return nil, unsupported(fmt.Sprintf("operator %s on %s and %s", op, l, r))
}

// concat is ||: a non-string operand is printed by its output function.
func concat(l, r plan.Type) func(a, b types.Value) (types.Value, error) {
	text := func(t plan.Type, v types.Value) string {
		if s, ok := v.(string); ok {
			if t.OID == plan.Bpchar {
				return strings.TrimRight(s, " ")
			}
			return s
		}
		if x, ok := v.(bool); ok {
			// textanycat is `$1 || $2::text`: bool's cast to text
			// (booltext) spells true/false where its output is t/f.
			return strconv.FormatBool(x)
		}
		if x, ok := v.(types.InetVal); ok {
			return types.InetShow(x) // inet's cast to text (network_show) keeps /32
		}
		return types.Out(t.OID, v)
	}
	return func(a, b types.Value) (types.Value, error) { return text(l, a) + text(r, b), nil }
}

// boolOp compiles AND / OR / NOT with PostgreSQL's three-valued logic;
// an argument is evaluated only on the rows the ones before it left
// undecided.
func (c *compiler) boolOp(x *plan.BoolOp) (vexpr, error) {
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, err
	}
	if x.Op == "NOT" {
		a := args[0]
		return func(b *Batch, sel []int, out []types.Value) error {
			if err := a(b, sel, out); err != nil {
				return err
			}
			for _, i := range sel {
				if out[i] != nil {
					out[i] = !out[i].(bool)
				}
			}
			return nil
		}, nil
	}
	decide := x.Op == "OR" // the value that decides the result
	var tmpScr valScratch  // scratch.go
	var nullScr boolScratch
	var restScr intScratch
	return func(b *Batch, sel []int, out []types.Value) error {
		tmp := tmpScr.get(b.N)
		null := nullScr.get(b.N)
		for _, i := range sel {
			null[i] = false
		}
		rest := restScr.copyOf(sel)
		for _, a := range args {
			if len(rest) == 0 {
				break
			}
			if err := a(b, rest, tmp); err != nil {
				return err
			}
			k := 0
			for _, i := range rest {
				switch {
				case tmp[i] == nil:
					null[i] = true
					rest[k] = i
					k++
				case tmp[i].(bool) == decide:
					out[i] = decide
				default:
					rest[k] = i
					k++
				}
			}
			rest = rest[:k]
		}
		for _, i := range rest {
			if null[i] {
				out[i] = nil
			} else {
				out[i] = !decide
			}
		}
		return nil
	}, nil
}

// caseExpr compiles CASE: each result is evaluated only on the rows its
// WHEN selects.
func (c *compiler) caseExpr(x *plan.Case) (vexpr, error) {
	type arm struct{ cond, res vexpr }
	var arms []arm
	elseExpr := x.Else
	for wi, w := range x.Whens {
		cond, err := c.compile(w.Cond)
		if err != nil {
			return nil, err
		}
		if k, ok := c.constBool(w.Cond, cond); ok {
			// As PostgreSQL's planner: a constant false (NULL) arm is
			// dropped unevaluated; a constant true one ends the CASE.
			// (Their literals are read all the same: foldorder.go.)
			if !k {
				if err := c.literals(w.Result); err != nil {
					return nil, err
				}
				continue
			}
			if err := c.literals(caseRest(x, wi)...); err != nil {
				return nil, err
			}
			elseExpr = w.Result
			break
		}
		res, err := c.compile(w.Result)
		if err != nil {
			return nil, err
		}
		if w.Result.Type().OID != x.T.OID && w.Result.Type().OID != plan.Unknown {
			res = c.castTo(res, w.Result.Type(), x.T)
		}
		arms = append(arms, arm{cond, res})
	}
	var els vexpr
	if elseExpr != nil {
		var err error
		if els, err = c.compile(elseExpr); err != nil {
			return nil, err
		}
		if elseExpr.Type().OID != x.T.OID && elseExpr.Type().OID != plan.Unknown {
			els = c.castTo(els, elseExpr.Type(), x.T)
		}
	}
	return func(b *Batch, sel []int, out []types.Value) error {
		tmp := make([]types.Value, b.N)
		rest := append([]int(nil), sel...)
		for _, a := range arms {
			if len(rest) == 0 {
				break
			}
			if err := a.cond(b, rest, tmp); err != nil {
				return err
			}
			var hit []int
			k := 0
			for _, i := range rest {
				if t, ok := tmp[i].(bool); ok && t {
					hit = append(hit, i)
				} else {
					rest[k] = i
					k++
				}
			}
			rest = rest[:k]
			if len(hit) > 0 {
				if err := a.res(b, hit, out); err != nil {
					return err
				}
			}
		}
		if els == nil {
			for _, i := range rest {
				out[i] = nil
			}
			return nil
		}
		if len(rest) == 0 {
			return nil
		}
		return els(b, rest, out)
	}, nil
}

// constBool is the value of a condition over constants only (ok=false:
// it reads a column); NULL is false.
func (c *compiler) constBool(s plan.Scalar, f vexpr) (bool, bool) {
	if _, isConst := s.(*plan.Const); !isConst && !foldable(s) {
		return false, false
	}
	v, err := scalarOnce(f)
	if err != nil {
		return false, false
	}
	b, _ := v.(bool)
	return b, true
}

// castTo wraps e with an implicit cast from → to.
func (c *compiler) castTo(e vexpr, from, to plan.Type) vexpr {
	cv := c.converter(from, to)
	if cv == nil {
		return e
	}
	return func(b *Batch, sel []int, out []types.Value) error {
		if err := e(b, sel, out); err != nil {
			return err
		}
		for _, i := range sel {
			v, err := applyConv(cv, out[i])
			if err != nil {
				return err
			}
			out[i] = v
		}
		return nil
	}
}

// inList compiles x [NOT] IN (list): true if an element equals x, else
// NULL if x or an element is NULL, else false.
func (c *compiler) inList(x *plan.InList) (vexpr, error) {
	arg, err := c.compile(x.Arg)
	if err != nil {
		return nil, err
	}
	var elems []vexpr
	var cmps []func(a, b types.Value) (int, error)
	for _, l := range x.List {
		e, err := c.compile(l)
		if err != nil {
			return nil, err
		}
		cmp, err := c.comparer(x.Arg.Type(), l.Type())
		if err != nil {
			return nil, err
		}
		elems, cmps = append(elems, e), append(cmps, cmp)
	}
	not := x.Not
	slow := func(b *Batch, sel []int, out []types.Value) error {
		if err := arg(b, sel, out); err != nil {
			return err
		}
		res := make([]types.Value, b.N) // nil: undecided so far
		null := make([]bool, b.N)
		tmp := make([]types.Value, b.N)
		for _, i := range sel {
			if out[i] == nil {
				null[i] = true
			}
		}
		for k, e := range elems {
			if err := e(b, sel, tmp); err != nil {
				return err
			}
			for _, i := range sel {
				if res[i] != nil || out[i] == nil {
					continue
				}
				if tmp[i] == nil {
					null[i] = true
					continue
				}
				n, err := cmps[k](out[i], tmp[i])
				if err != nil {
					return err
				}
				if n == 0 {
					res[i] = true
				}
			}
		}
		for _, i := range sel {
			switch {
			case res[i] != nil:
				out[i] = !not
			case null[i]:
				out[i] = nil
			default:
				out[i] = not
			}
		}
		return nil
	}
	if set, err := c.constInSet(x, slow); set != nil || err != nil { // inset.go
		return set, err
	}
	return slow, nil
}

// bpcharPair says whether two operands compare as bpchar: both
// character(n), or character(n) with character varying (PostgreSQL has
// no varchar operator and resolves bpchar's, trailing blanks not
// counting; sql/plan's bpcharOperands). An IN list's varchar item
// opposite a char(n) argument reached here as varchar and compared as
// text: 'x'::char(4) IN ('x '::varchar) was false.
func bpcharPair(l, r plan.OID) bool {
	return l == plan.Bpchar && (r == plan.Bpchar || r == plan.Varchar) || r == plan.Bpchar && l == plan.Varchar
}
