package types

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// UnescapeJSONString reads the JSON string literal at s's start (s[0]
// is its opening quote): its decoded value and the literal's length in
// bytes. It decodes JSON's escapes (\" \\ \/ \b \f \n \r \t \uXXXX) and
// combines a \u surrogate pair into one character, as json_lex_string
// and jsonpath's scanner do; ok is false for an unterminated literal,
// another escape or a lone surrogate. \u0000 decodes to a NUL byte:
// callers decide (jsonb and jsonpath reject it, a json datum keeps it).
// One decoder serves the json functions (sql/builtin's jsonnode.go) and
// jsonpath's parser.
func UnescapeJSONString(s string) (val string, n int, ok bool) {
	var b strings.Builder
	hex4 := func(i int) (rune, bool) {
		if i+4 > len(s) {
			return 0, false
		}
		v, err := strconv.ParseUint(s[i:i+4], 16, 32)
		return rune(v), err == nil
	}
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c == '\\':
			if i+1 >= len(s) {
				return "", 0, false
			}
			e := s[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := hex4(i)
				if !ok {
					return "", 0, false
				}
				i += 4
				if utf16.IsSurrogate(r) {
					// Only a high surrogate followed by a low one is a
					// character; PostgreSQL refuses a lone surrogate.
					r2, ok := rune(0), false
					if strings.HasPrefix(s[i:], `\u`) {
						r2, ok = hex4(i + 2)
					}
					d := utf16.DecodeRune(r, r2)
					if !ok || d == utf8.RuneError {
						return "", 0, false
					}
					i += 6
					r = d
				}
				b.WriteRune(r)
			default:
				return "", 0, false
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, false
}
