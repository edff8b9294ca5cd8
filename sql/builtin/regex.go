package builtin

import (
	"regexp"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// PostgreSQL's regular expressions are Henry Spencer's ARE; Go's regexp
// is RE2. They agree on a subset, and only that subset is run: literal
// characters, escaped ASCII punctuation, '.', bracket expressions of literal
// ASCII characters and ASCII ranges (optionally negated), '^' and '$',
// groups (capturing or (?:…)), '|', and the greedy quantifiers * + ? {n} {n,} {n,m} (m ≤ 255)
// applied to an atom. Everything else (class escapes such as \d \w \b,
// [[:alpha:]], back-references, non-greedy quantifiers, (?…) options,
// embedded options) is refused with 0A000. Go runs the pattern with
// (?s) (ARE's '.' and [^…] match newlines outside newline-sensitive
// mode) and leftmost-longest matching (an ARE whose quantifiers are all
// greedy prefers the longest match).

// checkARE says whether p is in the subset; the error names what is not.
func checkARE(p string) error {
	depth := 0
	atom := false // an atom precedes (a quantifier may follow)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\\':
			if i+1 >= len(p) {
				return errorf(CodeInvalidRegex, "invalid regular expression: invalid escape \\ sequence")
			}
			n := p[i+1]
			// ASCII punctuation: a literal character in ARE and RE2.
			if !strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", rune(n)) {
				return unsupported("the regular expression escape \\%c", n)
			}
			i++
			atom = true
		case '.':
			atom = true
		case '[':
			j, err := checkBracket(p, i)
			if err != nil {
				return err
			}
			i = j
			atom = true
		case '(':
			if strings.HasPrefix(p[i+1:], "?:") {
				i += 2 // a non-capturing group: the same in Go
			} else if i+1 < len(p) && (p[i+1] == '?' || p[i+1] == '*') {
				return unsupported("regular expression options and special groups (?…)")
			}
			depth++
			atom = false
		case ')':
			if depth == 0 {
				return unsupported("an unmatched ) in a regular expression")
			}
			depth--
			atom = true
		case '|':
			atom = false
		case '^', '$':
			atom = false
		case '*', '+', '?':
			if !atom {
				return unsupported("a quantifier without an atom in a regular expression")
			}
			if i+1 < len(p) && strings.ContainsRune("*+?{", rune(p[i+1])) {
				return unsupported("non-greedy or repeated quantifiers in a regular expression")
			}
			atom = false
		case '{':
			if !atom {
				return unsupported("a { without an atom in a regular expression")
			}
			j := strings.IndexByte(p[i:], '}')
			if j < 0 || !validBound(p[i+1:i+j]) {
				return unsupported("this {…} in a regular expression")
			}
			i += j
			if i+1 < len(p) && strings.ContainsRune("*+?{", rune(p[i+1])) {
				return unsupported("non-greedy or repeated quantifiers in a regular expression")
			}
			atom = false
		case ']', '}':
			return unsupported("an unescaped %c in a regular expression", c)
		default:
			if c < 0x20 || c == 0x7f {
				return unsupported("control characters in a regular expression")
			}
			atom = true
		}
	}
	if depth != 0 {
		return unsupported("an unmatched ( in a regular expression")
	}
	return nil
}

// validBound is n, n, or n,m with 0 ≤ n ≤ m ≤ 255.
func validBound(s string) bool {
	lo, hi, comma := s, "", false
	if k := strings.IndexByte(s, ','); k >= 0 {
		lo, hi, comma = s[:k], s[k+1:], true
	}
	num := func(t string) (int, bool) {
		if t == "" || len(t) > 3 {
			return 0, false
		}
		n := 0
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return 0, false
			}
			n = n*10 + int(t[i]-'0')
		}
		return n, n <= 255
	}
	l, ok := num(lo)
	if !ok {
		return false
	}
	if comma && hi != "" {
		h, ok := num(hi)
		return ok && l <= h
	}
	return true
}

