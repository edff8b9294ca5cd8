package types

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"
)

// Send is the binary send function of type oid: the bytes a client that
// asks for format code 1 receives.
func Send(oid OID, v Value) ([]byte, error) { return AppendSend(nil, oid, v) }

// AppendSend appends Send(oid, v) to dst.
func AppendSend(dst []byte, oid OID, v Value) ([]byte, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case int64:
		switch oid {
		case Int2:
			return binary.BigEndian.AppendUint16(dst, uint16(x)), nil
		case Int4, Oid:
			return binary.BigEndian.AppendUint32(dst, uint32(x)), nil
		}
		return binary.BigEndian.AppendUint64(dst, uint64(x)), nil
	case float64:
		if oid == Float4 {
			return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(x))), nil // NaN: see Float8Bits
		}
		return binary.BigEndian.AppendUint64(dst, Float8Bits(x)), nil
	case *Decimal:
		return appendNumericSend(dst, x), nil
	case string:
		if oid == JSONB || oid == JSONPath {
			dst = append(dst, 1) // the version byte of jsonb_send, jsonpath_send
		}
		if oid == Char {
			if x == "" {
				return append(dst, 0), nil
			}
			return append(dst, x[0]), nil
		}
		return append(dst, x...), nil
	case []byte:
		return append(dst, x...), nil
	case UUIDVal:
		return append(dst, x[:]...), nil
	case InetVal:
		return appendInetSend(dst, x, oid == Cidr), nil // inet.go
	case MacaddrVal:
		return append(dst, x[:]...), nil
	case Macaddr8Val:
		return append(dst, x[:]...), nil
	case MoneyVal:
		return appendMoneySend(dst, x), nil // money.go
	case BitVal:
		return appendBitSend(dst, x), nil // bit.go
	case RangeVal:
		return appendRangeSend(dst, oid, x) // rangetype.go
	case DateVal:
		return binary.BigEndian.AppendUint32(dst, uint32(x)), nil
	case TimeVal:
		return binary.BigEndian.AppendUint64(dst, uint64(x)), nil
	case TimeTZVal:
		dst = binary.BigEndian.AppendUint64(dst, uint64(x.Micros))
		return binary.BigEndian.AppendUint32(dst, uint32(x.Zone)), nil
	case TimestampVal:
		return binary.BigEndian.AppendUint64(dst, uint64(x)), nil
	case IntervalVal:
		dst = binary.BigEndian.AppendUint64(dst, uint64(x.Micros))
		dst = binary.BigEndian.AppendUint32(dst, uint32(x.Days))
		return binary.BigEndian.AppendUint32(dst, uint32(x.Months)), nil
	case *Array:
		if IsVector(oid) {
			return appendVectorSend(dst, x) // vector.go
		}
		return appendArraySend(dst, x) // array.go
	case *Record:
		return appendRecordSend(dst, x) // record.go
	}
	return nil, errorf(CodeUnsupported, "sidecar cannot send %s in binary", NameOf(oid))
}

// numeric_send's sign words.
const (
	numPos    = 0x0000
	numNeg    = 0x4000
	numNaN    = 0xC000
	numPInf   = 0xD000
	numNInf   = 0xF000
	nbase     = 10000
	decDigits = 4
)

