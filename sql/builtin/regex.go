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
// applied to an atom; the class escapes \d \s \w (negated too), the
// flags and embedded options are rewritten into it first (regexopts.go).
// Everything else (\b \y \m, [[:alpha:]], back-references, non-greedy
// quantifiers, (?…) groups) is refused with 0A000. Go runs the pattern
// with (?s) (ARE's '.' and [^…] match newlines outside newline-sensitive
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
		case c >= 0x80 || c < 0x20 && (c < '\t' || c > '\r'): // tab to carriage return: literal in both
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

// compileARE compiles p (its options applied to f) for Go; the form
// says what its subjects must be checked for (checkSubject).
func compileARE(c *Context, p string, f reFlags) (*regexp.Regexp, *areForm, error) {
	e := c.regexCache().get(reKey{pat: p, f: f}, func() *reCompiled {
		re, form, err := compileAREUncached(p, f)
		return &reCompiled{re: re, form: form, err: err}
	})
	return e.re, e.form, e.err
}

// compileAREUncached is compileARE without the statement's cache.
func compileAREUncached(p string, f reFlags) (*regexp.Regexp, *areForm, error) {
	form, err := rewriteARE(p, f)
	if err != nil {
		return nil, nil, err
	}
	if err := checkARE(form.pat); err != nil {
		return nil, nil, err
	}
	if err := checkARESize(form.pat); err != nil { // regexsize.go
		return nil, nil, err
	}
	re, err := form.compile(form.pat)
	if err != nil {
		return nil, nil, err
	}
	return re, form, nil
}

// regexFor compiles p under f for a match against subject.
func regexFor(c *Context, p string, f reFlags, subject string) (*regexp.Regexp, *areForm, error) {
	re, form, err := compileARE(c, p, f)
	if err != nil {
		return nil, nil, err
	}
	if err := subjectAllowed(form, p, subject); err != nil {
		return nil, nil, err
	}
	return re, form, nil
}

// subjectAllowed refuses a subject whose match against p (compiled to
// form) could differ
// between Go and PostgreSQL (non-ASCII text under case-insensitive
// matching, checkSubject's cases).
func subjectAllowed(form *areForm, p, subject string) error {
	if form.flags.icase && (!isASCII(p) || !isASCII(subject)) {
		return unsupported("case-insensitive matching of non-ASCII text")
	}
	return form.checkSubject(subject)
}

func (r *Registry) addRegex() {
	match := func(icase, neg bool) Impl {
		return func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
			f := reFlags{icase: icase}
			if len(a) > 2 {
				var err error
				if f, err = reNoGlobal(str(a[2]), "regexp_like()"); err != nil {
					return nil, err
				}
			}
			re, _, err := regexFor(c, str(a[1]), f, str(a[0]))
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
		r.def("regexp_like", bo, match(false, false), tx, tx, tx)
	}
	r.addRegexFuncs()                                                                         // regexfuncs.go
	r.addSimilar()                                                                            // similar.go
	for _, n := range []string{"regexp_matches", "regexp_split_to_table", "similar_escape"} { // the set-returning ones: sql/plan binds them
		r.missing[n] = true
	}
}

// regexFlags reads a flags argument (regex.go's options; g, global,
// when allowed).
func regexFlags(fl string, allowG bool) (reFlags, error) {
	var f reFlags
	for _, c := range fl {
		if c == 'g' && allowG {
			f.global = true
			continue
		}
		ok, err := f.set(c)
		if err != nil {
			return f, err
		}
		if !ok {
			return f, errorf(CodeInvalidParameter, "invalid regular expression option: \"%c\"", c)
		}
	}
	return f, nil
}
