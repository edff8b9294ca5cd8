package types

import (
	"math"
	"strings"
	"unicode/utf8"
)

// CastKind is pg_cast.castcontext: where a cast may be applied.
type CastKind uint8

// The cast contexts, weakest first.
const (
	CastNone       CastKind = iota // no cast exists
	CastExplicit                   // only CAST(x AS t) / x::t
	CastAssignment                 // also when storing into a column
	CastImplicit                   // also in expressions
)

// pgCast is pg_cast among the catalog's types (PostgreSQL 14–18 agree on
// these): from → to → context.
var pgCast = map[[2]OID]CastKind{}

func init() {
	add := func(ctx CastKind, from OID, tos ...OID) {
		for _, to := range tos {
			pgCast[[2]OID{from, to}] = ctx
		}
	}
	e, a, i := CastExplicit, CastAssignment, CastImplicit
	add(e, Bool, Int4)
	add(a, Bool, Text, Bpchar, Varchar)
	add(e, Char, Int4)
	add(i, Char, Text)
	add(a, Char, Bpchar, Varchar)
	add(i, Name, Text)
	add(a, Name, Bpchar, Varchar)
	add(a, Int8, Int2, Int4)
	add(i, Int8, Oid, Float4, Float8, Numeric)
	add(i, Int2, Int8, Int4, Oid, Float4, Float8, Numeric)
	add(e, Int4, Bool, Char)
	add(i, Int4, Int8, Oid, Float4, Float8, Numeric)
	add(a, Int4, Int2)
	add(a, Text, Char)
	add(i, Text, Name, Bpchar, Varchar)
	add(a, Oid, Int8, Int4)
	add(a, JSON, JSONB)
	add(a, Float4, Int8, Int2, Int4, Numeric)
	add(i, Float4, Float8)
	add(a, Float8, Int8, Int2, Int4, Float4, Numeric)
	add(a, Bpchar, Char)
	add(i, Bpchar, Name, Text, Bpchar, Varchar)
	add(a, Varchar, Char)
	add(i, Varchar, Name, Text, Bpchar, Varchar)
	add(i, Date, Timestamp, Timestamptz)
	add(i, Time, Time, Interval, Timetz)
	add(a, Timestamp, Date, Time)
	add(i, Timestamp, Timestamp, Timestamptz)
	add(a, Timestamptz, Date, Time, Timestamp, Timetz)
	add(i, Timestamptz, Timestamptz)
	add(a, Interval, Time)
	add(i, Interval, Interval)
	add(a, Timetz, Time)
	add(i, Timetz, Timetz)
	add(a, Numeric, Int8, Int2, Int4)
	add(i, Numeric, Float4, Float8, Numeric)
	add(e, JSONB, Bool, Int8, Int2, Int4, Float4, Float8, Numeric)
	add(a, JSONB, JSON)
	add(i, Cidr, Inet)
	add(a, Inet, Cidr, Text, Varchar, Bpchar)
	add(a, Cidr, Text, Varchar, Bpchar)
	add(i, Macaddr, Macaddr8)
	add(i, Macaddr8, Macaddr)
	add(a, Numeric, Money)
	add(a, Int4, Money)
	add(a, Int8, Money)
	add(a, Money, Numeric)
	add(i, Bit, Bit, Varbit)
	add(i, Varbit, Varbit, Bit)
	add(e, Int4, Bit)
	add(e, Int8, Bit)
	add(e, Bit, Int4, Int8)
}

// isString is the string category (text, varchar, bpchar, name).
func isString(oid OID) bool {
	t, ok := byOID[oid]
	return ok && t.Category == CatString
}

// CastContext is where a cast from → to may be applied, as PostgreSQL's
// find_coercion_pathway decides: a pg_cast entry, else an I/O cast (to a
// string type: assignment; from a string type: explicit), and a value of
// a type to itself always.
func CastContext(from, to OID) CastKind { return castContext(from, to, isString) }

// castContext is CastContext with the string category as str says.
func castContext(from, to OID, str func(OID) bool) CastKind {
	if from == to || from == Unknown {
		return CastImplicit
	}
	if k, ok := pgCast[[2]OID{from, to}]; ok {
		return k
	}
	if IsVector(to) && !IsVector(from) && IsArray(from) {
		return CastNone // no array is cast to a vector; a vector is binary-coercible to its array
	}
	if IsArray(from) && IsArray(to) {
		return castContext(ElemOf(from), ElemOf(to), str) // array coercion: the element cast
	}
	if !Known(from) || !Known(to) {
		return CastNone
	}
	switch {
	case str(to):
		return CastAssignment
	case str(from):
		return CastExplicit
	}
	return CastNone
}

