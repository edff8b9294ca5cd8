package types

import (
	"bytes"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
)

// Compare orders two non-NULL values of type oid as the type's default
// btree opclass does: numbers by value (NaN equal to itself and above
// everything), text bytewise (COLLATE "C"), bpchar without its trailing
// blanks, dates and timestamps with ±infinity at the ends, timetz by
// UTC instant then zone, intervals by their 30-day-month span.
func Compare(oid OID, a, b Value) int {
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int64:
		return cmpInt(x, b.(int64))
	case float64:
		return CompareFloat(x, b.(float64))
	case *Decimal:
		return CompareDecimal(x, b.(*Decimal))
	case string:
		y := b.(string)
		if oid == JSONB {
			return CompareJSONB(x, y) // jsonbcmp.go
		}
		if oid == Bpchar {
			x, y = strings.TrimRight(x, " "), strings.TrimRight(y, " ")
		}
		return strings.Compare(x, y)
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case UUIDVal:
		y := b.(UUIDVal)
		return bytes.Compare(x[:], y[:])
	case InetVal:
		return CompareInet(x, b.(InetVal)) // inet.go
	case MacaddrVal:
		y := b.(MacaddrVal)
		return bytes.Compare(x[:], y[:])
	case Macaddr8Val:
		y := b.(Macaddr8Val)
		return bytes.Compare(x[:], y[:])
	case MoneyVal:
		return cmpInt(int64(x), int64(b.(MoneyVal)))
	case BitVal:
		return CompareBit(x, b.(BitVal)) // bit.go
	case RangeVal:
		return CompareRange(oid, x, b.(RangeVal)) // rangetype.go
	case DateVal:
		return cmpInt(int64(x), int64(b.(DateVal)))
	case TimestampVal:
		return cmpInt(int64(x), int64(b.(TimestampVal)))
	case TimeVal:
		return cmpInt(int64(x), int64(b.(TimeVal)))
	case TimeTZVal:
		y := b.(TimeTZVal)
		if c := cmpInt(x.Micros+int64(x.Zone)*usecsPerSec, y.Micros+int64(y.Zone)*usecsPerSec); c != 0 {
			return c
		}
		return cmpInt(int64(x.Zone), int64(y.Zone))
	case IntervalVal:
		xs, xr := intervalSpan(x)
		ys, yr := intervalSpan(b.(IntervalVal))
		if c := cmpInt(xs, ys); c != 0 {
			return c
		}
		return cmpInt(xr, yr)
	case *Array:
		return compareArrays(x, b.(*Array)) // array.go
	case *Record:
		return compareRecords(x, b.(*Record)) // record.go
	case EnumVal:
		return compareEnum(x, b.(EnumVal)) // enum.go
	}
	return 0
}

// CompareFloat is float8_cmp: NaN equals NaN and sorts above every
// other value; -0 equals 0.
func CompareFloat(x, y float64) int {
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
}

// intervalSpan is interval_cmp_value as a (days, microseconds) pair:
// months count 30 days, days 24 hours.
func intervalSpan(iv IntervalVal) (int64, int64) {
	days := int64(iv.Months)*30 + int64(iv.Days) + iv.Micros/usecsPerDay
	rem := iv.Micros % usecsPerDay
	if rem < 0 {
		rem += usecsPerDay
		days--
	}
	return days, rem
}

// IntervalSpanKey is a text equal for exactly the intervals Compare
// finds equal (a grouping key).
func IntervalSpanKey(iv IntervalVal) string {
	d, r := intervalSpan(iv)
	return strconv.FormatInt(d, 10) + "/" + strconv.FormatInt(r, 10)
}

// Hash hashes v of type oid consistently with Compare's equality (1.5
// and 1.50, 0 and -0, every NaN, 'a' and 'a ' as bpchar hash alike),
// under seed (one per hash table).
func Hash(seed maphash.Seed, oid OID, v Value) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	switch x := v.(type) {
	case bool:
		if x {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	case int64:
		h.WriteString(strconv.FormatInt(x, 10))
	case float64:
		switch {
		case math.IsNaN(x):
			h.WriteString("NaN")
		case x == 0:
			h.WriteString("0")
		default:
			h.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case *Decimal:
		h.WriteString(x.normalizedKey())
	case string:
		if oid == JSONB {
			hashJSONB(&h, x) // jsonbcmp.go
			break
		}
		if oid == Bpchar {
			x = strings.TrimRight(x, " ")
		}
		h.WriteString(x)
	case []byte:
		h.Write(x)
	case InetVal:
		hashInet(&h, x) // inet.go: inet and cidr alike
	case RangeVal:
		hashRange(&h, seed, oid, x) // rangetype.go
	case BitVal:
		h.WriteString(strconv.Itoa(int(x.N)) + "/" + x.B) // bit and varbit alike
	case IntervalVal:
		h.WriteString(IntervalSpanKey(x))
	case TimeTZVal:
		h.WriteString(strconv.FormatInt(x.Micros, 10) + "/" + strconv.FormatInt(int64(x.Zone), 10))
	case *Array:
		hashArray(&h, seed, x) // array.go
	case *Record:
		hashRecord(&h, seed, x) // record.go
	case EnumVal:
		hashEnum(&h, x) // enum.go
	default:
		h.WriteString(string(AppendOut(nil, oid, v)))
	}
	return h.Sum64()
}

// Orderable reports whether Compare orders values of oid as PostgreSQL's
// default btree opclass does. json has no ordering (nor equality) in
// PostgreSQL; jsonb orders as jsonb_cmp (jsonbcmp.go); types the catalog
// does not know compare for equality only.
func Orderable(oid OID) bool {
	switch oid {
	case JSON, JSONPath, Unknown: // jsonpath has no comparison operators either
		return false
	}
	t, ok := byOID[oid]
	if ok && t.Category == CatArray {
		return Orderable(t.Elem)
	}
	return ok || IsUserOID(oid) // enum.go: an enum's values order by their sort order
}
