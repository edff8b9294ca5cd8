package exec

import (
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// likeOp is LIKE (~~), NOT LIKE and their ILIKE forms with backslash as
// the escape character.
func likeOp(op string, l, r plan.Type, cm *builtin.CaseMap) (func(a, b types.Value) (types.Value, error), error) {
	if !isStr(l.OID) || !isStr(r.OID) {
		return nil, unsupported("LIKE on " + l.String())
	}
	fold := op == "~~*" || op == "!~~*"
	neg := op == "!~~" || op == "!~~*"
	var lc likeCache // likefast.go
	return func(a, b types.Value) (types.Value, error) {
		s, p := a.(string), b.(string)
		if fold {
			// PostgreSQL folds both with lower() under the collation
			// (Generic_Text_IC_like in a multibyte encoding).
			var err error
			if s, err = cm.Lower(s); err != nil {
				return nil, libraryErr(err)
			}
			if p, err = cm.Lower(p); err != nil {
				return nil, libraryErr(err)
			}
		}
		m, err := lc.like(s, p)
		return m != neg, err
	}, nil
}

// like matches s against LIKE pattern p (% any run, _ one character,
// \ escapes the next), as PostgreSQL's MatchText does.
func like(s, p string) (bool, error) {
	for len(p) > 0 {
		c := p[0]
		switch c {
		case '\\':
			if len(p) < 2 {
				return false, &types.Error{Code: types.CodeInvalidEscape, Message: "LIKE pattern must not end with escape character"}
			}
			r, n := utf8.DecodeRuneInString(p[1:])
			sr, sn := utf8.DecodeRuneInString(s)
			if len(s) == 0 || sr != r {
				return false, nil
			}
			s, p = s[sn:], p[1+n:]
		case '%':
			for len(p) > 0 && p[0] == '%' {
				p = p[1:]
			}
			if len(p) == 0 {
				return true, nil
			}
			for {
				m, err := like(s, p)
				if err != nil || m {
					return m, err
				}
				if len(s) == 0 {
					return false, nil
				}
				_, n := utf8.DecodeRuneInString(s)
				s = s[n:]
			}
		case '_':
			if len(s) == 0 {
				return false, nil
			}
			_, n := utf8.DecodeRuneInString(s)
			s, p = s[n:], p[1:]
		default:
			r, n := utf8.DecodeRuneInString(p)
			sr, sn := utf8.DecodeRuneInString(s)
			if len(s) == 0 || sr != r {
				return false, nil
			}
			s, p = s[sn:], p[n:]
		}
	}
	return len(s) == 0, nil
}

// function compiles a scalar function call: COALESCE, GREATEST, LEAST
// and NULLIF here, every other function by the overload of PostgreSQL's
// function library (sql/builtin) the binder resolved.
func (c *compiler) function(x *plan.Func) (vexpr, error) {
	if x.Ext != nil {
		return c.extFunction(x) // extfunc.go
	}
	if x.Name == plan.CollateFunc {
		return c.compile(x.Args[0]) // x COLLATE name: the SQL front end chose the order (sql/plan/collate.go)
	}
	if x.Call == nil {
		if f, ok, err := c.arrayFunc(x); ok {
			return f, err // array.go
		}
		return c.conditional(x)
	}
	for i, a := range x.Args {
		// An array reaches a library function only where its overload
		// declares that array type (jsonb's #> and ?|: text[]).
		if plan.IsArray(a.Type()) && (i >= len(x.Call.Params) || x.Call.Params[i] != a.Type().OID) {
			return nil, unsupported("the function " + x.Name + " on an array")
		}
	}
	call := x.Call
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, err
	}
	ctx := c.e.clock // the statement's clock and random source (Options.Clock)
	return rowWise(args, func(row []types.Value) (types.Value, error) {
		v, err := call.Eval(ctx, row) // a strict call answers NULL on a NULL argument
		if err != nil {
			return nil, libraryErr(err)
		}
		return v, nil
	}), nil
}

// stableCall says whether x calls a library function that is not
// immutable (PostgreSQL evaluates it per execution, not while planning).
func stableCall(x *plan.Func) bool {
	return x.Call != nil && x.Call.Func.Volatility != builtin.Immutable
}

// libraryErr is a library error as the type catalog's (the executor's
// errors carry SQLSTATE, message and detail).
func libraryErr(err error) error {
	be, ok := builtin.AsError(err)
	if !ok {
		return err
	}
	return &types.Error{Code: be.Code, Message: be.Message, Detail: be.Detail, Hint: be.Hint}
}

