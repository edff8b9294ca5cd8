package builtin

import (
	"regexp"
	"strings"
)

// PostgreSQL's regular expression options and class escapes, rewritten
// into the subset regex.go runs on Go's regexp (a pattern's "Go form"):
//
//   - the flags argument's options and a pattern's embedded options
//     (a leading (?xyz), the ***= and ***: directors): i/c case, n/m
//     newline-sensitive, p partial ('.' and [^…] stop at newlines),
//     w inverse partial (^ and $ match at newlines), s (neither),
//     x expanded syntax (white space and # comments dropped outside
//     brackets), t tight syntax, q literal pattern; b and e (BRE and
//     ERE) are refused;
//   - the class escapes \d \s \w and \D \S \W, outside brackets and
//     \d \s \w inside them: the ASCII classes of the C locale
//     ([0-9], [\t-\r ], [0-9A-Z_a-z]); PostgreSQL's classes follow the
//     collation's locale for other characters (glibc's iswalnum('é') is
//     true), so a subject with a non-ASCII character is refused;
//   - in a newline-sensitive mode, a negated bracket [^…] also excludes
//     the newline and '.' stops at it (Go without (?s)); ^ and $ at
//     newlines (Go's (?m)). Searches after the string's start see the
//     whole string (a '^' matches after a newline only), so a '^' is
//     run there only as the pattern's first character with no
//     alternation (every match then starts at a line start); a negated
//     class escape (\D \S \W) against a subject with a newline is
//     refused there (majors differ in whether it matches the newline).

// reFlags are the options a pattern is compiled with.
type reFlags struct {
	icase, global bool
	nlStop        bool // '.' and [^…] do not match a newline (n, m, p)
	nlAnchor      bool // ^ and $ also match at newlines (n, m, w)
	expanded      bool // x: white space and comments are ignored
	quote         bool // q: the pattern is a literal string
}

// set applies one option letter; ok is false for a letter that is
// not a regular expression option.
func (f *reFlags) set(c rune) (ok bool, err error) {
	switch c {
	case 'i':
		f.icase = true
	case 'c':
		f.icase = false
	case 'n', 'm':
		f.nlStop, f.nlAnchor = true, true
	case 'p':
		f.nlStop, f.nlAnchor = true, false
	case 'w':
		f.nlStop, f.nlAnchor = false, true
	case 's':
		f.nlStop, f.nlAnchor = false, false
	case 'x':
		f.expanded = true
	case 't':
		f.expanded = false
	case 'q':
		f.quote = true
	case 'b', 'e':
		return true, unsupported("the regular expression flag %c (basic and extended POSIX syntax)", c)
	default:
		return false, nil
	}
	return true, nil
}

// goFlags are the Go flags running a Go form under f.
func (f reFlags) goFlags() string {
	s := "(?"
	if !f.nlStop {
		s += "s"
	}
	if f.icase {
		s += "i"
	}
	if f.nlAnchor {
		s += "m"
	}
	if s == "(?" {
		return ""
	}
	return s + ")"
}

// areForm is a pattern rewritten for Go.
type areForm struct {
	pat   string  // the Go form (in regex.go's subset)
	flags reFlags // the flags with the embedded options applied
	// classes: the pattern has a class escape; negClass: a negated one.
	classes, negClass bool
	// lineStart: newline-anchored and the pattern starts with its only
	// '^' (every match starts at a line start).
	lineStart bool
}

// isAREspace is PostgreSQL's white space in expanded syntax.
func isAREspace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// classBody is the bracket contents of class escape c (d, s or w).
func classBody(c byte) string {
	switch c {
	case 'd':
		return "0-9"
	case 's':
		return "\t-\r "
	default:
		return "0-9A-Z_a-z"
	}
}