// Convert casts v from type from to type to with typmod mod (-1: none),
// explicitly (x::to): PostgreSQL's value or error. Convert(v, t, t, mod)
// applies the typmod alone.
func Convert(v Value, from, to OID, mod int32) (Value, error) {
	if v == nil {
		return nil, nil
	}
	if x, ok := v.(int64); ok && to == Bit && (from == Int4 || from == Int8) {
		return ConvertIntToBit(x, from, mod), nil // moneybitcast.go: the low bits, not a truncation
	}
	r, err := convert(v, from, to)
	if err != nil {
		return nil, err
	}
	return ApplyMod(to, mod, r, true)
}

func convert(v Value, from, to OID) (Value, error) {
	if from == to {
		return v, nil
	}
	if from == Unknown {
		return in(to, v.(string))
	}
	if CastContext(from, to) == CastNone {
		return nil, errorf(CodeCannotCoerce, "cannot cast type %s to %s", NameOf(from), NameOf(to))
	}
	if IsVector(from) && !IsVector(to) && IsArray(to) {
		// PostgreSQL keeps the lower bound 0 ([0:1]={1,2}); sidecar's arrays start at 1.
		return nil, errorf(CodeUnsupported, "sidecar cannot cast %s to %s yet (arrays with lower bound 0)", NameOf(from), NameOf(to))
	}
	if a, ok := v.(*Array); ok && IsArray(to) {
		return convertArray(a, to, -1, true) // array.go
	}
	if x, ok := v.(InetVal); ok {
		switch to {
		case Text, Varchar, Bpchar:
			return InetShow(x), nil // text(inet): network_show, not inet_out
		case Inet:
			return x, nil
		case Cidr:
			return InetMasked(x, int(x.Bits)), nil // cidr(inet)
		}
	}
	if r, ok, err := convertMoneyBit(v, to); ok {
		return r, err // moneybitcast.go
	}
	switch x := v.(type) {
	case MacaddrVal:
		if to == Macaddr8 {
			return MacaddrToMacaddr8(x), nil
		}
	case Macaddr8Val:
		if to == Macaddr {
			return Macaddr8ToMacaddr(x)
		}
	}
	switch {
	case isString(to):
		return toText(v, from, to), nil
	case to == Char:
		if from == Int4 {
			i := v.(int64)
			if i < -128 || i > 127 {
				return nil, errorf(CodeOutOfRange, "\"char\" out of range")
			}
			return string([]byte{byte(i)}), nil
		}
		s := toText(v, from, Text).(string)
		if s == "" {
			return "", nil
		}
		return s[:1], nil
	case isString(from) || from == Char && to != Int4:
		return in(to, v.(string))
	}
	switch x := v.(type) {
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case int64:
		return fromInt(x, from, to)
	case float64:
		return fromFloat(x, from, to)
	case *Decimal:
		return fromDecimal(x, to)
	case string:
		switch from {
		case Char:
			if x == "" {
				return int64(0), nil
			}
			return int64(int8(x[0])), nil
		case JSON, JSONB:
			if to == JSONB {
				return parseJSONB(x)
			}
			if to == JSON {
				return x, nil
			}
			return jsonbScalar(x, to)
		}
	case DateVal:
		return fromDate(x, to)
	case TimestampVal:
		return fromTimestamp(x, from, to)
	case TimeVal:
		switch to {
		case Interval:
			return IntervalVal{Micros: int64(x)}, nil
		case Timetz:
			return TimeTZVal{Micros: int64(x)}, nil
		}
	case TimeTZVal:
		return TimeVal(x.Micros), nil
	case IntervalVal:
		us := x.Micros % usecsPerDay
		if us < 0 {
			us += usecsPerDay
		}
		return TimeVal(us), nil
	}
	return nil, errorf(CodeUnsupported, "sidecar cannot cast %s to %s", NameOf(from), NameOf(to))
}

// toText is the cast of v to a string type: booltext's true/false for
// bool, rtrim for bpchar to text/varchar, else the output text.
func toText(v Value, from, to OID) Value {
	var s string
	switch x := v.(type) {
	case bool:
		if x {
			s = "true"
		} else {
			s = "false"
		}
	default:
		s = Out(from, v)
	}
	if from == Bpchar && to != Bpchar {
		s = strings.TrimRight(s, " ")
	}
	if to == Name {
		s = truncateBytes(s, nameDataLen-1)
	}
	return s
}

func fromInt(x int64, from, to OID) (Value, error) {
	switch to {
	case Int2, Int4, Int8, Oid:
		lo, hi := IntBounds(to)
		if from == Oid && to == Int4 {
			return int64(int32(uint32(x))), nil
		}
		if to == Oid && x < 0 && x >= math.MinInt32 {
			return x + 1<<32, nil
		}
		if x < lo || x > hi {
			return nil, errorf(CodeOutOfRange, "%s out of range", NameOf(to))
		}
		return x, nil
	case Float4:
		return float64(float32(x)), nil
	case Float8:
		return float64(x), nil
	case Numeric:
		return DecimalFromInt(x), nil
	case Bool:
		return x != 0, nil
	}
	return nil, errorf(CodeUnsupported, "sidecar cannot cast %s to %s", NameOf(from), NameOf(to))
}

