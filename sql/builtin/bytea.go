package builtin

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"math"
	"math/bits"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// The bytea functions of PostgreSQL's varlena.c and encode.c, byte for
// byte: concatenation (byteacat, the || operator), LIKE (bytealike,
// byteanlike, like_escape), substring/substr, overlay, position, the trim
// family, get/set_bit and get/set_byte, bit_count, encode/decode (hex,
// base64, escape) and the SHA-2 digests.

func byt(a types.Value) []byte { return a.([]byte) }

func (r *Registry) addBytea() {
	r.addFloatSend()
	r.def("byteacat", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		if err := allocLimit(int64(len(byt(a[0])) + len(byt(a[1])))); err != nil {
			return nil, err
		}
		return append(append(make([]byte, 0, len(byt(a[0]))+len(byt(a[1]))), byt(a[0])...), byt(a[1])...), nil
	}, bya, bya)
	r.def("bytealike", bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		m, err := byteLike(byt(a[0]), byt(a[1]))
		return m == likeTrue, err
	}, bya, bya)
	r.def("byteanlike", bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		m, err := byteLike(byt(a[0]), byt(a[1]))
		return m != likeTrue, err
	}, bya, bya)
	r.def("like_escape", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return byteaLikeEscape(byt(a[0]), byt(a[1]))
	}, bya, bya)
	for _, n := range []string{"substr", "substring"} {
		r.def(n, bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return byteaSubstring(byt(a[0]), i64(a[1]), 0, false)
		}, bya, i4)
		r.def(n, bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return byteaSubstring(byt(a[0]), i64(a[1]), i64(a[2]), true)
		}, bya, i4, i4)
	}
	r.def("overlay", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return byteaOverlay(byt(a[0]), byt(a[1]), i64(a[2]), int64(len(byt(a[1]))))
	}, bya, bya, i4)
	r.def("overlay", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return byteaOverlay(byt(a[0]), byt(a[1]), i64(a[2]), i64(a[3]))
	}, bya, bya, i4, i4)
	r.def("position", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return int64(bytes.Index(byt(a[0]), byt(a[1])) + 1), nil
	}, bya, bya)
	trim := func(left, right bool) Impl {
		return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			s, set := byt(a[0]), byt(a[1])
			if len(s) == 0 || len(set) == 0 {
				return s, nil
			}
			var in [256]bool
			for _, c := range set {
				in[c] = true
			}
			for left && len(s) > 0 && in[s[0]] {
				s = s[1:]
			}
			for right && len(s) > 0 && in[s[len(s)-1]] {
				s = s[:len(s)-1]
			}
			return s, nil
		}
	}
	r.def("btrim", bya, trim(true, true), bya, bya)
	r.def("ltrim", bya, trim(true, false), bya, bya)
	r.def("rtrim", bya, trim(false, true), bya, bya)
	r.def("get_bit", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s, n := byt(a[0]), i64(a[1])
		if n < 0 || n >= int64(len(s))*8 {
			return nil, errorf(CodeArraySubscript, "index %d out of valid range, 0..%d", n, int64(len(s))*8-1)
		}
		return int64(s[n/8]>>(n%8)) & 1, nil
	}, bya, i8)
	r.def("set_bit", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s, n, bit := byt(a[0]), i64(a[1]), i64(a[2])
		if n < 0 || n >= int64(len(s))*8 {
			return nil, errorf(CodeArraySubscript, "index %d out of valid range, 0..%d", n, int64(len(s))*8-1)
		}
		if bit != 0 && bit != 1 {
			return nil, errorf(CodeInvalidParameter, "new bit must be 0 or 1")
		}
		out := bytes.Clone(s)
		out[n/8] = out[n/8]&^(1<<(n%8)) | byte(bit)<<(n%8)
		return out, nil
	}, bya, i8, i4)
	r.def("get_byte", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s, n := byt(a[0]), i64(a[1])
		if n < 0 || n >= int64(len(s)) {
			return nil, errorf(CodeArraySubscript, "index %d out of valid range, 0..%d", n, int64(len(s))-1)
		}
		return int64(s[n]), nil
	}, bya, i4)
	r.def("set_byte", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		s, n := byt(a[0]), i64(a[1])
		if n < 0 || n >= int64(len(s)) {
			return nil, errorf(CodeArraySubscript, "index %d out of valid range, 0..%d", n, int64(len(s))-1)
		}
		out := bytes.Clone(s)
		out[n] = byte(i64(a[2]))
		return out, nil
	}, bya, i4, i4)
	r.def("bit_count", i8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n := 0
		for _, c := range byt(a[0]) {
			n += bits.OnesCount8(c)
		}
		return int64(n), nil
	}, bya)
	r.def("encode", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return byteaEncode(byt(a[0]), str(a[1]))
	}, bya, tx)
	r.def("decode", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return byteaDecode(str(a[0]), str(a[1]))
	}, tx, tx)
	digest := func(sum func([]byte) []byte) Impl {
		return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return sum(byt(a[0])), nil }
	}
	r.def("sha224", bya, digest(func(b []byte) []byte { s := sha256.Sum224(b); return s[:] }), bya)
	r.def("sha256", bya, digest(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }), bya)
	r.def("sha384", bya, digest(func(b []byte) []byte { s := sha512.Sum384(b); return s[:] }), bya)
	r.def("sha512", bya, digest(func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }), bya)
}

