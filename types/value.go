package types

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Value is one non-NULL datum in its Go form (see the package doc); nil
// is NULL.
type Value = any

// UUIDVal is a uuid's 16 bytes.
type UUIDVal [16]byte

// nameDataLen is NAMEDATALEN: a name holds at most 63 bytes.
const nameDataLen = 64

// In is the input function of type oid followed by the typmod coercion
// ('s'::type(mod)): PostgreSQL's value for the text, or its error.
// Types the catalog does not know keep their text.
func In(oid OID, mod int32, s string) (Value, error) {
	if oid == Bit || oid == Varbit {
		// 'x'::bit(n): bit_in without the length, then the explicit
		// length coercion, as PostgreSQL's coerce_type (bit.go).
		v, err := parseBit(s)
		if err != nil {
			return nil, err
		}
		return applyBitMod(oid, mod, v, true)
	}
	v, err := in(oid, s)
	if err != nil {
		return nil, err
	}
	return ApplyMod(oid, mod, v, false)
}

func in(oid OID, s string) (Value, error) {
	switch oid {
	case Bool:
		return parseBool(s)
	case Int2, Int4, Int8:
		return parseInt(oid, s)
	case Oid:
		return parseOid(s)
	case Float4, Float8:
		return parseFloat(oid, s)
	case Numeric:
		return parseDecimal(s)
	case Text, Varchar, Unknown:
		return s, nil
	case Bpchar:
		return s, nil
	case Name:
		return truncateBytes(s, nameDataLen-1), nil
	case Char:
		return parseChar(s), nil
	case Bytea:
		return parseBytea(s)
	case UUID:
		return parseUUID(s)
	case Inet, Cidr:
		return parseInet(s, oid == Cidr) // inet.go
	case Macaddr:
		return parseMacaddr(s) // macaddr.go
	case Macaddr8:
		return parseMacaddr8(s)
	case Money:
		return parseMoney(s) // money.go
	case Bit, Varbit:
		return parseBit(s) // bit.go
	case Int4range, Int8range, Numrange, Daterange, Tsrange, Tstzrange:
		return ParseRange(oid, s, nil) // rangetype.go
	case JSON:
		if !json.Valid([]byte(s)) {
			return nil, syntaxErr(JSON, s)
		}
		return s, nil
	case JSONB:
		return parseJSONB(s)
	case JSONPath:
		return Dialect{}.parseJSONPathValue(s) // jsonpath.go
	case Date:
		return parseDate(s)
	case Timestamp, Timestamptz:
		return parseTimestamp(oid, s)
	case Time, Timetz:
		return parseTime(oid, s)
	case Interval:
		return parseInterval(s)
	}
	if IsVector(oid) {
		return parseVector(oid, s) // vector.go
	}
	if IsArray(oid) {
		return parseArray(oid, s) // array.go
	}
	return s, nil
}

// ApplyMod coerces v of type oid to typmod mod, as the type's length
// coercion function does; explicit is true for an explicit cast (which
// truncates character strings instead of failing).
func ApplyMod(oid OID, mod int32, v Value, explicit bool) (Value, error) {
	if mod < 0 || v == nil {
		return v, nil
	}
	if a, ok := v.(*Array); ok {
		return convertArray(a, oid, mod, explicit) // array.go: each element
	}
	switch oid {
	case Varchar, Bpchar:
		s := v.(string)
		n := int(mod - 4)
		l := utf8.RuneCountInString(s)
		if l > n {
			cut := runePrefix(s, n)
			if !explicit && strings.Trim(s[len(cut):], " ") != "" {
				return nil, errorf(CodeStringTooLong, "value too long for type %s(%d)", NameOf(oid), n)
			}
			s = cut
			l = n
		}
		if oid == Bpchar && l < n {
			s += strings.Repeat(" ", n-l)
		}
		return s, nil
	case Numeric:
		return applyNumericMod(v.(*Decimal), mod)
	case Bit, Varbit:
		return applyBitMod(oid, mod, v.(BitVal), explicit) // bit.go
	case Timestamp, Timestamptz:
		ts := v.(TimestampVal)
		if ts == TimestampPosInf || ts == TimestampNegInf {
			return ts, nil
		}
		r := TimestampVal(adjustPrecision(int64(ts), mod))
		if !tsInRange(int64(r)) {
			return nil, errorf(CodeDatetimeField, "timestamp out of range")
		}
		return r, nil
	case Time:
		return TimeVal(adjustPrecision(int64(v.(TimeVal)), mod)), nil
	case Timetz:
		t := v.(TimeTZVal)
		t.Micros = adjustPrecision(t.Micros, mod)
		return t, nil
	case Interval:
		iv := v.(IntervalVal)
		iv.Micros = adjustPrecision(iv.Micros, PrecisionOf(Interval, mod))
		return iv, nil
	}
	return v, nil
}

