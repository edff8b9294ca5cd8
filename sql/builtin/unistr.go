package builtin

import (
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// unistr is PostgreSQL's unistr(text) (varlena.c): the string with its
// Unicode escapes decoded — \\ a backslash, \XXXX and \uXXXX four hex
// digits, \+XXXXXX six, \UXXXXXXXX eight — a UTF-16 surrogate pair
// (written as two escapes) combined into one code point. The errors
// are PostgreSQL's: a code point outside 1…10FFFF (22023), a lone or
// misplaced surrogate and any other backslash (42601). The server
// encoding is UTF-8, as the library assumes throughout (chr).
func unistr(s string) (types.Value, error) {
	var b strings.Builder
	badPair := &Error{Code: "42601", Message: "invalid Unicode surrogate pair"}
	var first rune // a high surrogate waiting for its low half
	hexes := func(at, n int) (rune, bool) {
		if at+n > len(s) {
			return 0, false
		}
		var v rune
		for _, c := range []byte(s[at : at+n]) {
			switch {
			case c >= '0' && c <= '9':
				v = v<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				v = v<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return v, true
	}
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			if first != 0 {
				return nil, badPair
			}
			b.WriteByte(s[i])
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			if first != 0 {
				return nil, badPair
			}
			b.WriteByte('\\')
			i += 2
			continue
		}
		var c rune
		var ok bool
		var width int
		if c, ok = hexes(i+1, 4); ok {
			width = 5
		} else if i+1 < len(s) && s[i+1] == 'u' {
			c, ok = hexes(i+2, 4)
			width = 6
		} else if i+1 < len(s) && s[i+1] == '+' {
			c, ok = hexes(i+2, 6)
			width = 8
		} else if i+1 < len(s) && s[i+1] == 'U' {
			c, ok = hexes(i+2, 8)
			width = 10
		}
		if !ok {
			return nil, &Error{Code: "42601", Message: "invalid Unicode escape", Hint: `Unicode escapes must be \XXXX, \+XXXXXX, \uXXXX, or \UXXXXXXXX.`}
		}
		if c <= 0 || c > 0x10FFFF {
			return nil, errorf(CodeInvalidParameter, "invalid Unicode code point: %04X", uint32(c))
		}
		switch {
		case first != 0:
			if c < 0xDC00 || c > 0xDFFF {
				return nil, badPair
			}
			b.WriteRune(((first & 0x3FF) << 10) + (c & 0x3FF) + 0x10000)
			first = 0
		case c >= 0xDC00 && c <= 0xDFFF:
			return nil, badPair
		case c >= 0xD800 && c <= 0xDBFF:
			first = c
		default:
			b.WriteRune(c)
		}
		i += width
	}
	if first != 0 {
		return nil, badPair
	}
	return b.String(), nil
}

// addUnistr registers unistr, PostgreSQL 14's.
func (r *Registry) addUnistr() {
	if yes, known := r.atLeast(140000); !yes && known {
		return
	}
	r.def("unistr", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) { return unistr(str(a[0])) }, tx)
}