// rewriteARE applies p's embedded options to f and rewrites p for Go.
func rewriteARE(p string, f reFlags) (*areForm, error) {
	switch { // a q flag makes the directors literal too
	case f.quote:
	case strings.HasPrefix(p, "***="):
		p, f.quote = p[4:], true
	case strings.HasPrefix(p, "***:"):
		p = p[4:]
	}
	// Embedded options are "(?" and a letter (lexstart's iscalpha);
	// "(?:" and the other groups are the pattern's.
	if !f.quote && strings.HasPrefix(p, "(?") && len(p) > 2 && (p[2] >= 0x80 || p[2]|0x20 >= 'a' && p[2]|0x20 <= 'z') {
		j := strings.IndexByte(p, ')')
		if j < 0 {
			return nil, unsupported("regular expression options and special groups (?…)")
		}
		for _, c := range p[2:j] {
			ok, err := f.set(c)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, unsupported("regular expression options and special groups (?…)")
			}
		}
		p = p[j+1:]
	}
	form := &areForm{flags: f}
	if f.quote {
		var b strings.Builder
		for i := 0; i < len(p); i++ {
			c := p[i]
			switch {
			case c < 0x20 || c == 0x7f:
				return nil, unsupported("control characters in a regular expression")
			case strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0:
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		form.pat = b.String()
		return form, nil
	}
	var b strings.Builder
	anchors, later, alt := 0, false, false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case f.expanded && isAREspace(c):
			continue
		case f.expanded && c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			continue
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			i++
			switch {
			case n == 'd' || n == 's' || n == 'w':
				form.classes = true
				b.WriteString("[" + classBody(n) + "]")
			case n == 'D' || n == 'S' || n == 'W':
				form.classes, form.negClass = true, true
				b.WriteString("[^" + classBody(n+'a'-'A') + "]")
			case f.expanded && n == ' ':
				b.WriteByte(' ')
			case f.expanded && isAREspace(n):
				return nil, unsupported("an escaped control character in a regular expression")
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '[':
			j, err := rewriteBracket(&b, p, i, f, form)
			if err != nil {
				return nil, err
			}
			i = j
		case c == '^':
			later = later || b.Len() > 0
			anchors++
			b.WriteByte(c)
		case c == '|':
			alt = true
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	form.pat = b.String()
	if f.nlAnchor && anchors > 0 {
		if anchors > 1 || later || alt {
			return nil, unsupported("'^' other than as the first character of a newline-sensitive regular expression")
		}
		form.lineStart = true
	}
	return form, nil
}

// rewriteBracket writes the bracket expression at p[i] in Go form
// (class escapes expanded, a newline excluded from a negated one when
// newline-sensitive) and returns the index of its ']'. What the
// subset does not run is copied for checkBracket to refuse.
func rewriteBracket(b *strings.Builder, p string, i int, f reFlags, form *areForm) (int, error) {
	b.WriteByte('[')
	j := i + 1
	neg := j < len(p) && p[j] == '^'
	if neg {
		b.WriteByte('^')
		j++
	}
	if j < len(p) && p[j] == ']' {
		b.WriteByte(']')
		j++
	}
	for ; j < len(p); j++ {
		c := p[j]
		switch {
		case c == ']':
			if neg && f.nlStop {
				b.WriteByte('\n')
			}
			b.WriteByte(']')
			return j, nil
		case c == '\\' && j+1 < len(p) && strings.IndexByte("dsw", p[j+1]) >= 0:
			if p[j-1] == '-' || j+2 < len(p) && p[j+2] == '-' {
				return 0, unsupported("a range next to a class escape in a bracket expression")
			}
			form.classes = true
			b.WriteString(classBody(p[j+1]))
			j++
		case c == '\\' || c == '[':
			return 0, unsupported("this bracket expression in a regular expression")
		default:
			b.WriteByte(c)
		}
	}
	return 0, errorf(CodeInvalidRegex, "invalid regular expression: brackets [] not balanced")
}

// checkSubject refuses a subject whose answer under form could
// depend on what Go and PostgreSQL do differently.
func (form *areForm) checkSubject(s string) error {
	if form.classes && !isASCII(s) {
		return unsupported("class escapes (\\d \\s \\w) against non-ASCII text (their classes follow the collation's locale)")
	}
	if form.negClass && form.flags.nlStop && strings.IndexByte(s, '\n') >= 0 {
		return unsupported("negated class escapes (\\D \\S \\W) against a newline in newline-sensitive mode")
	}
	return nil
}

// compile compiles the Go form with its flags (leftmost-longest).
func (form *areForm) compile(pat string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(form.flags.goFlags() + pat)
	if err != nil {
		return nil, unsupported("the regular expression %q", pat)
	}
	re.Longest()
	return re, nil
}
