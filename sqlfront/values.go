package sqlfront

import (
	"bytes"
	"errors"
	"math/big"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// Type OIDs (pg_type.oid) the evaluator knows: the type catalog's.
const (
	oidBool        = types.Bool
	oidBytea       = types.Bytea
	oidName        = types.Name
	oidInt8        = types.Int8
	oidInt2        = types.Int2
	oidInt4        = types.Int4
	oidText        = types.Text
	oidOID         = types.Oid
	oidJSON        = types.JSON
	oidFloat4      = types.Float4
	oidFloat8      = types.Float8
	oidUnknown     = types.Unknown
	oidBpchar      = types.Bpchar
	oidVarchar     = types.Varchar
	oidDate        = types.Date
	oidTime        = types.Time
	oidTimestamp   = types.Timestamp
	oidTimestamptz = types.Timestamptz
	oidInterval    = types.Interval
	oidNumeric     = types.Numeric
	oidUUID        = types.UUID
	oidJSONB       = types.JSONB
	oidTextArray   = 1009
	oidCharType    = types.Char
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
	"bpchar": oidBpchar, "char": oidCharType, "character": oidBpchar, "name": oidName, "date": oidDate, "timestamp": oidTimestamp,
	"timestamptz": oidTimestamptz, "uuid": oidUUID, "bytea": oidBytea, "json": oidJSON, "jsonb": oidJSONB, "oid": oidOID,
	"regclass": oidRegclass, "interval": oidInterval, "time": oidTime,
}

// typeName is the SQL name of oid (format_type without a modifier) for
// messages and column names: the type catalog's.
func typeName(oid uint32) string { return types.NameOf(oid) }

// typname is pg_type.typname (what PostgreSQL names a cast's column).
func typname(oid uint32) string {
	if t, ok := types.Lookup(oid); ok {
		return t.Name
	}
	return typeName(oid)
}

// Num is an exact numeric (the type catalog's): V × 10^-Scale, NaN or
// ±Infinity.
type Num = types.Decimal

// parseNum is numeric_in.
func parseNum(s string) (*Num, bool) {
	v, err := types.In(types.Numeric, -1, s)
	if err != nil {
		return nil, false
	}
	return v.(*Num), true
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

func numFromInt(i int64) *Num { return types.DecimalFromInt(i) }

func numCmp(a, b *Num) int { return types.CompareDecimal(a, b) }

func numAdd(a, b *Num, sub bool) *Num {
	if sub {
		return types.SubDecimal(a, b)
	}
	return types.AddDecimal(a, b)
}

func numMul(a, b *Num) *Num { return types.MulDecimal(a, b) }

// numDiv divides as PostgreSQL's numeric_div.
func numDiv(a, b *Num) (*Num, error) {
	r, err := types.DivDecimal(a, b)
	return r, typesErr(err)
}

// numericSend is numeric_send (±Infinity included), by the type catalog.
func numericSend(n *Num) ([]byte, error) {
	b, err := types.Send(types.Numeric, n)
	return b, typesErr(err)
}

// float4Sum is sum(real)'s step: float4pl, rounding each sum to float4.
func float4Sum(acc, x float64) (float64, error) {
	f, err := types.Float4Sum(acc, x)
	return f, typesErr(err)
}

// typesErr carries a type catalog error (PostgreSQL's SQLSTATE and
// message) as the front end's.
func typesErr(err error) error {
	var te *types.Error
	if err == nil || !errors.As(err, &te) {
		return err
	}
	e := errf(te.Code, -1, "%s", te.Message)
	e.Detail, e.Hint = te.Detail, te.Hint
	return e
}

// formatFloat prints f as float4out/float8out do (heap's printer, the one
// float printer of the project).
func formatFloat(f float64, bits int) string { return string(types.AppendFloat(nil, f, bits)) }

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

// intBounds are the ranges of int2, int4, int8 and oid, and the type's
// name.
func intBounds(t uint32) (int64, int64, string) {
	lo, hi := types.IntBounds(t)
	return lo, hi, types.NameOf(t)
}

// parseAs reads the text s as a value of type t, as the type's input
// function would (the typing of untyped literals and text parameters):
// the type catalog's input, in the evaluator's Value forms.
func parseAs(t uint32, s string) (Value, error) {
	switch {
	case isIntType(t), isFloatType(t), t == oidNumeric, t == oidBool:
		v, err := types.In(t, -1, s)
		return v, typesErr(err)
	case t == oidBpchar:
		// bpchar without a length keeps its trailing blanks as written
		// ('a '::bpchar prints "a "); comparisons, grouping and the
		// cast to text ignore them (cmpValues, rowKey, convert)
		return s, nil
	case t == oidCharType, t == oidName:
		// "char" keeps one byte, name at most 63.
		v, err := types.In(t, -1, s)
		if err != nil {
			return nil, typesErr(err)
		}
		return types.Out(t, v), nil
	case isTextType(t) || t == oidUnknown:
		return s, nil
	case t == oidDate, t == oidTimestamp, t == oidTimestamptz, t == oidUUID, t == oidInterval, t == oidTime:
		// Kept as their canonical text (the evaluator compares it).
		v, err := types.In(t, -1, s)
		if err != nil {
			return nil, typesErr(err)
		}
		return types.Out(t, v), nil
	}
	return nil, errf(codeUnsupported, -1, "sidecar cannot read a literal of type %s", typeName(t)).
		hint("compare such columns with IS NULL, or cast them to text")
}

// paramAs reads a bound parameter's text s as a value of type t:
// parseAs, and json/jsonb, bytea, network and range types (kept as their
// canonical text — json its input, jsonb normalized, bytea in hex — for
// sql/exec, which reads it again). Untyped literals do
// not come here: the flat planner leaves a literal opposite a jsonb to
// sql/exec, whose operator resolution types it (j - 'a' is jsonb - text).
func paramAs(t uint32, s string) (Value, error) {
	if t == oidJSON || t == oidJSONB || t == oidBytea || isNetworkParam(t) || types.IsRange(t) { // binary_send.go
		v, err := types.In(t, -1, s)
		if err != nil {
			return nil, typesErr(err)
		}
		return types.Out(t, v), nil
	}
	return parseAs(t, s)
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
		// PostgreSQL: NaN equals NaN and sorts above everything.
		return types.CompareFloat(x, b.(float64))
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
		if t == oidDate || t == oidTimestamp || t == oidTimestamptz || t == oidInterval {
			return cmpDateTime(t, x, y)
		}
		if t == oidBpchar {
			x, y = strings.TrimRight(x, " "), strings.TrimRight(y, " ")
		}
		return bytes.Compare([]byte(x), []byte(y))
	}
	return 0
}

// cmpDateTime compares two dates, timestamps or intervals held as their
// canonical text: bytewise when both are AD years of four digits (where
// ISO text sorts like time), else by the type catalog's values (BC
// dates, years past 9999, ±infinity; intervals by their span, so
// '1 day' = '24:00:00').
func cmpDateTime(t uint32, x, y string) int {
	plain := func(s string) bool {
		return t != oidInterval && len(s) >= 10 && s[4] == '-' && !strings.HasSuffix(s, " BC")
	}
	if plain(x) && plain(y) {
		return strings.Compare(x, y)
	}
	a, errA := types.In(t, -1, x)
	b, errB := types.In(t, -1, y)
	if errA != nil || errB != nil {
		return strings.Compare(x, y) // not canonical text: cannot happen for stored values
	}
	return types.Compare(t, a, b)
}

// intervalKey is an interval's grouping key: its span as PostgreSQL
// compares it (30-day months, 24-hour days), so equal intervals written
// differently group together.
func intervalKey(s string) string {
	v, err := types.In(types.Interval, -1, s)
	if err != nil {
		return s
	}
	iv := v.(types.IntervalVal)
	return types.IntervalSpanKey(iv)
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
