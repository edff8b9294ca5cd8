package sqlfront

import (
	"bytes"
	"github.com/sidecar-dev/sidecar/heap"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Type OIDs (pg_type.oid) the evaluator knows.
const (
	oidBool        = 16
	oidBytea       = 17
	oidName        = 19
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidOID         = 26
	oidJSON        = 114
	oidFloat4      = 700
	oidFloat8      = 701
	oidUnknown     = 705
	oidBpchar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidInterval    = 1186
	oidNumeric     = 1700
	oidUUID        = 2950
	oidJSONB       = 3802
	oidTextArray   = 1009
	oidCharType    = 18
	oidRegclass    = 2205
)

// Value is one SQL value in the row-at-a-time evaluator: nil (NULL),
// bool, int64 (int2/int4/int8, the static type says which), float64
// (float4/float8), *Num (numeric), or string (text types, and every type
// the evaluator does not compute with, kept as PostgreSQL's output text).
type Value = any

func isIntType(t uint32) bool   { return t == oidInt2 || t == oidInt4 || t == oidInt8 || t == oidOID }
func isFloatType(t uint32) bool { return t == oidFloat4 || t == oidFloat8 }
func isTextType(t uint32) bool {
	return t == oidText || t == oidVarchar || t == oidBpchar || t == oidName || t == oidCharType
}
func isNumericType(t uint32) bool { return isIntType(t) || isFloatType(t) || t == oidNumeric }

// orderedAsText are types whose output text (ISO, UTC, lower-case hex)
// sorts like the values for the years 1000–9999 AD: compared bytewise.
func orderedAsText(t uint32) bool {
	return isTextType(t) || t == oidDate || t == oidTimestamp || t == oidTimestamptz || t == oidUUID || t == oidTime
}

// typeNames maps type names (as written in casts) to OIDs.
var typeNames = map[string]uint32{
	"bool": oidBool, "boolean": oidBool, "int2": oidInt2, "smallint": oidInt2, "int4": oidInt4, "int": oidInt4, "integer": oidInt4,
	"int8": oidInt8, "bigint": oidInt8, "float4": oidFloat4, "real": oidFloat4, "float8": oidFloat8, "double precision": oidFloat8,
	"numeric": oidNumeric, "decimal": oidNumeric, "text": oidText, "varchar": oidVarchar, "character varying": oidVarchar,
	"bpchar": oidBpchar, "char": oidBpchar, "character": oidBpchar, "name": oidName, "date": oidDate, "timestamp": oidTimestamp,
	"timestamptz": oidTimestamptz, "uuid": oidUUID, "bytea": oidBytea, "json": oidJSON, "jsonb": oidJSONB, "oid": oidOID,
	"regclass": oidRegclass,
}

// typeName is the pg_type.typname of oid for messages and column names.
func typeName(oid uint32) string {
	switch oid {
	case oidBool:
		return "boolean"
	case oidInt2:
		return "smallint"
	case oidInt4:
		return "integer"
	case oidInt8:
		return "bigint"
	case oidFloat4:
		return "real"
	case oidFloat8:
		return "double precision"
	case oidNumeric:
		return "numeric"
	case oidText:
		return "text"
	case oidVarchar:
		return "character varying"
	case oidBpchar:
		return "character"
	case oidName:
		return "name"
	case oidDate:
		return "date"
	case oidTimestamp:
		return "timestamp without time zone"
	case oidTimestamptz:
		return "timestamp with time zone"
	case oidUUID:
		return "uuid"
	case oidBytea:
		return "bytea"
	case oidJSON:
		return "json"
	case oidJSONB:
		return "jsonb"
	case oidUnknown:
		return "unknown"
	case oidOID:
		return "oid"
	}
	return "type " + strconv.FormatUint(uint64(oid), 10)
}

// typname is pg_type.typname (what PostgreSQL names a cast's column).
func typname(oid uint32) string {
	switch oid {
	case oidBool:
		return "bool"
	case oidInt2:
		return "int2"
	case oidInt4:
		return "int4"
	case oidInt8:
		return "int8"
	case oidFloat4:
		return "float4"
	case oidFloat8:
		return "float8"
	case oidTimestamp:
		return "timestamp"
	case oidTimestamptz:
		return "timestamptz"
	case oidVarchar:
		return "varchar"
	case oidBpchar:
		return "bpchar"
	}
	return typeName(oid)
}

// Num is an exact numeric: V × 10^-Scale, or NaN.
type Num struct {
	V     big.Int
	Scale int32
	NaN   bool
}

func parseNum(s string) (*Num, bool) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "nan") {
		return &Num{NaN: true}, true
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return nil, false
		}
		exp, s = e, s[:i]
	}
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	intp, frac, _ := strings.Cut(s, ".")
	if intp == "" && frac == "" {
		return nil, false
	}
	digits := intp + frac
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	n := &Num{Scale: int32(len(frac) - exp)}
	if digits == "" {
		digits = "0"
	}
	n.V.SetString(digits, 10)
	if n.Scale < 0 {
		n.V.Mul(&n.V, pow10(int(-n.Scale)))
		n.Scale = 0
	}
	if neg {
		n.V.Neg(&n.V)
	}
	return n, true
}