// byteaSubstring is bytea_substring (1-based start s, length l when
// hasLen).
func byteaSubstring(b []byte, s, l int64, hasLen bool) (types.Value, error) {
	s1 := max(s, 1)
	end := int64(len(b))
	if hasLen {
		if l < 0 {
			return nil, errorf(CodeSubstringError, "negative substring length not allowed")
		}
		if e := s + l; e <= math.MaxInt32 {
			if e < 1 {
				return []byte{}, nil
			}
			end = min(end, e-1)
		}
	}
	if s1 > int64(len(b)) || end < s1 {
		return []byte{}, nil
	}
	return b[s1-1 : end], nil
}

// byteaOverlay is byteaoverlay: placing in b from start for n bytes.
func byteaOverlay(b, placing []byte, start, n int64) (types.Value, error) {
	if start <= 0 {
		return nil, errorf(CodeSubstringError, "negative substring length not allowed")
	}
	if start+n > math.MaxInt32 || start+n < math.MinInt32 {
		return nil, errorf(CodeOutOfRange, "integer out of range")
	}
	head, _ := byteaSubstring(b, 1, start-1, true)
	tail, _ := byteaSubstring(b, start+n, 0, false)
	h, t := head.([]byte), tail.([]byte)
	if err := allocLimit(int64(len(h) + len(placing) + len(t))); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(h)+len(placing)+len(t))
	return append(append(append(out, h...), placing...), t...), nil
}

// The outcomes of MatchText (like_match.c).
const (
	likeFalse = iota
	likeTrue
	likeAbort
)

// byteLike is like_match.c's MatchText over bytes (bytealike): _ is one
// byte, % any run, \ escapes the next byte.
func byteLike(t, p []byte) (int, error) {
	if len(p) == 1 && p[0] == '%' {
		return likeTrue, nil
	}
	for len(t) > 0 && len(p) > 0 {
		switch p[0] {
		case '\\':
			p = p[1:]
			if len(p) == 0 {
				return likeFalse, errorf(CodeInvalidEscape, "LIKE pattern must not end with escape character")
			}
			if p[0] != t[0] {
				return likeFalse, nil
			}
		case '%':
			p = p[1:]
			for len(p) > 0 {
				if p[0] == '%' {
					p = p[1:]
				} else if p[0] == '_' {
					if len(t) == 0 {
						return likeAbort, nil
					}
					t, p = t[1:], p[1:]
				} else {
					break
				}
			}
			if len(p) == 0 {
				return likeTrue, nil
			}
			first := p[0]
			if first == '\\' {
				if len(p) < 2 {
					return likeFalse, errorf(CodeInvalidEscape, "LIKE pattern must not end with escape character")
				}
				first = p[1]
			}
			for len(t) > 0 {
				if t[0] == first {
					m, err := byteLike(t, p)
					if err != nil || m != likeFalse {
						return m, err
					}
				}
				t = t[1:]
			}
			return likeAbort, nil
		case '_':
			t, p = t[1:], p[1:]
			continue
		default:
			if p[0] != t[0] {
				return likeFalse, nil
			}
		}
		t, p = t[1:], p[1:]
	}
	if len(t) > 0 {
		return likeFalse, nil
	}
	for len(p) > 0 && p[0] == '%' {
		p = p[1:]
	}
	if len(p) == 0 {
		return likeTrue, nil
	}
	return likeAbort, nil
}