// appendNumericSend is numeric_send: ndigits, weight, sign, dscale, then
// base-10000 digits (no leading or trailing zero digits).
func appendNumericSend(dst []byte, n *Decimal) []byte {
	var sign uint16
	switch {
	case n.NaN:
		sign = numNaN
	case n.Inf > 0:
		sign = numPInf
	case n.Inf < 0:
		sign = numNInf
	}
	if sign != 0 {
		// numeric_send sends a special's header bits in dscale: 0x20
		// for the infinities (as PostgreSQL 14+ does), 0 for NaN.
		var ds byte
		if n.Inf != 0 {
			ds = 0x20
		}
		return append(dst, 0, 0, 0, 0, byte(sign>>8), byte(sign), 0, ds)
	}
	if n.V.Sign() < 0 {
		sign = numNeg
	}
	// Group the integer part (left-padded) and the fraction (right-padded)
	// in base-10000 digits around the decimal point.
	abs := new(big.Int).Abs(&n.V).String()
	sc := int(n.Scale)
	var ip, fp string
	if len(abs) > sc {
		ip, fp = abs[:len(abs)-sc], abs[len(abs)-sc:]
	} else {
		fp = strings.Repeat("0", sc-len(abs)) + abs
	}
	ip = strings.TrimLeft(ip, "0")
	ip = strings.Repeat("0", (decDigits-len(ip)%decDigits)%decDigits) + ip
	fp += strings.Repeat("0", (decDigits-len(fp)%decDigits)%decDigits)
	s := ip + fp
	var digits []uint16
	for i := 0; i < len(s); i += decDigits {
		var d uint16
		for _, c := range s[i : i+decDigits] {
			d = d*10 + uint16(c-'0')
		}
		digits = append(digits, d)
	}
	weight := len(ip)/decDigits - 1
	for len(digits) > 0 && digits[0] == 0 {
		digits = digits[1:]
		weight--
	}
	for len(digits) > 0 && digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		weight = 0
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(digits)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
	dst = binary.BigEndian.AppendUint16(dst, sign)
	dst = binary.BigEndian.AppendUint16(dst, uint16(n.Scale))
	for _, d := range digits {
		dst = binary.BigEndian.AppendUint16(dst, d)
	}
	return dst
}

// Recv is the binary receive function of type oid followed by the typmod
// coercion: a parameter a client sent with format code 1.
func Recv(oid OID, mod int32, b []byte) (Value, error) {
	v, err := recv(oid, b)
	if err != nil {
		return nil, err
	}
	return ApplyMod(oid, mod, v, false)
}