// checkBracket checks a bracket expression starting at p[i] == '[' and
// returns the index of its closing ']'.
func checkBracket(p string, i int) (int, error) {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	start := j
	for ; j < len(p); j++ {
		c := p[j]
		switch {
		case c == ']' && j > start:
			return j, nil
		case c == ']', c == '[', c == '\\':
			return 0, unsupported("this bracket expression in a regular expression")
		case c >= 0x80 || c < 0x20:
			return 0, unsupported("non-ASCII characters in a bracket expression")
		case c == '-':
			if j == start || j+1 >= len(p) || p[j+1] == ']' || p[j-1] == '-' {
				return 0, unsupported("this use of - in a bracket expression")
			}
			if p[j+1] < p[j-1] || p[j+1] == '[' || p[j+1] == '\\' || p[j+1] >= 0x80 {
				return 0, unsupported("this range in a bracket expression")
			}
		}
	}
	return 0, errorf(CodeInvalidRegex, "invalid regular expression: brackets [] not balanced")
}

// compileARE compiles p (checked to be in the subset) for Go.
func compileARE(p string, icase bool) (*regexp.Regexp, error) {
	if err := checkARE(p); err != nil {
		return nil, err
	}
	flags := "(?s)"
	if icase {
		flags = "(?si)"
	}
	re, err := regexp.Compile(flags + p)
	if err != nil {
		return nil, unsupported("the regular expression %q", p)
	}
	re.Longest()
	return re, nil
}

func regexFor(p string, icase bool, subject string) (*regexp.Regexp, error) {
	if icase && (!isASCII(p) || !isASCII(subject)) {
		return nil, unsupported("case-insensitive matching of non-ASCII text")
	}
	return compileARE(p, icase)
}

func (r *Registry) addRegex() {
	match := func(icase, neg bool) Impl {
		return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			re, err := regexFor(str(a[1]), icase, str(a[0]))
			if err != nil {
				return nil, err
			}
			return re.MatchString(str(a[0])) != neg, nil
		}
	}
	for _, op := range []struct {
		op, fn     string
		icase, neg bool
	}{{"~", "textregexeq", false, false}, {"!~", "textregexne", false, true}, {"~*", "texticregexeq", true, false}, {"!~*", "texticregexne", true, true}} {
		r.def(op.fn, bo, match(op.icase, op.neg), tx, tx)
		r.ops[op.op] = []string{op.fn}
	}
	if yes, known := r.atLeast(150000); yes || !known { // regexp_like is PostgreSQL 15's
		r.def("regexp_like", bo, match(false, false), tx, tx)
		r.def("regexp_like", bo, func(c *Context, a []types.Value, p []OID) (types.Value, error) {
			icase, _, err := regexFlags(str(a[2]), false)
			if err != nil {
				return nil, err
			}
			return match(icase, false)(c, a[:2], p[:2])
		}, tx, tx, tx)
	}
	r.addRegexFuncs()                                                                         // regexfuncs.go
	r.addSimilar()                                                                            // similar.go
	for _, n := range []string{"regexp_matches", "regexp_split_to_table", "similar_escape"} { // the set-returning ones: sql/plan binds them
		r.missing[n] = true
	}
}

// regexFlags reads the flags sidecar supports: i (case-insensitive), g
// (global, when allowed), c (case-sensitive).
func regexFlags(f string, allowG bool) (icase, global bool, err error) {
	for _, c := range f {
		switch {
		case c == 'i':
			icase = true
		case c == 'c':
			icase = false
		case c == 'g' && allowG:
			global = true
		case strings.ContainsRune("bceimnpqstwx", c):
			return false, false, unsupported("the regular expression flag %c", c)
		default:
			return false, false, errorf(CodeInvalidParameter, "invalid regular expression option: \"%c\"", c)
		}
	}
	return icase, global, nil
}