func fromFloat(x float64, from, to OID) (Value, error) {
	bits := 64
	if from == Float4 {
		bits = 32
	}
	switch to {
	case Float4:
		f := float32(x)
		if math.IsInf(float64(f), 0) && !math.IsInf(x, 0) {
			return nil, errorf(CodeOutOfRange, "value out of range: overflow")
		}
		if f == 0 && x != 0 {
			return nil, errorf(CodeOutOfRange, "value out of range: underflow")
		}
		return float64(f), nil
	case Float8:
		return x, nil
	case Int2, Int4, Int8:
		r := math.RoundToEven(x)
		lo, hi := IntBounds(to)
		if math.IsNaN(x) || r < float64(lo) || r >= -float64(lo) || r > float64(hi) {
			return nil, errorf(CodeOutOfRange, "%s out of range", NameOf(to))
		}
		return int64(r), nil
	case Numeric:
		return decimalFromFloat(x, bits), nil
	}
	return nil, errorf(CodeUnsupported, "sidecar cannot cast %s to %s", NameOf(from), NameOf(to))
}

func fromDecimal(x *Decimal, to OID) (Value, error) {
	switch to {
	case Float4, Float8:
		f := x.Float64()
		if to == Float4 {
			if x.finite() && math.IsInf(float64(float32(f)), 0) {
				return nil, errorf(CodeOutOfRange, "value out of range: overflow")
			}
			return float64(float32(f)), nil
		}
		if x.finite() && math.IsInf(f, 0) {
			return nil, errorf(CodeOutOfRange, "value out of range: overflow")
		}
		return f, nil
	case Int2, Int4, Int8:
		if x.NaN {
			return nil, errorf(CodeUnsupported, "cannot convert NaN to %s", NameOf(to))
		}
		if x.Inf != 0 {
			return nil, errorf(CodeUnsupported, "cannot convert infinity to %s", NameOf(to))
		}
		r := x.round(0)
		lo, hi := IntBounds(to)
		if !r.V.IsInt64() || r.V.Int64() < lo || r.V.Int64() > hi {
			return nil, errorf(CodeOutOfRange, "%s out of range", NameOf(to))
		}
		return r.V.Int64(), nil
	}
	return nil, errorf(CodeUnsupported, "sidecar cannot cast numeric to %s", NameOf(to))
}

func fromDate(d DateVal, to OID) (Value, error) {
	switch d {
	case DatePosInf:
		return TimestampPosInf, nil
	case DateNegInf:
		return TimestampNegInf, nil
	}
	// A date past the timestamps' last day is out of range (checked
	// before multiplying: a date near its own limit overflows int64).
	if int64(d) >= timestampEndJulian-postgresEpochJDate {
		return nil, errorf(CodeDatetimeField, "date out of range for timestamp")
	}
	us := int64(d) * usecsPerDay
	if !tsInRange(us) {
		return nil, errorf(CodeDatetimeField, "date out of range for timestamp")
	}
	return TimestampVal(us), nil
}

func fromTimestamp(ts TimestampVal, from, to OID) (Value, error) {
	switch to {
	case Timestamp, Timestamptz:
		return ts, nil // TimeZone=UTC: local time is UTC time
	case Date:
		switch ts {
		case TimestampPosInf:
			return DatePosInf, nil
		case TimestampNegInf:
			return DateNegInf, nil
		}
		d := int64(ts) / usecsPerDay
		if int64(ts)%usecsPerDay < 0 {
			d--
		}
		return DateVal(d), nil
	case Time, Timetz:
		if ts == TimestampPosInf || ts == TimestampNegInf {
			return nil, errorf(CodeDatetimeField, "timestamp out of range")
		}
		us := int64(ts) % usecsPerDay
		if us < 0 {
			us += usecsPerDay
		}
		if to == Timetz {
			return TimeTZVal{Micros: us}, nil
		}
		return TimeVal(us), nil
	}
	return nil, errorf(CodeUnsupported, "sidecar cannot cast %s to %s", NameOf(from), NameOf(to))
}

// jsonbScalar is the cast of a jsonb scalar to bool or a number.
func jsonbScalar(s string, to OID) (Value, error) {
	want := "boolean"
	if to != Bool {
		want = "numeric"
	}
	t := strings.TrimSpace(s)
	if to == Bool {
		switch t {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	} else if t != "" && (t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		n, err := parseDecimal(t)
		if err == nil {
			if to == Numeric {
				return n, nil
			}
			return fromDecimal(n, to)
		}
	}
	kind := "object"
	switch {
	case strings.HasPrefix(t, "["):
		kind = "array"
	case strings.HasPrefix(t, `"`):
		kind = "string"
	case t == "null":
		kind = "null"
	case t == "true" || t == "false":
		kind = "boolean"
	case utf8.RuneCountInString(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9'):
		kind = "numeric"
	}
	return nil, errorf(CodeInvalidParam, "cannot cast jsonb %s to type %s", kind, want)
}