var pow10Cache [64]*big.Int

func pow10(n int) *big.Int {
	if n < len(pow10Cache) && pow10Cache[n] != nil {
		return pow10Cache[n]
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	if n < len(pow10Cache) {
		pow10Cache[n] = p
	}
	return p
}

func numFromInt(i int64) *Num { n := &Num{}; n.V.SetInt64(i); return n }

func (n *Num) rescaled(s int32) *big.Int {
	if s == n.Scale {
		return &n.V
	}
	return new(big.Int).Mul(&n.V, pow10(int(s-n.Scale)))
}

func (n *Num) String() string {
	if n.NaN {
		return "NaN"
	}
	s := n.V.String()
	if n.Scale <= 0 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	for len(s) <= int(n.Scale) {
		s = "0" + s
	}
	s = s[:len(s)-int(n.Scale)] + "." + s[len(s)-int(n.Scale):]
	if neg {
		s = "-" + s
	}
	return s
}

func numCmp(a, b *Num) int {
	if a.NaN || b.NaN {
		switch {
		case a.NaN && b.NaN:
			return 0
		case a.NaN:
			return 1
		}
		return -1
	}
	s := max(a.Scale, b.Scale)
	return a.rescaled(s).Cmp(b.rescaled(s))
}

func numAdd(a, b *Num, sub bool) *Num {
	if a.NaN || b.NaN {
		return &Num{NaN: true}
	}
	s := max(a.Scale, b.Scale)
	r := &Num{Scale: s}
	if sub {
		r.V.Sub(a.rescaled(s), b.rescaled(s))
	} else {
		r.V.Add(a.rescaled(s), b.rescaled(s))
	}
	return r
}

func numMul(a, b *Num) *Num {
	if a.NaN || b.NaN {
		return &Num{NaN: true}
	}
	r := &Num{Scale: a.Scale + b.Scale}
	r.V.Mul(&a.V, &b.V)
	return r
}

// nbaseFirst returns the weight and value of the first non-zero base-10000
// digit of n, as PostgreSQL's numeric stores it (0, 0 for zero).
func nbaseFirst(n *Num) (weight, first int) {
	s := new(big.Int).Abs(&n.V).String()
	if s == "0" {
		return 0, 0
	}
	sc := int(n.Scale)
	var ip, fp string
	if sc <= 0 {
		ip = s + strings.Repeat("0", -sc)
	} else if len(s) > sc {
		ip, fp = s[:len(s)-sc], s[len(s)-sc:]
	} else {
		fp = strings.Repeat("0", sc-len(s)) + s
	}
	ip = strings.TrimLeft(ip, "0")
	if ip != "" {
		lead := (len(ip)-1)%4 + 1
		f, _ := strconv.Atoi(ip[:lead])
		return (len(ip) - 1) / 4, f
	}
	for len(fp)%4 != 0 {
		fp += "0"
	}
	for g := 0; g*4 < len(fp); g++ {
		if f, _ := strconv.Atoi(fp[g*4 : g*4+4]); f != 0 {
			return -(g + 1), f
		}
	}
	return 0, 0
}

// numDiv divides as PostgreSQL's numeric_div: the result scale of
// select_div_scale, rounded half away from zero.
func numDiv(a, b *Num) (*Num, error) {
	if a.NaN || b.NaN {
		return &Num{NaN: true}, nil
	}
	if b.V.Sign() == 0 {
		return nil, errf(codeDivByZero, -1, "division by zero")
	}
	w1, f1 := nbaseFirst(a)
	w2, f2 := nbaseFirst(b)
	qw := w1 - w2
	if f1 <= f2 {
		qw--
	}
	rs := int32(16 - qw*4)
	rs = max(rs, a.Scale, b.Scale, 0)
	rs = min(rs, 1000)
	// a/b at scale rs: (a.V * 10^(rs - a.Scale + b.Scale)) / b.V, rounded.
	num := new(big.Int).Set(&a.V)
	shift := int(rs - a.Scale + b.Scale)
	den := new(big.Int).Set(&b.V)
	if shift >= 0 {
		num.Mul(num, pow10(shift))
	} else {
		den.Mul(den, pow10(-shift))
	}
	return &Num{V: *roundDiv(num, den), Scale: rs}, nil
}

// roundDiv is num/den rounded half away from zero.
func roundDiv(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(new(big.Int).Abs(den)) >= 0 {
		if (num.Sign() < 0) != (den.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

func (n *Num) float() float64 {
	if n.NaN {
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(n.String(), 64)
	return f
}

// formatFloat prints f as float4out/float8out do (heap's printer, the one
// float printer of the project).
func formatFloat(f float64, bits int) string { return string(heap.AppendFloat(nil, f, bits)) }

// render is a value's text as PostgreSQL prints it (ok=false for NULL).
func render(v Value, t uint32) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case bool:
		if x {
			return "t", true
		}
		return "f", true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		if t == oidFloat4 {
			return formatFloat(x, 32), true
		}
		return formatFloat(x, 64), true
	case *Num:
		return x.String(), true
	case string:
		return x, true
	}
	return "", false
}

// intBounds are the ranges of int2, int4 and int8.
func intBounds(t uint32) (int64, int64, string) {
	switch t {
	case oidInt2:
		return math.MinInt16, math.MaxInt16, "smallint"
	case oidInt4:
		return math.MinInt32, math.MaxInt32, "integer"
	case oidOID:
		return 0, math.MaxUint32, "oid"
	}
	return math.MinInt64, math.MaxInt64, "bigint"
}

// parseAs reads the text s as a value of type t, as the type's input
// function would (the typing of untyped literals and text parameters).
func parseAs(t uint32, s string) (Value, error) {
	switch {
	case isIntType(t):
		lo, hi, name := intBounds(t)
		ts := strings.TrimSpace(s)
		i, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return nil, errf(codeOutOfRange, -1, "value \"%s\" is out of range for type %s", s, name)
			}
			return nil, errf(codeInvalidText, -1, "invalid input syntax for type %s: \"%s\"", name, s)
		}
		if i < lo || i > hi {
			return nil, errf(codeOutOfRange, -1, "value \"%s\" is out of range for type %s", s, name)
		}
		return i, nil
	case isFloatType(t):
		ts := strings.TrimSpace(s)
		switch strings.ToLower(ts) {
		case "infinity", "inf", "+infinity":
			return math.Inf(1), nil
		case "-infinity", "-inf":
			return math.Inf(-1), nil
		case "nan":
			return math.NaN(), nil
		}
		bits := 64
		if t == oidFloat4 {
			bits = 32
		}
		f, err := strconv.ParseFloat(ts, bits)
		if err != nil {
			return nil, errf(codeInvalidText, -1, "invalid input syntax for type %s: \"%s\"", typeName(t), s)
		}
		return f, nil
	case t == oidNumeric:
		n, ok := parseNum(s)
		if !ok {
			return nil, errf(codeInvalidText, -1, "invalid input syntax for type numeric: \"%s\"", s)
		}
		return n, nil
	case t == oidBool:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "t", "true", "y", "yes", "on", "1":
			return true, nil
		case "f", "false", "n", "no", "off", "0":
			return false, nil
		}
		return nil, errf(codeInvalidText, -1, "invalid input syntax for type boolean: \"%s\"", s)
	case t == oidBpchar:
		return strings.TrimRight(s, " "), nil
	case isTextType(t) || t == oidUnknown:
		return s, nil
	case t == oidDate:
		d, err := time.Parse("2006-01-02", strings.TrimSpace(s))
		if err != nil {
			return nil, errf(codeInvalidText, -1, "invalid input syntax for type date: \"%s\" (sidecar reads dates as YYYY-MM-DD)", s)
		}
		return d.Format("2006-01-02"), nil
	case t == oidTimestamp || t == oidTimestamptz:
		return parseTimestamp(t, s)
	case t == oidUUID:
		u := strings.ToLower(strings.ReplaceAll(strings.Trim(strings.TrimSpace(s), "{}"), "-", ""))
		if len(u) != 32 || strings.Trim(u, "0123456789abcdef") != "" {
			return nil, errf(codeInvalidText, -1, "invalid input syntax for type uuid: \"%s\"", s)
		}
		return u[:8] + "-" + u[8:12] + "-" + u[12:16] + "-" + u[16:20] + "-" + u[20:], nil
	}
	return nil, errf(codeUnsupported, -1, "sidecar cannot read a literal of type %s", typeName(t)).
		hint("compare such columns with IS NULL, or cast them to text")
}

var tsLayouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"}
var tstzLayouts = []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999 Z07:00", "2006-01-02 15:04:05.999999999-0700"}

func parseTimestamp(t uint32, s string) (Value, error) {
	ts := strings.TrimSpace(s)
	var tm time.Time
	var err error
	ok := false
	if t == oidTimestamptz {
		for _, l := range tstzLayouts {
			if tm, err = time.Parse(l, ts); err == nil {
				ok = true
				break
			}
		}
	}
	if !ok {
		for _, l := range tsLayouts {
			if tm, err = time.Parse(l, ts); err == nil {
				ok = true
				break
			}
		}
	}
	if !ok {
		return nil, errf(codeInvalidText, -1, "invalid input syntax for type %s: \"%s\" (sidecar reads ISO 8601 timestamps)", typeName(t), s)
	}
	out := tm.UTC().Format("2006-01-02 15:04:05.999999")
	if t == oidTimestamptz {
		out += "+00"
	}
	return out, nil
}

// cmpValues compares two non-NULL values of type t (both sides already
// coerced to it): numbers numerically, text types bytewise (as under the
// "C" collation), bpchar without trailing blanks.
func cmpValues(a, b Value, t uint32) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case float64:
		y := b.(float64)
		// PostgreSQL: NaN equals NaN and sorts above everything.
		xn, yn := math.IsNaN(x), math.IsNaN(y)
		switch {
		case xn && yn:
			return 0
		case xn:
			return 1
		case yn:
			return -1
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case *Num:
		return numCmp(x, b.(*Num))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case string:
		y := b.(string)
		if t == oidBpchar {
			x, y = strings.TrimRight(x, " "), strings.TrimRight(y, " ")
		}
		return bytes.Compare([]byte(x), []byte(y))
	}
	return 0
}

// fromText reads a stored column value (PostgreSQL's output text) as a
// Value of type t; types the evaluator does not compute with stay text.
func fromText(t uint32, s *string) (Value, error) {
	if s == nil {
		return nil, nil
	}
	switch {
	case isIntType(t):
		i, err := strconv.ParseInt(*s, 10, 64)
		if err != nil {
			return nil, errf(codeInternal, -1, "stored %s value %q: %v", typeName(t), *s, err)
		}
		return i, nil
	case isFloatType(t), t == oidNumeric, t == oidBool:
		return parseAs(t, *s)
	}
	return *s, nil
}
