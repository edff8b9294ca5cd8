package types

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// The bit string types (PostgreSQL's utils/adt/varbit.c): bit(n), of
// exactly n bits, and bit varying(n), of at most n. Their typmod is n
// itself (not n + 4); a bare bit in a type name is bit(1).
const (
	Bit    OID = 1560
	Varbit OID = 1562
)

// CodeLengthMismatch is string_data_length_mismatch.
const CodeLengthMismatch = "22026"

// maxBitLen is VARBITMAXLEN (MaxAttrSize's bits).
const maxBitLen = 10485760 * 8

// BitVal is a bit string: N bits, most significant first, packed into
// B's bytes ((N+7)/8 of them; the pad bits of the last are zero). A
// string keeps the value comparable.
type BitVal struct {
	N int32
	B string
}

// BitAt is bit i (0 the first).
func (v BitVal) BitAt(i int) int { return int(v.B[i/8]>>(7-uint(i%8))) & 1 }

// NewBitVal builds a bit string of n bits from b, clearing the pad bits.
func NewBitVal(n int, b []byte) BitVal {
	b = b[:(n+7)/8]
	if r := n % 8; r != 0 {
		b[len(b)-1] &= byte(0xFF << uint(8-r))
	}
	return BitVal{N: int32(n), B: string(b)}
}

// parseBit is bit_in and varbit_in without a typmod (In applies it as
// an explicit cast): a leading b or B reads binary digits, x or X
// hexadecimal ones, else binary.
func parseBit(s string) (BitVal, error) {
	hex := false
	sp := s
	if len(s) > 0 {
		switch s[0] {
		case 'b', 'B':
			sp = s[1:]
		case 'x', 'X':
			hex, sp = true, s[1:]
		}
	}
	n := len(sp)
	if hex {
		if n > maxBitLen/4 {
			return BitVal{}, errorf("54000", "bit string length exceeds the maximum allowed (%d)", maxBitLen)
		}
		n *= 4
	} else if n > maxBitLen {
		return BitVal{}, errorf("54000", "bit string length exceeds the maximum allowed (%d)", maxBitLen)
	}
	b := make([]byte, (n+7)/8)
	if !hex {
		for i := 0; i < len(sp); i++ {
			switch sp[i] {
			case '1':
				b[i/8] |= 0x80 >> uint(i%8)
			case '0':
			default:
				return BitVal{}, errorf(CodeInvalidText, "\"%s\" is not a valid binary digit", firstChar(sp[i:]))
			}
		}
		return BitVal{N: int32(n), B: string(b)}, nil
	}
	for i := 0; i < len(sp); i++ {
		d := hexVal(int(sp[i]))
		if d < 0 {
			return BitVal{}, errorf(CodeInvalidText, "\"%s\" is not a valid hexadecimal digit", firstChar(sp[i:]))
		}
		b[i/2] |= byte(d) << uint(4*(1-i%2))
	}
	return BitVal{N: int32(n), B: string(b)}, nil
}

// firstChar is the first UTF-8 character of s (pg_mblen's).
func firstChar(s string) string {
	for i := range s {
		if i > 0 {
			return s[:i]
		}
	}
	return s
}

// appendBit is bit_out and varbit_out: a 0 or 1 per bit.
func appendBit(dst []byte, v BitVal) []byte {
	for i := 0; i < int(v.N); i++ {
		dst = append(dst, byte('0'+v.BitAt(i)))
	}
	return dst
}

// appendBitSend is bit_send and varbit_send: the length as an int32,
// then the bytes.
func appendBitSend(dst []byte, v BitVal) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(v.N))
	return append(dst, v.B...)
}

// recvBit is bit_recv and varbit_recv (before the typmod): the length,
// then its bytes; the pad bits cleared.
func recvBit(b []byte) (Value, error) {
	if len(b) < 4 {
		return nil, errorf(CodeInvalidBinary, "insufficient data left in message")
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 || n > maxBitLen {
		return nil, errorf(CodeInvalidBinary, "invalid length in external bit string")
	}
	if len(b)-4 < int(n+7)/8 {
		return nil, errorf(CodeInvalidBinary, "insufficient data left in message")
	}
	if len(b)-4 > int(n+7)/8 {
		return nil, errorf(CodeInvalidBinary, "incorrect binary data format")
	}
	return NewBitVal(int(n), append([]byte(nil), b[4:]...)), nil
}

// CompareBit is bit_cmp: the common bytes, then the length.
func CompareBit(x, y BitVal) int {
	n := min(len(x.B), len(y.B))
	if c := strings.Compare(x.B[:n], y.B[:n]); c != 0 {
		return c
	}
	return cmpInt(int64(x.N), int64(y.N))
}

// applyBitMod is bit() and varbit(), the length coercions: bit(n) takes
// exactly n bits — an implicit or assignment coercion of another length
// fails, an explicit cast truncates or pads with zeros on the right —
// and varbit(n) at most n (an explicit cast truncates).
func applyBitMod(oid OID, mod int32, v BitVal, explicit bool) (BitVal, error) {
	if mod <= 0 || v.N == mod || oid == Varbit && v.N <= mod {
		return v, nil
	}
	if !explicit {
		if oid == Bit {
			return BitVal{}, errorf(CodeLengthMismatch, "bit string length %d does not match type bit(%d)", v.N, mod)
		}
		return BitVal{}, errorf(CodeLengthMismatch, "bit string too long for type bit varying(%d)", mod)
	}
	b := make([]byte, (mod+7)/8)
	copy(b, v.B)
	return NewBitVal(int(mod), b), nil
}

// BitFromInt is bitfromint4 and bitfromint8: the low n bits of x (n the
// typmod, 1 without one), x sign-extended past its width.
func BitFromInt(x int64, width int, mod int32) BitVal {
	n := int(mod)
	if n <= 0 {
		n = 1
	}
	b := make([]byte, (n+7)/8)
	for i := 0; i < n; i++ {
		shift := n - 1 - i // this bit's weight
		var bit int64
		if shift >= width {
			bit = (x >> uint(width-1)) & 1 // the sign
		} else {
			bit = (x >> uint(shift)) & 1
		}
		if bit != 0 {
			b[i/8] |= 0x80 >> uint(i%8)
		}
	}
	return BitVal{N: int32(n), B: string(b)}
}

// BitToInt is bittoint4 and bittoint8: the bits as an unsigned number
// of width bits, read as signed; longer strings are out of range.
func BitToInt(v BitVal, width int) (int64, error) {
	if int(v.N) > width {
		if width == 32 {
			return 0, errorf(CodeOutOfRange, "integer out of range")
		}
		return 0, errorf(CodeOutOfRange, "bigint out of range")
	}
	var u uint64
	for i := 0; i < int(v.N); i++ {
		u = u<<1 | uint64(v.BitAt(i))
	}
	if width == 32 {
		return int64(int32(uint32(u))), nil
	}
	return int64(u), nil
}

// bitModText is the typmod's text in a type name: "(n)".
func bitModText(mod int32) string { return "(" + strconv.Itoa(int(mod)) + ")" }
