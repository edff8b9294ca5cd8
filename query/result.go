package query

import (
	"bytes"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/heap"
)

// numericDiv is PostgreSQL's numeric division (sum/10^scale) / n as avg
// computes it: the result scale is select_div_scale's (at least 16
// significant digits, never below the dividend's display scale), rounded
// half away from zero.
func numericDiv(sum *big.Int, scale int32, n int64) Value {
	cnt := big.NewInt(n)
	w1, d1 := base10000(sum, scale)
	w2, d2 := base10000(cnt, 0)
	qweight := w1 - w2
	if d1 <= d2 {
		qweight--
	}
	rscale := max(16-qweight*4, int(scale), 0)
	rscale = min(rscale, 1000)
	num := new(big.Int).Mul(new(big.Int).Abs(sum), pow10big(int32(rscale)-scale))
	q, r := new(big.Int).QuoRem(num, cnt, new(big.Int))
	if r.Lsh(r, 1).Cmp(cnt) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if sum.Sign() < 0 {
		q.Neg(q)
	}
	return Value{K: vNumeric, Num: q, Scale: int32(rscale)}
}

// base10000 returns the weight and first digit of |x|/10^scale in
// PostgreSQL's base-10000 numeric digits, which are aligned at the
// decimal point (0, 0 for zero).
func base10000(x *big.Int, scale int32) (weight, first int) {
	a := new(big.Int).Abs(x)
	if a.Sign() == 0 {
		return 0, 0
	}
	pad := (4 - int(scale)%4) % 4 // align the fraction to whole digits
	s := a.String() + strings.Repeat("0", pad)
	fracDigits := (int(scale) + pad) / 4
	groups := (len(s) + 3) / 4
	weight = groups - 1 - fracDigits
	lead := len(s) - (groups-1)*4
	first, _ = strconv.Atoi(s[:lead])
	return weight, first
}

// compareValues orders two non-NULL values of one output column (or a
// value and a literal bound for it).
func compareValues(a, b Value) int {
	switch {
	case a.K == vNumeric || b.K == vNumeric:
		return numCmp(toNumv(a), toNumv(b))
	case a.K == vFloat || b.K == vFloat:
		return floatCmp(asFloat(a), asFloat(b))
	case a.K == vText:
		return bytes.Compare([]byte(a.S), []byte(b.S))
	}
	return cmp64(a.I, b.I)
}

// toNumv is a value as a numeric (integers exactly, floats by their
// shortest decimal).
func toNumv(v Value) numv {
	switch v.K {
	case vInt:
		return numv{u: v.I}
	case vFloat:
		switch {
		case v.F != v.F:
			return numv{cls: numNaN}
		case math.IsInf(v.F, 1):
			return numv{cls: numPosInf}
		case math.IsInf(v.F, -1):
			return numv{cls: numNegInf}
		}
		r := ratValue(numRat(v))
		return valueNumv(r)
	}
	return valueNumv(v)
}

func asFloat(v Value) float64 {
	if v.K == vInt {
		return float64(v.I)
	}
	return v.F
}

func numRat(v Value) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(v.F, 'g', -1, 64))
	if r == nil {
		r = new(big.Rat)
	}
	return r
}

// evalRow is n over one output row: 1 TRUE, 0 FALSE, -1 UNKNOWN.
func evalRow(n *node, row []Value) int {
	switch n.op {
	case "and", "or":
		res := 1
		if n.op == "or" {
			res = 0
		}
		for _, a := range n.args {
			r := evalRow(a, row)
			switch {
			case n.op == "and" && r == 0, n.op == "or" && r == 1:
				return r
			case r < 0:
				res = -1
			}
		}
		return res
	case "not":
		r := evalRow(n.args[0], row)
		if r < 0 {
			return r
		}
		return 1 - r
	}
	v := row[n.col]
	switch n.op {
	case "is_null":
		return int(b2u(v.Null))
	case "is_not_null":
		return int(b2u(!v.Null))
	}
	if v.Null {
		return -1
	}
	if n.typed != nil && v.K == vText { // typedtext.go
		return int(b2u(typedMatch(n, []byte(v.S))))
	}
	switch n.op {
	case "like":
		return int(b2u(len(v.S) >= len(n.vals[0].S) && v.S[:len(n.vals[0].S)] == n.vals[0].S))
	case "in":
		if n.in != nil && n.vk != vNumeric && v.K == n.vk {
			switch v.K {
			case vInt:
				return int(b2u(n.in.hasInt(v.I)))
			case vFloat:
				return int(b2u(n.in.hasFloat(v.F)))
			case vText:
				return int(b2u(n.in.hasText([]byte(v.S))))
			}
		}
		for _, w := range n.vals {
			if compareValues(v, w) == 0 {
				return 1
			}
		}
		return 0
	case "between":
		return int(b2u(compareValues(v, n.vals[0]) >= 0 && compareValues(v, n.vals[1]) <= 0))
	}
	return int(b2u(cmpOK(n.op, compareValues(v, n.vals[0]))))
}

// finish applies HAVING, ORDER BY (by default the group columns) and LIMIT.
func finish(p *Plan, res *Result) (*Result, error) {
	if p.having != nil {
		keep := res.Rows[:0]
		for _, r := range res.Rows {
			if evalRow(p.having, r) == 1 {
				keep = append(keep, r)
			}
		}
		res.Rows = keep
	}
	order := p.order
	if len(order) == 0 {
		for i := range p.groups {
			order = append(order, boundOrder{col: i})
		}
	}
	slices.SortStableFunc(res.Rows, func(a, b []Value) int {
		for _, o := range order {
			x, y := a[o.col], b[o.col]
			c := 0
			switch {
			case x.Null && y.Null:
			case x.Null:
				c = 1 // NULLS LAST ascending, FIRST descending
			case y.Null:
				c = -1
			default:
				c = p.compareOut(o.col, x, y) // typedtext.go
			}
			if o.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	if p.Req.Limit > 0 && len(res.Rows) > p.Req.Limit {
		res.Rows = res.Rows[:p.Req.Limit]
	}
	return res, nil
}

// Text prints row r's column c as PostgreSQL's output function does; ok
// is false for NULL.
func (res *Result) Text(r, c int) (string, bool) {
	v := res.Rows[r][c]
	if v.Null {
		return "", false
	}
	return FormatValue(v, res.Columns[c].Type), true
}

// FormatValue prints v as PostgreSQL prints a value of type typ.
func FormatValue(v Value, typ string) string {
	switch v.K {
	case vText:
		return v.S
	case vFloat:
		bitsz := 64
		if typ == "real" {
			bitsz = 32
		}
		return formatFloat(v.F, bitsz)
	case vNumeric:
		if v.Num == nil {
			if v.S != "" {
				return v.S
			}
			return strconv.FormatInt(v.I, 10)
		}
		return formatNumeric(v.Num, v.Scale)
	}
	switch typ {
	case "boolean":
		if v.I != 0 {
			return "t"
		}
		return "f"
	case "date", "timestamp without time zone", "timestamp with time zone":
		return string(heap.AppendText(nil, typeKind(typ), v.I, 0, 0))
	}
	return strconv.FormatInt(v.I, 10)
}

func formatNumeric(n *big.Int, scale int32) string {
	s := new(big.Int).Abs(n).String()
	neg := n.Sign() < 0
	if scale > 0 {
		for len(s) <= int(scale) {
			s = "0" + s
		}
		s = s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// formatFloat prints f as float4out/float8out do (heap's printer).
func formatFloat(f float64, bitsz int) string { return string(heap.AppendFloat(nil, f, bitsz)) }
