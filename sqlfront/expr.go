package sqlfront

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sidecar-dev/sidecar/types"
)

// env is what an expression reads: the input row (the columns of the
// FROM items, one after another), the statement's parameters, and after
// grouping the aggregate values of the group.
type env struct {
	row    []Value
	params []Value
	aggs   []Value
	ex     *execCtx
}

// expr is a typed, compiled expression of the row-at-a-time evaluator.
type expr interface {
	typ() uint32
	eval(e *env) (Value, error)
}

type colExpr struct {
	idx int
	t   uint32
}

func (c *colExpr) typ() uint32                { return c.t }
func (c *colExpr) eval(e *env) (Value, error) { return e.row[c.idx], nil }

type constExpr struct {
	v   Value
	t   uint32
	pos int // location of a literal (for errors reading it), 0 if none
}

func (c *constExpr) typ() uint32              { return c.t }
func (c *constExpr) eval(*env) (Value, error) { return c.v, nil }

// paramExpr is $n; its type is the statement's parameter type, fixed
// when planning ends.
type paramExpr struct {
	n     int
	types *[]uint32
}

// typ is the parameter's type, unknown while planning has not fixed it
// yet (an operator over $n asks before the statement's types are set).
func (p *paramExpr) typ() uint32 {
	if p.types == nil || p.n-1 >= len(*p.types) {
		return oidUnknown
	}
	return (*p.types)[p.n-1]
}
func (p *paramExpr) eval(e *env) (Value, error) {
	return e.params[p.n-1], nil
}

// castExpr converts its argument's value to another type.
type castExpr struct {
	arg  expr
	to   uint32
	from uint32
}

func (c *castExpr) typ() uint32 { return c.to }
func (c *castExpr) eval(e *env) (Value, error) {
	v, err := c.arg.eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	return convert(v, c.from, c.to)
}

// convert casts v of type from to type to, as the type catalog casts
// (bool to text is true/false, numbers with PostgreSQL's rounding and
// range errors).
func convert(v Value, from, to uint32) (Value, error) {
	if v == nil || from == to {
		return v, nil
	}
	if isTextType(to) && to != oidBpchar {
		var s string
		if b, ok := v.(bool); ok {
			s = strconv.FormatBool(b) // booltext: true / false
		} else {
			s, _ = render(v, from)
		}
		if from == oidBpchar {
			s = strings.TrimRight(s, " ")
		}
		return s, nil
	}
	switch x := v.(type) {
	case string:
		if isDateTime(from) && isDateTime(to) {
			return convertDateTime(x, from, to)
		}
		return parseAs(to, x)
	case int64, float64, *Num, bool:
		if types.CastContext(from, to) != types.CastNone {
			r, err := types.Convert(x, from, to, -1)
			return r, typesErr(err)
		}
	}
	return nil, errf(codeUnsupported, -1, "sidecar cannot cast %s to %s", typeName(from), typeName(to))
}

// canCast says whether convert handles from → to (checked when planning).
func canCast(from, to uint32) bool {
	switch {
	case from != to && (from == oidCharType && to != oidText || to == oidCharType && !isTextType(from) && from != oidUnknown):
		// "char" to or from a number is its byte (i4tochar, chartoi4),
		// not text: sql/exec has the catalog's casts.
		return false
	case from == to, from == oidUnknown, isTextType(to) && to != oidBpchar, isTextType(from):
		return true
	case isNumericType(from) && isNumericType(to):
		return true
	case from == oidBool && to == oidInt4, from == oidInt4 && to == oidBool:
		return true
	case isDateTime(from) && isDateTime(to):
		return types.CastContext(from, to) != types.CastNone
	}
	return false
}

// castRefusal is the flat planner's answer to a cast it cannot compile:
// 42846 when PostgreSQL has no such cast either, else 0A000, so the
// statement goes on to sql/exec, which has the type catalog's casts.
func castRefusal(from, to uint32, pos int) error {
	if types.CastContext(from, to) == types.CastNone {
		return errf(codeCannotCoerce, pos, "cannot cast type %s to %s", typeName(from), typeName(to))
	}
	return unsupported(pos, "a cast from "+typeName(from)+" to "+typeName(to))
}

// arithExpr is + - * / % on numbers, || on text.
type arithExpr struct {
	op   string
	l, r expr
	t    uint32 // operand and result type (both operands coerced to it)
}

func (a *arithExpr) typ() uint32 { return a.t }
func (a *arithExpr) eval(e *env) (Value, error) {
	l, r, err := strict2(e, a.l, a.r)
	if err != nil || l == nil || r == nil {
		return nil, err
	}
	return arith(a.op, l, r, a.t)
}

