package builtin

import (
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// similarToEscape is PostgreSQL's similar_to_escape(pattern [, escape]):
// the SQL regular expression of SIMILAR TO rewritten as the ARE the
// ~ operator runs (the parser turns a SIMILAR TO b ESCAPE c into
// a ~ similar_to_escape(b, c)). The whole pattern is wrapped in
// ^(?: … )$; % becomes .*, _ becomes ., ( a non-capturing group, and
// \ . ^ $ are escaped; an escaped character is taken literally, and
// escape-double-quote separates the parts SUBSTRING returns. esc ""
// is no escape character; hasEsc false is the default backslash.
func similarToEscape(pat, esc string, hasEsc bool) (string, error) {
	re, _, err := similarParts(pat, esc, hasEsc)
	return re, err
}

// similarParts is similarToEscape's rewriting and, for a pattern with
// escape-double-quote separators, the rewritten text of its parts: the
// part before the first separator, between the two, and after the
// second ("" when there is one separator only).
func similarParts(pat, esc string, hasEsc bool) (string, []string, error) {
	e, useEsc := '\\', true
	if hasEsc {
		switch utf8.RuneCountInString(esc) {
		case 0:
			useEsc = false
		case 1:
			e, _ = utf8.DecodeRuneInString(esc)
		default:
			return "", nil, &Error{Code: CodeInvalidEscape, Message: "invalid escape string", Hint: "Escape string must be empty or one character."}
		}
	}
	var b strings.Builder
	b.WriteString("^(?:")
	afterEscape, inClass, quotes := false, false, 0
	var cuts []int // where each part starts and ends in b
	for _, c := range pat {
		switch {
		case afterEscape:
			afterEscape = false
			if c == '"' && !inClass {
				cuts = append(cuts, b.Len())
				switch quotes {
				case 0:
					b.WriteString("){1,1}?(")
				case 1:
					b.WriteString("){1,1}(?:")
				default:
					return "", nil, errorf("2200C", "SQL regular expression may not contain more than two escape-double-quote separators")
				}
				quotes++
				cuts = append(cuts, b.Len())
				continue
			}
			b.WriteByte('\\')
			b.WriteRune(c)
		case useEsc && c == e:
			afterEscape = true
		case inClass:
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			if c == ']' {
				inClass = false
			}
		case c == '[':
			b.WriteRune(c)
			inClass = true
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteByte('.')
		case c == '(':
			b.WriteString("(?:")
		case c == '\\', c == '.', c == '^', c == '$':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	cuts = append(cuts, b.Len())
	b.WriteString(")$")
	re := b.String()
	if quotes == 0 {
		return re, nil, nil
	}
	parts := []string{re[len("^(?:"):cuts[0]], re[cuts[1]:cuts[2]], ""}
	if quotes == 2 {
		parts[2] = re[cuts[3]:cuts[4]]
	}
	return re, parts, nil
}

func (r *Registry) addSimilar() {
	r.def("similar_to_escape", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return wrapText(similarToEscape(str(a[0]), "", false))
	}, tx)
	r.def("similar_to_escape", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return wrapText(similarToEscape(str(a[0]), str(a[1]), true))
	}, tx, tx)
}

func wrapText(s string, err error) (types.Value, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}