func recv(oid OID, b []byte) (Value, error) {
	if IsVector(oid) {
		return nil, errorf(CodeUnsupported, "sidecar does not receive %s in binary", NameOf(oid))
	}
	if oid == RecordOID {
		return recvRecord(b) // record.go
	}
	if IsArray(oid) {
		return recvArray(oid, b) // array.go
	}
	need := func(n int) error {
		if len(b) != n {
			return errorf(CodeInvalidBinary, "incorrect binary data format")
		}
		return nil
	}
	be := binary.BigEndian
	switch oid {
	case Bool:
		if err := need(1); err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case Int2:
		if err := need(2); err != nil {
			return nil, err
		}
		return int64(int16(be.Uint16(b))), nil
	case Int4:
		if err := need(4); err != nil {
			return nil, err
		}
		return int64(int32(be.Uint32(b))), nil
	case Oid:
		if err := need(4); err != nil {
			return nil, err
		}
		return int64(be.Uint32(b)), nil
	case Int8:
		if err := need(8); err != nil {
			return nil, err
		}
		return int64(be.Uint64(b)), nil
	case Float4:
		if err := need(4); err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(be.Uint32(b))), nil
	case Float8:
		if err := need(8); err != nil {
			return nil, err
		}
		return math.Float64frombits(be.Uint64(b)), nil
	case Numeric:
		return recvNumeric(b)
	case Text, Varchar, Bpchar, Name, JSON, Unknown:
		if !utf8.Valid(b) {
			return nil, errorf(CodeCharNotInRep, "invalid byte sequence for encoding \"UTF8\"")
		}
		if oid == JSON {
			return in(JSON, string(b))
		}
		if oid == Name {
			return truncateBytes(string(b), nameDataLen-1), nil
		}
		return string(b), nil
	case JSONB:
		if len(b) == 0 || b[0] != 1 {
			return nil, errorf(CodeInvalidBinary, "unsupported jsonb version number")
		}
		return parseJSONB(string(b[1:]))
	case JSONPath:
		if len(b) == 0 || b[0] != 1 {
			return nil, errorf(CodeInvalidBinary, "unsupported jsonpath version number: %d", len(b))
		}
		return Dialect{}.parseJSONPathValue(string(b[1:]))
	case Char:
		if len(b) == 0 || b[0] == 0 {
			return "", nil
		}
		return string(b[:1]), nil
	case Bytea:
		return append([]byte(nil), b...), nil
	case Inet, Cidr:
		return recvInet(b, oid == Cidr) // inet.go
	case Macaddr:
		if err := need(6); err != nil {
			return nil, err
		}
		return MacaddrVal(b), nil
	case Macaddr8:
		return recvMacaddr8(b) // macaddr.go
	case Money:
		if err := need(8); err != nil {
			return nil, err
		}
		return MoneyVal(be.Uint64(b)), nil
	case Bit, Varbit:
		return recvBit(b) // bit.go
	case Int4range, Int8range, Numrange, Daterange, Tsrange, Tstzrange:
		return recvRange(oid, b) // rangetype.go
	case UUID:
		if err := need(16); err != nil {
			return nil, err
		}
		var u UUIDVal
		copy(u[:], b)
		return u, nil
	case Date:
		if err := need(4); err != nil {
			return nil, err
		}
		return DateVal(int32(be.Uint32(b))), nil
	case Time:
		if err := need(8); err != nil {
			return nil, err
		}
		us := int64(be.Uint64(b))
		if us < 0 || us > usecsPerDay {
			return nil, errorf(CodeDatetimeField, "time out of range")
		}
		return TimeVal(us), nil
	case Timetz:
		if err := need(12); err != nil {
			return nil, err
		}
		return TimeTZVal{Micros: int64(be.Uint64(b)), Zone: int32(be.Uint32(b[8:]))}, nil
	case Timestamp, Timestamptz:
		if err := need(8); err != nil {
			return nil, err
		}
		ts := TimestampVal(be.Uint64(b))
		if ts != TimestampPosInf && ts != TimestampNegInf && !tsInRange(int64(ts)) {
			return nil, errorf(CodeDatetimeField, "timestamp out of range")
		}
		return ts, nil
	case Interval:
		if err := need(16); err != nil {
			return nil, err
		}
		return IntervalVal{Micros: int64(be.Uint64(b)), Days: int32(be.Uint32(b[8:])), Months: int32(be.Uint32(b[12:]))}, nil
	}
	return nil, errorf(CodeUnsupported, "sidecar cannot receive %s in binary", NameOf(oid))
}

func recvNumeric(b []byte) (Value, error) {
	bad := errorf(CodeInvalidBinary, "invalid numeric binary data")
	if len(b) < 8 {
		return nil, bad
	}
	be := binary.BigEndian
	nd := int(be.Uint16(b))
	weight := int(int16(be.Uint16(b[2:])))
	sign := be.Uint16(b[4:])
	dscale := int32(be.Uint16(b[6:]))
	switch sign {
	case numNaN:
		return &Decimal{NaN: true}, nil
	case numPInf:
		return &Decimal{Inf: 1}, nil
	case numNInf:
		return &Decimal{Inf: -1}, nil
	case numPos, numNeg:
	default:
		return nil, errorf(CodeInvalidBinary, "invalid sign in external \"numeric\" value")
	}
	if len(b) != 8+2*nd || dscale > maxNumericScale {
		return nil, bad
	}
	// value = Σ digit_i × 10000^(weight-i)
	v := new(big.Int)
	base := big.NewInt(nbase)
	for i := 0; i < nd; i++ {
		d := be.Uint16(b[8+2*i:])
		if d >= nbase {
			return nil, errorf(CodeInvalidBinary, "invalid digit in external \"numeric\" value")
		}
		v.Mul(v, base)
		v.Add(v, big.NewInt(int64(d)))
	}
	// v is scaled by 10000^(nd-1-weight); bring it to dscale.
	shift := int(dscale) - decDigits*(nd-1-weight)
	n := &Decimal{Scale: dscale}
	if shift >= 0 {
		n.V.Mul(v, pow10(shift))
	} else {
		n.V.Set(roundDiv(v, pow10(-shift)))
	}
	if sign == numNeg {
		n.V.Neg(&n.V)
	}
	return n, nil
}