// arith is l op r of type t: numbers by the type catalog (PostgreSQL's
// overflow, division and NaN rules), || on text.
func arith(op string, l, r Value, t uint32) (Value, error) {
	switch x := l.(type) {
	case int64, float64, *Num:
		v, err := types.Arith(op, t, x, r)
		return v, typesErr(err)
	case string:
		return x + r.(string), nil
	}
	return nil, errf(codeInternal, -1, "bad operands for %s", op)
}

// negExpr is unary minus.
type negExpr struct{ arg expr }

func (n *negExpr) typ() uint32 { return n.arg.typ() }
func (n *negExpr) eval(e *env) (Value, error) {
	v, err := n.arg.eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	r, err := types.Neg(n.arg.typ(), v)
	return r, typesErr(err)
}

// cmpExpr compares two operands coerced to type t.
type cmpExpr struct {
	op   string
	l, r expr
	t    uint32
}

func (c *cmpExpr) typ() uint32 { return oidBool }
func (c *cmpExpr) eval(e *env) (Value, error) {
	l, r, err := strict2(e, c.l, c.r)
	if err != nil || l == nil || r == nil {
		return nil, err
	}
	return cmpOp(c.op, cmpValues(l, r, c.t)), nil
}

func cmpOp(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>", "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// boolExpr is AND / OR / NOT with SQL's three-valued logic.
type boolExpr struct {
	op   string // and, or, not
	args []expr
	// qual: a WHERE's conjuncts (qualorder.go): the first that is not
	// true, NULL included, decides (the later ones are not evaluated).
	qual bool
}

func (b *boolExpr) typ() uint32 { return oidBool }
func (b *boolExpr) eval(e *env) (Value, error) {
	switch b.op {
	case "not":
		v, err := b.args[0].eval(e)
		if err != nil || v == nil {
			return nil, err
		}
		return !v.(bool), nil
	case "and":
		sawNull := false
		for _, a := range b.args {
			v, err := a.eval(e)
			if err != nil {
				return nil, err
			}
			if v == nil {
				if b.qual {
					return nil, nil
				}
				sawNull = true
			} else if !v.(bool) {
				return false, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return true, nil
	}
	sawNull := false
	for _, a := range b.args {
		v, err := a.eval(e)
		if err != nil {
			return nil, err
		}
		if v == nil {
			sawNull = true
		} else if v.(bool) {
			return true, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return false, nil
}

type nullTest struct {
	arg expr
	not bool
}

func (n *nullTest) typ() uint32 { return oidBool }
func (n *nullTest) eval(e *env) (Value, error) {
	v, err := n.arg.eval(e)
	if err != nil {
		return nil, err
	}
	return (v == nil) != n.not, nil
}

// inExpr is x [NOT] IN (list): NULL when x is NULL, or when no element
// matches and one is NULL. A list of more than inLinear constants is
// looked up in a sorted copy (binary search under cmpValues, the same
// order and equality as the linear scan), so a long list costs
// log(items) per row, not items.
type inExpr struct {
	arg  expr
	list []expr
	not  bool
	t    uint32

	once    sync.Once
	sorted  []Value // the constants, sorted; nil: scan the list
	hasNull bool    // a constant of the list is NULL
}

// inLinear is the longest list scanned linearly.
const inLinear = 8

func (in *inExpr) typ() uint32 { return oidBool }

// constants sorts the list once when every element is a constant.
func (in *inExpr) constants() {
	if len(in.list) <= inLinear {
		return
	}
	vals := make([]Value, 0, len(in.list))
	for _, l := range in.list {
		c, ok := l.(*constExpr)
		if !ok {
			return
		}
		if c.v == nil {
			in.hasNull = true
			continue
		}
		vals = append(vals, c.v)
	}
	slices.SortFunc(vals, func(a, b Value) int { return cmpValues(a, b, in.t) })
	in.sorted = vals
}

func (in *inExpr) eval(e *env) (Value, error) {
	v, err := in.arg.eval(e)
	if err != nil || v == nil {
		return nil, err
	}
	in.once.Do(in.constants)
	if in.sorted != nil {
		if _, found := slices.BinarySearchFunc(in.sorted, v, func(a, b Value) int { return cmpValues(a, b, in.t) }); found {
			return !in.not, nil
		}
		if in.hasNull {
			return nil, nil
		}
		return in.not, nil
	}
	sawNull := false
	for _, l := range in.list {
		w, err := l.eval(e)
		if err != nil {
			return nil, err
		}
		if w == nil {
			sawNull = true
			continue
		}
		if cmpValues(v, w, in.t) == 0 {
			return !in.not, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return in.not, nil
}

// likeExpr is x [NOT] LIKE pattern (backslash escapes), matched by byte.
type likeExpr struct {
	arg, pat expr
	not      bool
}

func (l *likeExpr) typ() uint32 { return oidBool }
func (l *likeExpr) eval(e *env) (Value, error) {
	v, p, err := strict2(e, l.arg, l.pat)
	if err != nil || v == nil || p == nil {
		return nil, err
	}
	return likeMatch(v.(string), p.(string)) != l.not, nil
}

// likeMatch matches s against a LIKE pattern: % any run, _ one character,
// \ escapes the next character.
func likeMatch(s, p string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '%':
			for len(p) > 0 && p[0] == '%' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if likeMatch(s[i:], p) {
					return true
				}
			}
			return false
		case '_':
			if s == "" {
				return false
			}
			_, n := decodeRune(s)
			s, p = s[n:], p[1:]
		default:
			if p[0] == '\\' && len(p) > 1 {
				p = p[1:]
			}
			if s == "" || s[0] != p[0] {
				return false
			}
			s, p = s[1:], p[1:]
		}
	}
	return s == ""
}

// likePrefix returns the literal prefix of a LIKE pattern and whether the
// pattern is exactly that prefix followed by one %.
func likePrefix(p string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '%':
			return b.String(), i == len(p)-1
		case '_':
			return b.String(), false
		case '\\':
			if i+1 < len(p) {
				i++
			}
		}
		b.WriteByte(p[i])
	}
	return b.String(), false
}

// coalesceExpr is COALESCE(a, b, ...).
type coalesceExpr struct {
	args []expr
	t    uint32
}

func (c *coalesceExpr) typ() uint32 { return c.t }
func (c *coalesceExpr) eval(e *env) (Value, error) {
	for _, a := range c.args {
		v, err := a.eval(e)
		if err != nil || v != nil {
			return v, err
		}
	}
	return nil, nil
}

// funcExpr is a scalar function evaluated by fn.
type funcExpr struct {
	args []expr
	t    uint32
	fn   func(e *env, args []Value) (Value, error)
	// strict: NULL in, NULL out.
	strict bool
	// immutable: a library function PostgreSQL folds over constant
	// arguments while it plans (constfold.go)
	immutable bool
}

func (f *funcExpr) typ() uint32 { return f.t }
func (f *funcExpr) eval(e *env) (Value, error) {
	if f.strict {
		for _, a := range f.args[min(1, len(f.args)):] {
			if nullConst(a) {
				return nil, nil // folded to NULL (constfold.go)
			}
		}
	}
	vals := make([]Value, len(f.args))
	for i, a := range f.args {
		v, err := a.eval(e)
		if err != nil {
			return nil, err
		}
		if v == nil && f.strict {
			return nil, nil
		}
		vals[i] = v
	}
	return f.fn(e, vals)
}

// aggRef reads the value of the i-th aggregate of the group.
type aggRef struct {
	i int
	t uint32
}

func (a *aggRef) typ() uint32                { return a.t }
func (a *aggRef) eval(e *env) (Value, error) { return e.aggs[a.i], nil }

func decodeRune(s string) (rune, int) {
	for i, r := range s {
		if i == 0 {
			_ = r
			continue
		}
		return rune(s[0]), i
	}
	return rune(s[0]), len(s)
}

// strict2 evaluates two operands; a NULL one is returned as nil (the
// second is not evaluated after a NULL first one).
func strict2(e *env, a, b expr) (Value, Value, error) {
	if nullConst(b) {
		// A strict operator with a NULL constant is NULL without its
		// other side being computed: PostgreSQL folds it while
		// planning (eval_const_expressions), so (a * a) <> NULL is
		// NULL even where a * a overflows (constfold.go).
		return nil, nil, nil
	}
	l, err := a.eval(e)
	if err != nil || l == nil {
		return nil, nil, err
	}
	r, err := b.eval(e)
	return l, r, err
}

// castOrFold casts e from one type to another, folding a constant now.
// A typed constant's cast that fails is left a cast: PostgreSQL raises
// its error while it folds, and only where folding reaches it (not in
// COALESCE(5, x, 1e20::int8)'s dropped arguments); foldError raises it
// before any row is read otherwise.
func castOrFold(e expr, from, to uint32) (expr, error) {
	if c, ok := e.(*constExpr); ok {
		if v, err := convert(c.v, from, to); err == nil {
			return &constExpr{v: v, t: to}, nil
		}
	}
	return &castExpr{arg: e, from: from, to: to}, nil
}