// runePrefix is the first n characters of s.
func runePrefix(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// truncateBytes cuts s to at most n bytes at a character boundary.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// parseBool is boolin: whitespace-trimmed, case-insensitive, any unique
// prefix of true/false/yes/no, on/off (at least two letters), 1/0.
func parseBool(s string) (bool, error) {
	t := strings.ToLower(strings.Trim(s, " \t\n\r\v\f"))
	if t != "" {
		switch {
		case strings.HasPrefix("true", t), strings.HasPrefix("yes", t), t == "1":
			return true, nil
		case strings.HasPrefix("false", t), strings.HasPrefix("no", t), t == "0":
			return false, nil
		case len(t) >= 2 && strings.HasPrefix("on", t):
			return true, nil
		case len(t) >= 2 && strings.HasPrefix("off", t):
			return false, nil
		}
	}
	return false, syntaxErr(Bool, s)
}

// parseInt is int2in / int4in / int8in (PostgreSQL 14–15 syntax:
// whitespace, one sign, decimal digits).
func parseInt(oid OID, s string) (int64, error) {
	t := strings.Trim(s, " \t\n\r\v\f")
	if t == "" {
		return 0, syntaxErr(oid, s)
	}
	t, ok := nonDecimal(t) // PostgreSQL 16's forms; Dialect refuses them before 16
	if !ok {
		return 0, syntaxErr(oid, s)
	}
	v, err := strconv.ParseInt(t, 10, 64)
	lo, hi := IntBounds(oid)
	if err != nil || v < lo || v > hi {
		return 0, rangeErr(oid, s)
	}
	return v, nil
}

// IntBounds is the range of int2, int4, int8 (and oid).
func IntBounds(oid OID) (lo, hi int64) {
	switch oid {
	case Int2:
		return math.MinInt16, math.MaxInt16
	case Int4:
		return math.MinInt32, math.MaxInt32
	case Oid:
		return 0, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

// parseOid is oidin: an unsigned 32-bit value; negative input wraps as
// strtoul does (down to -2^31).
func parseOid(s string) (int64, error) {
	t := strings.Trim(s, " \t\n\r\v\f")
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		if strings.Trim(strings.TrimLeft(t, "+-"), "0123456789") != "" || t == "" {
			return 0, syntaxErr(Oid, s)
		}
		return 0, rangeErr(Oid, s)
	}
	if v < math.MinInt32 || v > math.MaxUint32 {
		return 0, rangeErr(Oid, s)
	}
	if v < 0 {
		v += 1 << 32
	}
	return v, nil
}

// parseChar is charin: the first byte (empty string: the zero byte), or
// a \ooo octal escape.
func parseChar(s string) string {
	if len(s) == 4 && s[0] == '\\' && isOctal(s[1]) && isOctal(s[2]) && isOctal(s[3]) {
		return string([]byte{(s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')})
	}
	if s == "" {
		return ""
	}
	return s[:1]
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// parseBytea is byteain: \x hex (whitespace between pairs) or the escape
// format.
func parseBytea(s string) ([]byte, error) {
	if strings.HasPrefix(s, `\x`) {
		out := make([]byte, 0, (len(s)-2)/2)
		h := s[2:]
		for i := 0; i < len(h); {
			c := h[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				i++
				continue
			}
			if i+1 >= len(h) {
				return nil, errorf(CodeInvalidParam, "invalid hexadecimal data: odd number of digits")
			}
			b, err := hex.DecodeString(h[i : i+2])
			if err != nil {
				bad := h[i]
				if _, e := hex.DecodeString(string([]byte{h[i], '0'})); e == nil {
					bad = h[i+1]
				}
				return nil, errorf(CodeInvalidParam, "invalid hexadecimal digit: \"%c\"", bad)
			}
			out = append(out, b[0])
			i += 2
		}
		return out, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return nil, errorf(CodeInvalidText, "invalid input syntax for type bytea") // byteain names no value
		}
	}
	return out, nil
}

// parseUUID is uuid_in: 32 hex digits, an optional hyphen after each
// group of four, optionally in braces.
func parseUUID(s string) (UUIDVal, error) {
	var u UUIDVal
	src := s
	braces := strings.HasPrefix(src, "{")
	if braces {
		src = src[1:]
	}
	for i := 0; i < 16; i++ {
		if len(src) < 2 || !isHex(src[0]) || !isHex(src[1]) {
			return u, syntaxErr(UUID, s)
		}
		b, _ := hex.DecodeString(src[:2])
		u[i] = b[0]
		src = src[2:]
		if len(src) > 0 && src[0] == '-' && i%2 == 1 && i < 15 {
			src = src[1:]
		}
	}
	if braces {
		if !strings.HasPrefix(src, "}") {
			return u, syntaxErr(UUID, s)
		}
		src = src[1:]
	}
	if src != "" {
		return u, syntaxErr(UUID, s)
	}
	return u, nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// Out is the output function of type oid under the pinned session
// settings: the canonical text the mirror stores.
func Out(oid OID, v Value) string { return string(AppendOut(nil, oid, v)) }

// AppendOut appends Out(oid, v) to dst.
func AppendOut(dst []byte, oid OID, v Value) []byte {
	switch x := v.(type) {
	case bool:
		if x {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float64:
		if oid == Float4 {
			return appendFloat(dst, x, 32)
		}
		return appendFloat(dst, x, 64)
	case *Decimal:
		return append(dst, x.String()...)
	case string:
		if oid == Char {
			return appendChar(dst, x)
		}
		return append(dst, x...)
	case EnumVal:
		return append(dst, x.Label...) // enum_out
	case []byte:
		dst = append(dst, `\x`...)
		return hex.AppendEncode(dst, x)
	case UUIDVal:
		var buf [32]byte
		hex.Encode(buf[:], x[:])
		dst = append(dst, buf[0:8]...)
		dst = append(dst, '-')
		dst = append(dst, buf[8:12]...)
		dst = append(dst, '-')
		dst = append(dst, buf[12:16]...)
		dst = append(dst, '-')
		dst = append(dst, buf[16:20]...)
		dst = append(dst, '-')
		return append(dst, buf[20:32]...)
	case InetVal:
		return appendInet(dst, x, oid == Cidr) // inet.go
	case MacaddrVal:
		return appendMac(dst, x[:]) // macaddr.go
	case Macaddr8Val:
		return appendMac(dst, x[:])
	case MoneyVal:
		return appendMoney(dst, x) // money.go
	case BitVal:
		return appendBit(dst, x) // bit.go
	case RangeVal:
		return AppendRangeOut(dst, oid, x, nil) // rangetype.go
	case DateVal:
		return appendDate(dst, x)
	case TimestampVal:
		return appendTimestamp(dst, x, oid == Timestamptz)
	case TimeVal:
		return appendClock(dst, int64(x))
	case TimeTZVal:
		dst = appendClock(dst, x.Micros)
		return appendZone(dst, x.Zone)
	case IntervalVal:
		return appendInterval(dst, x)
	case *Array:
		if IsVector(oid) {
			return appendVector(dst, x) // vector.go
		}
		return appendArray(dst, x) // array.go
	case *Record:
		return appendRecord(dst, x) // record.go
	}
	return dst
}

// appendChar is charout: the byte, or \ooo for a byte with the high bit
// set; the zero byte prints as the empty string.
func appendChar(dst []byte, s string) []byte {
	if s == "" || s[0] == 0 {
		return dst
	}
	c := s[0]
	if c&0x80 != 0 {
		return append(dst, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
	}
	return append(dst, c)
}