// byteaLikeEscape is like_escape(bytea, bytea) (SB_do_like_escape): the
// pattern rewritten to escape with \.
func byteaLikeEscape(p, e []byte) (types.Value, error) {
	var out []byte
	if len(e) == 0 {
		for _, c := range p {
			if c == '\\' {
				out = append(out, '\\')
			}
			out = append(out, c)
		}
		return append([]byte{}, out...), nil
	}
	if len(e) != 1 {
		return nil, &Error{Code: CodeInvalidEscape, Message: "invalid escape string", Hint: "Escape string must be empty or one character."}
	}
	if e[0] == '\\' {
		return p, nil
	}
	after := false
	for _, c := range p {
		switch {
		case c == e[0] && !after:
			out = append(out, '\\')
			after = true
		case c == '\\':
			out = append(out, '\\')
			if !after {
				out = append(out, '\\')
			}
			after = false
		default:
			out = append(out, c)
			after = false
		}
	}
	return append([]byte{}, out...), nil
}

// encodingOf is pg_find_encoding's format name, case-insensitively.
func encodingOf(name string) (string, error) {
	switch n := strings.ToLower(name); n {
	case "hex", "base64", "escape":
		return n, nil
	case "base64url":
		return "", unsupported("the encoding base64url (its existence depends on the PostgreSQL major)")
	}
	return "", errorf(CodeInvalidParameter, "unrecognized encoding: \"%s\"", name)
}

