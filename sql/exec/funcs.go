package exec

import (
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// likeOp is LIKE (~~), NOT LIKE and their ILIKE forms with backslash as
// the escape character.
func likeOp(op string, l, r plan.Type) (func(a, b types.Value) (types.Value, error), error) {
	if !isStr(l.OID) || !isStr(r.OID) {
		return nil, unsupported("LIKE on " + l.String())
	}
	fold := op == "~~*" || op == "!~~*"
	neg := op == "!~~" || op == "!~~*"
	return func(a, b types.Value) (types.Value, error) {
		s, p := a.(string), b.(string)
		if fold {
			if !isASCII(s) || !isASCII(p) {
				return nil, unsupported("ILIKE on non-ASCII text (its case folding depends on the locale)")
			}
			s, p = strings.ToLower(s), strings.ToLower(p)
		}
		m, err := like(s, p)
		return m != neg, err
	}, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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

// function compiles the scalar functions the executor answers exactly;
// the others are refused naming the function.
func (c *compiler) function(x *plan.Func) (vexpr, error) {
	if x.Ext != nil {
		return c.extFunction(x) // extfunc.go
	}
	switch x.Name {
	case "coalesce", "greatest", "least", "nullif":
		return c.conditional(x)
	}
	args := make([]vexpr, len(x.Args))
	for i, a := range x.Args {
		var err error
		if args[i], err = c.compile(a); err != nil {
			return nil, err
		}
	}
	var fn func(vals []types.Value) (types.Value, error)
	at := func(i int) plan.OID { return x.Args[i].Type().OID }
	switch {
	case (x.Name == "upper" || x.Name == "lower") && len(args) == 1 && isStr(at(0)):
		up := x.Name == "upper"
		fn = func(v []types.Value) (types.Value, error) {
			s := v[0].(string)
			if !isASCII(s) {
				return nil, unsupported(x.Name + " of non-ASCII text (its case mapping depends on the locale)")
			}
			if up {
				return strings.ToUpper(s), nil
			}
			return strings.ToLower(s), nil
		}
	case (x.Name == "length" || x.Name == "char_length") && len(args) == 1 && isStr(at(0)):
		bp := at(0) == plan.Bpchar
		fn = func(v []types.Value) (types.Value, error) {
			s := v[0].(string)
			if bp {
				s = strings.TrimRight(s, " ")
			}
			return int64(utf8.RuneCountInString(s)), nil
		}
	case (x.Name == "substring" || x.Name == "substr") && (len(args) == 2 || len(args) == 3) && isStr(at(0)) && isInt(at(1)) && (len(args) == 2 || isInt(at(2))):
		fn = func(v []types.Value) (types.Value, error) {
			s := v[0].(string)
			start := v[1].(int64)
			n := int64(-1)
			if len(v) == 3 {
				if n = v[2].(int64); n < 0 {
					return nil, &types.Error{Code: "22011", Message: "negative substring length not allowed"}
				}
			}
			return substr(s, start, n), nil
		}
	case x.Name == "abs" && len(args) == 1 && numRank(at(0)) > 0:
		t := at(0)
		fn = func(v []types.Value) (types.Value, error) {
			switch a := v[0].(type) {
			case int64:
				if a < 0 {
					return types.Neg(t, a)
				}
				return a, nil
			case float64:
				if a < 0 {
					return -a, nil
				}
				return a, nil
			case *types.Decimal:
				if !a.NaN && (a.Inf < 0 || a.Inf == 0 && a.V.Sign() < 0) {
					return types.NegDecimal(a), nil
				}
				return a, nil
			}
			return nil, unsupported("abs of " + types.NameOf(t))
		}
	case x.Name == "extract" && len(args) == 2 && at(1) == plan.Date:
		f, ok := x.Args[0].(*plan.Const)
		if !ok || f.Null {
			return nil, unsupported("EXTRACT with a computed field")
		}
		field := strings.ToLower(f.Text)
		if field != "year" && field != "month" && field != "day" {
			return nil, unsupported("EXTRACT(" + field + " FROM date)")
		}
		fn = func(v []types.Value) (types.Value, error) {
			d := v[1].(types.DateVal)
			if isInfDate(d) {
				return nil, unsupported("EXTRACT from an infinite date")
			}
			y, m, dd := types.J2Date(int64(d) + 2451545)
			r := map[string]int64{"year": y, "month": m, "day": dd}[field]
			if field == "year" && y <= 0 {
				r = y - 1
			}
			return types.DecimalFromInt(r), nil
		}
	default:
		return nil, unsupported("the function " + x.Name + " here")
	}
	return func(b *Batch, sel []int, out []types.Value) error {
		vecs := make([][]types.Value, len(args))
		for k, a := range args {
			vecs[k] = make([]types.Value, b.N)
			if err := a(b, sel, vecs[k]); err != nil {
				return err
			}
		}
		row := make([]types.Value, len(args))
	rows:
		for _, i := range sel {
			for k := range args {
				if row[k] = vecs[k][i]; row[k] == nil {
					out[i] = nil // every function here is strict
					continue rows
				}
			}
			v, err := fn(row)
			if err != nil {
				return err
			}
			out[i] = v
		}
		return nil
	}, nil
}

// conditional compiles COALESCE (an argument evaluated only on the rows
// the ones before left NULL), GREATEST and LEAST (NULLs ignored) and
// NULLIF (the binder gave every argument the common type).
func (c *compiler) conditional(x *plan.Func) (vexpr, error) {
	args := make([]vexpr, len(x.Args))
	for i, a := range x.Args {
		var err error
		if args[i], err = c.compile(a); err != nil {
			return nil, err
		}
		if at := a.Type(); at.OID != x.T.OID && at.OID != plan.Unknown {
			if x.Name == "nullif" {
				// NULLIF's result has its first argument's type and
				// compares with the = of both types: not done here.
				return nil, unsupported("NULLIF with arguments of different types")
			}
			args[i] = castTo(args[i], at, x.T) // the binder's common type
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
					if tmp[i] != nil && (out[i] == nil || sign*types.Compare(t, tmp[i], out[i]) > 0) {
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

// substr is PostgreSQL's text_substr: characters start.. (1-based) for
// n characters (n < 0: to the end).
func substr(s string, start, n int64) string {
	end := int64(-1)
	if n >= 0 {
		end = start + n // exclusive; may overflow only with absurd values
		if end < start {
			end = -1
		}
	}
	if start < 1 {
		start = 1
	}
	if end >= 0 && end <= start {
		return ""
	}
	var b strings.Builder
	pos := int64(1)
	for _, r := range s {
		if end >= 0 && pos >= end {
			break
		}
		if pos >= start {
			b.WriteRune(r)
		}
		pos++
	}
	return b.String()
}