// conditional compiles COALESCE (an argument evaluated only on the rows
// the ones before left NULL), GREATEST and LEAST (NULLs ignored) and
// NULLIF (the binder gave every argument the common type).
func (c *compiler) conditional(x *plan.Func) (vexpr, error) {
	if x.Name == "nullif" && len(x.Args) == 2 && x.Args[0].Type().OID == x.T.OID && plan.CrossTypeEq(x.T.OID, x.Args[1].Type().OID) {
		return c.nullifWiden(x)
	}
	args := make([]vexpr, len(x.Args))
	for i, a := range x.Args {
		var err error
		if args[i], err = c.compile(a); err != nil {
			return nil, err
		}
		if at := a.Type(); at.OID != x.T.OID && at.OID != plan.Unknown {
			if x.Name == "nullif" && i == 0 && !(x.T.OID == plan.Text && isStringType(at.OID)) {
				// NULLIF's result has its first argument's type: one
				// other than the common type is not done here. (When the
				// first has the common type, the = of both types is the
				// = of that type over the second cast to it.)
				return nil, unsupported("NULLIF with arguments of different types")
			}
			// (NULLIF(varchar or bpchar, …) compares and answers text:
			// the binder typed it so, as PostgreSQL's texteq coerces it.)
			args[i] = c.castTo(args[i], at, x.T) // the binder's common type
		}
		if x.Name == "coalesce" && c.constNonNull(a, args[i]) {
			// PostgreSQL's eval_const_expressions drops the arguments
			// after the first non-NULL constant unprocessed: their
			// errors (COALESCE(5, x, 1e20::int8)) are never raised;
			// a malformed literal among them fails while parsing.
			if err := c.literals(x.Args[i+1:]...); err != nil {
				return nil, err
			}
			args = args[:i+1]
			break
		}
	}
	t := x.T.OID
	switch x.Name {
	case "coalesce":
		return func(b *Batch, sel []int, out []types.Value) error {
			rest := append([]int(nil), sel...)
			for _, a := range args {
				if len(rest) == 0 {
					break
				}
				if err := a(b, rest, out); err != nil {
					return err
				}
				k := 0
				for _, i := range rest {
					if out[i] == nil {
						rest[k] = i
						k++
					}
				}
				rest = rest[:k]
			}
			return nil
		}, nil
	case "greatest", "least":
		if !types.Orderable(t) {
			return nil, unsupported(x.Name + " of " + x.T.String())
		}
		sign := 1
		if x.Name == "least" {
			sign = -1
		}
		return func(b *Batch, sel []int, out []types.Value) error {
			tmp := make([]types.Value, b.N)
			for _, i := range sel {
				out[i] = nil
			}
			for _, a := range args {
				if err := a(b, sel, tmp); err != nil {
					return err
				}
				for _, i := range sel {
					if tmp[i] != nil && (out[i] == nil || sign*compareIn(c.e.textOrder, t, tmp[i], out[i]) > 0) {
						out[i] = tmp[i]
					}
				}
			}
			return nil
		}, nil
	case "nullif":
		if len(args) != 2 || !types.Orderable(t) {
			return nil, unsupported("this NULLIF")
		}
		return binaryExpr(args[0], args[1], false, func(a, b types.Value) (types.Value, error) {
			if a == nil || b == nil || types.Compare(t, a, b) != 0 {
				return a, nil
			}
			return nil, nil
		}), nil
	}
	return nil, unsupported("the function " + x.Name)
}

// nullifWiden compiles NULLIF(l, r) where the binder left l of a
// narrower type than r (int2 against int4, float4 against float8: the
// cross-type = PostgreSQL resolves): l's value is compared widened to
// r's type and answered as it is, in l's type.
func (c *compiler) nullifWiden(x *plan.Func) (vexpr, error) {
	lt, rt := x.Args[0].Type(), x.Args[1].Type()
	if !types.Orderable(rt.OID) {
		return nil, unsupported("this NULLIF")
	}
	left, err := c.compile(x.Args[0])
	if err != nil {
		return nil, err
	}
	right, err := c.compile(x.Args[1])
	if err != nil {
		return nil, err
	}
	cv := c.converter(lt, rt)
	return binaryExpr(left, right, false, func(a, b types.Value) (types.Value, error) {
		if a == nil || b == nil {
			return a, nil
		}
		aw, err := applyConv(cv, a)
		if err != nil || types.Compare(rt.OID, aw, b) != 0 {
			return a, err
		}
		return nil, nil
	}), nil
}

// isStringType says whether o is text, varchar or bpchar.
func isStringType(o plan.OID) bool { return o == plan.Text || o == plan.Varchar || o == plan.Bpchar }