const hexDigits = "0123456789abcdef"
const b64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// byteaEncode is encode(bytea, format).
func byteaEncode(b []byte, format string) (types.Value, error) {
	f, err := encodingOf(format)
	if err != nil {
		return nil, err
	}
	if err := allocLimit(int64(len(b)) * 4); err != nil {
		return nil, err
	}
	var out []byte
	switch f {
	case "hex":
		out = make([]byte, 0, 2*len(b))
		for _, c := range b {
			out = append(out, hexDigits[c>>4], hexDigits[c&15])
		}
	case "escape":
		for _, c := range b {
			switch {
			case c == 0 || c >= 0x80:
				out = append(out, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
			case c == '\\':
				out = append(out, '\\', '\\')
			default:
				out = append(out, c)
			}
		}
	case "base64":
		// pg_b64_encode of encode.c: a newline after each 76 characters.
		var buf uint32
		pos, n := 2, 0
		for _, c := range b {
			buf |= uint32(c) << (uint(pos) << 3)
			pos--
			if pos < 0 {
				out = append(out, b64Digits[buf>>18&0x3f], b64Digits[buf>>12&0x3f], b64Digits[buf>>6&0x3f], b64Digits[buf&0x3f])
				pos, buf = 2, 0
				n += 4
			}
			if n >= 76 {
				out = append(out, '\n')
				n = 0
			}
		}
		if pos != 2 {
			out = append(out, b64Digits[buf>>18&0x3f], b64Digits[buf>>12&0x3f])
			if pos == 0 {
				out = append(out, b64Digits[buf>>6&0x3f])
			} else {
				out = append(out, '=')
			}
			out = append(out, '=')
		}
	}
	return string(out), nil
}

// byteaDecode is decode(text, format).
func byteaDecode(s, format string) (types.Value, error) {
	f, err := encodingOf(format)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(s))
	switch f {
	case "hex":
		return hexDecode(s)
	case "escape":
		for i := 0; i < len(s); {
			switch {
			case s[i] != '\\':
				out = append(out, s[i])
				i++
			case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7':
				out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
				i += 4
			case i+1 < len(s) && s[i+1] == '\\':
				out = append(out, '\\')
				i += 2
			default:
				return nil, errorf(CodeInvalidText, "invalid input syntax for type %s", "bytea")
			}
		}
	case "base64":
		var buf uint32
		pos, end := 0, 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				continue
			}
			var v int
			if c == '=' {
				if end == 0 {
					switch pos {
					case 2:
						end = 1
					case 3:
						end = 2
					default:
						return nil, errorf(CodeInvalidParameter, "unexpected \"=\" while decoding base64 sequence")
					}
				}
			} else {
				v = strings.IndexByte(b64Digits, c)
				if v < 0 || c == 0 {
					if c >= 0x80 {
						return nil, unsupported("decode(…, 'base64') of a non-ASCII character")
					}
					return nil, errorf(CodeInvalidParameter, "invalid symbol \"%c\" found while decoding base64 sequence", c)
				}
			}
			buf = buf<<6 + uint32(v)
			pos++
			if pos == 4 {
				out = append(out, byte(buf>>16))
				if end == 0 || end > 1 {
					out = append(out, byte(buf>>8))
				}
				if end == 0 || end > 2 {
					out = append(out, byte(buf))
				}
				buf, pos = 0, 0
			}
		}
		if pos != 0 {
			return nil, &Error{Code: CodeInvalidParameter, Message: "invalid base64 end sequence", Hint: "Input data is missing padding, is truncated, or is otherwise corrupted."}
		}
	}
	return out, nil
}

// hexDecode is hex_decode: pairs of hex digits, whitespace between pairs.
func hexDecode(s string) ([]byte, error) {
	out := make([]byte, 0, len(s)/2)
	val := func(c byte) int {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0')
		case c >= 'a' && c <= 'f':
			return int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			return int(c-'A') + 10
		}
		return -1
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			i++
			continue
		}
		hi := val(c)
		if hi < 0 {
			if c >= 0x80 {
				return nil, unsupported("decode(…, 'hex') of a non-ASCII character")
			}
			return nil, errorf(CodeInvalidParameter, "invalid hexadecimal digit: \"%c\"", c)
		}
		i++
		if i >= len(s) {
			return nil, errorf(CodeInvalidParameter, "invalid hexadecimal data: odd number of digits")
		}
		lo := val(s[i])
		if lo < 0 {
			if s[i] >= 0x80 {
				return nil, unsupported("decode(…, 'hex') of a non-ASCII character")
			}
			return nil, errorf(CodeInvalidParameter, "invalid hexadecimal digit: \"%c\"", s[i])
		}
		i++
		out = append(out, byte(hi<<4|lo))
	}
	return out, nil
}

// SQLSTATEs of the bytea functions.
const (
	CodeArraySubscript = "2202E" // array_subscript_error
	CodeInvalidText    = "22P02" // invalid_text_representation
)

// floatSend is float8send and float4send: the value's IEEE bits, big
// endian, as pq_sendfloat8/pq_sendfloat4 write them. A NaN is refused:
// PostgreSQL's NaNs carry the bits of the operation that made them
// (get_float8_nan's, the CPU's default NaN), which the library does not
// keep.
func floatSend(v float64, float4 bool) (types.Value, error) {
	if math.IsNaN(v) {
		return nil, unsupported("the binary form of a float NaN")
	}
	if float4 {
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(v))), nil
	}
	return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
}

func (r *Registry) addFloatSend() {
	r.def("float8send", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return floatSend(f8Of(a[0]), false) }, f8)
	r.def("float4send", bya, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return floatSend(f8Of(a[0]), true) }, types.Float4)
}
