package builtin

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// This file is PostgreSQL's regexp_count, regexp_instr, regexp_substr,
// regexp_match, regexp_split_to_array and regexp_replace with a start
// position and occurrence, over the ARE subset regex.go runs on Go's
// regexp. They share PostgreSQL's matching loop (setup_regexp_matches,
// replace_text_regexp): each search starts where the previous match
// ended, one character further after an empty match, with the whole
// string as context (so '^' matches at its start only); positions are
// in characters.

// areMatcher is one compiled pattern of the subset: re for a search
// from the string's start (or, lineStart, from a line's), noBOL (its
// '^' never matching) for a search from further on.
type areMatcher struct {
	re, noBOL *regexp.Regexp
	groups    int  // capture groups
	lineStart bool // every match starts at a line start (areForm)
}

// subject is a string being searched, with its characters' byte
// offsets (off[i] is character i's; off[n] is len(s)).
type subject struct {
	s   string
	off []int
}

func newSubject(s string) *subject {
	off := make([]int, 0, len(s)+1)
	for i := range s {
		off = append(off, i)
	}
	return &subject{s: s, off: append(off, len(s))}
}

// chars is the string's length in characters.
func (t *subject) chars() int { return len(t.off) - 1 }

// char is the character index of byte offset b (a character boundary).
func (t *subject) char(b int) int {
	lo, hi := 0, len(t.off)-1
	for lo < hi {
		m := (lo + hi) / 2
		if t.off[m] < b {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// text is the characters [so, eo).
func (t *subject) text(so, eo int) string { return t.s[t.off[so]:t.off[eo]] }

// compileMatcher compiles p (its options applied to f) for a search
// of subject s. groups says whether the caller reads capture groups:
// those are run only where Go's choice of submatches is PostgreSQL's.
func compileMatcher(c *Context, p string, f reFlags, groups bool, s string) (*areMatcher, error) {
	e := c.regexCache().get(reKey{pat: p, f: f, matcher: true}, func() *reCompiled {
		re, form, err := compileAREUncached(p, f)
		if err != nil {
			return &reCompiled{err: err}
		}
		out := &reCompiled{re: re, form: form, noBOL: re}
		if re.NumSubexp() > 0 {
			out.subErr = checkSubmatches(form.pat)
		}
		if strings.Contains(form.pat, "^") && !form.flags.nlAnchor {
			out.noBOL, out.err = form.compile(neverBOL(form.pat))
		}
		return out
	})
	if e.err != nil {
		return nil, e.err
	}
	if err := subjectAllowed(e.form, p, s); err != nil {
		return nil, err
	}
	m := &areMatcher{re: e.re, noBOL: e.noBOL, groups: e.re.NumSubexp(), lineStart: e.form.lineStart}
	if groups && m.groups > 0 && e.subErr != nil {
		return nil, e.subErr
	}
	return m, nil
}

// neverBOL is p (in the subset) with every '^' anchor replaced by an
// atom that matches nothing: searched from past the string's start,
// PostgreSQL's '^' cannot match.
func neverBOL(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			b.WriteString(p[i : i+2])
			i++
		case '[':
			j, _ := checkBracket(p, i)
			b.WriteString(p[i : j+1])
			i = j
		case '^':
			b.WriteString(`[^\x00-\x{10FFFF}]`)
		default:
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// checkSubmatches refuses a pattern whose capture groups Go might fill
// differently from PostgreSQL: Go picks, among the longest matches, the
// one a backtracking search finds first; PostgreSQL gives each
// subexpression, earlier ones first, its longest span. They agree when
// there is no alternation and no group is repeated (a group may be
// optional when nothing inside it is quantified).
func checkSubmatches(p string) error {
	refuse := unsupported("capture groups of the regular expression %q (Go's choice among equally long matches differs from PostgreSQL's)", p)
	var open []int        // byte offsets of the open groups' '('
	var quantified []bool // whether something inside the open group is quantified
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			i, _ = checkBracket(p, i)
		case '|':
			return refuse
		case '(':
			if strings.HasPrefix(p[i+1:], "?:") {
				i += 2
			}
			open = append(open, i)
			quantified = append(quantified, false)
		case ')':
			q := quantified[len(quantified)-1]
			open, quantified = open[:len(open)-1], quantified[:len(quantified)-1]
			if i+1 < len(p) && strings.IndexByte("*+?{", p[i+1]) >= 0 {
				if p[i+1] != '?' || q {
					return refuse
				}
			}
			if q && len(quantified) > 0 {
				quantified[len(quantified)-1] = true
			}
		case '*', '+', '?', '{':
			if len(quantified) > 0 {
				quantified[len(quantified)-1] = true
			}
		}
	}
	return nil
}

// find is the leftmost-longest match at or after character start:
// the character offsets of the match and of each capture group (-1 for
// a group that did not take part), or nil.
func (m *areMatcher) find(t *subject, start int) []int {
	if start > t.chars() {
		return nil
	}
	re := m.re
	base := t.off[start]
	switch {
	case m.lineStart && start > 0 && t.s[base-1] != '\n':
		// A match starts at a line start: the next one is after the
		// next newline (Go's '^' would match at the search's start).
		k := strings.IndexByte(t.s[base:], '\n')
		if k < 0 {
			return nil
		}
		base += k + 1
	case start > 0:
		re = m.noBOL
	}
	loc := re.FindStringSubmatchIndex(t.s[base:])
	if loc == nil {
		return nil
	}
	out := make([]int, len(loc))
	for i, b := range loc {
		out[i] = -1
		if b >= 0 {
			out[i] = t.char(base + b)
		}
	}
	return out
}

// matches is setup_regexp_matches: every match from character start on
// (the first only unless global); with ignoreDegenerate (the split
// functions), empty matches at the start or end of the string or right
// after the previous match are skipped.
func (m *areMatcher) matches(t *subject, start int, global, ignoreDegenerate bool) [][]int {
	var out [][]int
	prevEnd := 0
	for {
		loc := m.find(t, start)
		if loc == nil {
			break
		}
		if !ignoreDegenerate || loc[0] < t.chars() && loc[1] > prevEnd {
			out = append(out, loc)
		}
		prevEnd = loc[1]
		if !global {
			break
		}
		start = prevEnd
		if loc[0] == loc[1] {
			start++
		}
	}
	return out
}

// reParamErr is 22023 for an out-of-range optional argument.
func reParamErr(name string, v int64) error {
	return errorf(CodeInvalidParameter, "invalid value for parameter \"%s\": %d", name, v)
}

// reNoGlobal is regexFlags for a function that refuses 'g'.
func reNoGlobal(flags, fn string) (reFlags, error) {
	f, err := regexFlags(flags, true)
	if err == nil && f.global {
		err = errorf(CodeInvalidParameter, "%s does not support the \"global\" option", fn)
	}
	return f, err
}

// optInt is the optional int argument a[i], def when absent.
func optInt(a []types.Value, i int, def int64) int64 {
	if i < len(a) {
		return i64(a[i])
	}
	return def
}

func (r *Registry) addRegexFuncs() {
	r.addRegexMatch()
	if yes, known := r.atLeast(150000); !yes && known {
		return // the functions below are PostgreSQL 15's
	}
	// regexp_count(string, pattern [, start [, flags]])
	count := func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		start := optInt(a, 2, 1)
		if start <= 0 {
			return nil, reParamErr("start", start)
		}
		flags := ""
		if len(a) > 3 {
			flags = str(a[3])
		}
		f, err := reNoGlobal(flags, "regexp_count()")
		if err != nil {
			return nil, err
		}
		m, err := compileMatcher(c, str(a[1]), f, false, str(a[0]))
		if err != nil {
			return nil, err
		}
		return int64(len(m.matches(newSubject(str(a[0])), int(min(start-1, 1<<31)), true, false))), nil
	}
	r.def("regexp_count", i4, count, tx, tx)
	r.def("regexp_count", i4, count, tx, tx, i4)
	r.def("regexp_count", i4, count, tx, tx, i4, tx)

	// regexp_instr(string, pattern [, start [, N [, endoption [, flags [, subexpr]]]]])
	// and regexp_substr(string, pattern [, start [, N [, flags [, subexpr]]]])
	nth := func(instr bool) Impl {
		return func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
			fi, si := 4, 5 // flags' and subexpr's argument index
			if instr {
				fi, si = 5, 6
			}
			start, n, end, sub := optInt(a, 2, 1), optInt(a, 3, 1), int64(0), optInt(a, si, 0)
			if start <= 0 {
				return nil, reParamErr("start", start)
			}
			if n <= 0 {
				return nil, reParamErr("n", n)
			}
			if instr {
				if end = optInt(a, 4, 0); end != 0 && end != 1 {
					return nil, reParamErr("endoption", end)
				}
			}
			if sub < 0 {
				return nil, reParamErr("subexpr", sub)
			}
			flags, fn := "", "regexp_substr()"
			if instr {
				fn = "regexp_instr()"
			}
			if fi < len(a) {
				flags = str(a[fi])
			}
			f, err := reNoGlobal(flags, fn)
			if err != nil {
				return nil, err
			}
			m, err := compileMatcher(c, str(a[1]), f, sub > 0, str(a[0]))
			if err != nil {
				return nil, err
			}
			t := newSubject(str(a[0]))
			ms := m.matches(t, int(min(start-1, 1<<31)), true, false)
			groups := int64(1) // PostgreSQL's npatterns
			if sub > 0 && m.groups > 0 {
				groups = int64(m.groups)
			}
			var none types.Value
			if instr {
				none = int64(0)
			}
			if n > int64(len(ms)) || sub > groups {
				return none, nil
			}
			k := 0
			if sub > 0 && m.groups > 0 {
				k = int(sub)
			}
			loc := ms[n-1]
			so, eo := loc[2*k], loc[2*k+1]
			if so < 0 || eo < 0 {
				return none, nil
			}
			if !instr {
				return t.text(so, eo), nil
			}
			if end == 1 {
				return int64(eo + 1), nil
			}
			return int64(so + 1), nil
		}
	}
	instr, substr := nth(true), nth(false)
	for n := 2; n <= 7; n++ {
		args := []OID{tx, tx, i4, i4, i4, tx, i4}[:n]
		r.def("regexp_instr", i4, instr, args...)
		if n <= 6 {
			r.def("regexp_substr", tx, substr, []OID{tx, tx, i4, i4, tx, i4}[:n]...)
		}
	}

	ext := func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		start, n := i64(a[3]), int64(-1)
		if start <= 0 {
			return nil, reParamErr("start", start)
		}
		if len(a) > 4 {
			if n = i64(a[4]); n < 0 {
				return nil, reParamErr("n", n)
			}
		}
		flags := ""
		if len(a) > 5 {
			flags = str(a[5])
		}
		return regexReplaceAt(c, a, flags, start, n)
	}
	r.def("regexp_replace", tx, ext, tx, tx, tx, i4)
	r.def("regexp_replace", tx, ext, tx, tx, tx, i4, i4)
	r.def("regexp_replace", tx, ext, tx, tx, tx, i4, i4, tx)
}

// addRegexMatch registers the regexp functions every major has.
func (r *Registry) addRegexMatch() {
	// regexp_match(string, pattern [, flags]): the first match's groups
	// (or the whole match) as text[], NULL without a match.
	textArr := types.ArrayOf(tx)
	match := func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		flags := ""
		if len(a) > 2 {
			flags = str(a[2])
		}
		f, err := regexFlags(flags, true)
		if err != nil {
			return nil, err
		}
		if f.global {
			return nil, &Error{Code: CodeInvalidParameter, Message: "regexp_match() does not support the \"global\" option",
				Hint: "Use the regexp_matches function instead."}
		}
		ms, err := regexpMatches(c, str(a[0]), str(a[1]), f)
		if err != nil || len(ms) == 0 {
			return nil, err
		}
		return ms[0], nil
	}
	r.def("regexp_match", textArr, match, tx, tx)
	r.def("regexp_match", textArr, match, tx, tx, tx)

	// regexp_split_to_array(string, pattern [, flags])
	split := func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		flags := ""
		if len(a) > 2 {
			flags = str(a[2])
		}
		parts, err := RegexpSplit(c, str(a[0]), str(a[1]), flags, "regexp_split_to_array()")
		if err != nil {
			return nil, err
		}
		return &types.Array{Elem: tx, Elems: parts}, nil
	}
	r.def("regexp_split_to_array", textArr, split, tx, tx)
	r.def("regexp_split_to_array", textArr, split, tx, tx, tx)

	// regexp_replace(source, pattern, replacement [, flags]) and
	// (source, pattern, replacement, start [, N [, flags]])
	r.def("regexp_replace", tx, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		return regexReplaceAt(c, a, "", 1, -1)
	}, tx, tx, tx)
	r.def("regexp_replace", tx, func(c *Context, a []types.Value, _ []OID) (types.Value, error) {
		return regexReplaceAt(c, a, str(a[3]), 1, -1)
	}, tx, tx, tx, tx)
}

// regexpMatches is the matches of p in s (every one when global) as
// regexp_match and regexp_matches give them: a text[] of the capture
// groups (NULL for one that did not take part), or of the whole match
// when p has no group.
func regexpMatches(c *Context, s, p string, f reFlags) ([]types.Value, error) {
	m, err := compileMatcher(c, p, f, true, s)
	if err != nil {
		return nil, err
	}
	t := newSubject(s)
	var out []types.Value
	for _, loc := range m.matches(t, 0, f.global, false) {
		a := &types.Array{Elem: tx}
		if m.groups == 0 {
			a.Elems = []types.Value{t.text(loc[0], loc[1])}
		}
		for k := 1; k <= m.groups; k++ {
			if loc[2*k] < 0 {
				a.Elems = append(a.Elems, nil)
			} else {
				a.Elems = append(a.Elems, t.text(loc[2*k], loc[2*k+1]))
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// RegexpMatches is the set regexp_matches(s, p [, flags]) returns: one
// text[] per match (per match of the first only without 'g').
// c may be nil (no compile cache).
func RegexpMatches(c *Context, s, p, flags string) ([]types.Value, error) {
	f, err := regexFlags(flags, true)
	if err != nil {
		return nil, err
	}
	return regexpMatches(c, s, p, f)
}

// RegexpSplit is the pieces of s between the matches of p
// (regexp_split_to_table, and regexp_split_to_array's elements); fn
// names the function in the error for a 'g' flag.
// c may be nil (no compile cache).
func RegexpSplit(c *Context, s, p, flags, fn string) ([]types.Value, error) {
	f, err := reNoGlobal(flags, fn)
	if err != nil {
		return nil, err
	}
	m, err := compileMatcher(c, p, f, false, s)
	if err != nil {
		return nil, err
	}
	t := newSubject(s)
	var out []types.Value
	prev := 0
	for _, loc := range m.matches(t, 0, true, true) {
		out = append(out, t.text(prev, loc[0]))
		prev = loc[1]
	}
	return append(out, t.text(prev, t.chars())), nil
}

// regexReplaceAt is replace_text_regexp: a[0] with the n-th match from
// character start on replaced by a[2] (n = 0: every match; n < 0: by
// the 'g' flag, every match or the first).
func regexReplaceAt(c *Context, a []types.Value, flags string, start, n int64) (types.Value, error) {
	src, p, repl := str(a[0]), str(a[1]), str(a[2])
	f, err := regexFlags(flags, true)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		n = 1
		if f.global {
			n = 0
		}
	}
	m, err := compileMatcher(c, p, f, readsGroup(repl), src)
	if err != nil {
		return nil, err
	}
	t := newSubject(src)
	var b strings.Builder
	pos, found := 0, int64(0)
	search := int(min(start-1, 1<<31))
	for search <= t.chars() {
		loc := m.find(t, search)
		if loc == nil {
			break
		}
		found++
		if n > 0 && found < n {
			search = loc[1]
			if loc[0] == loc[1] {
				search++
			}
			continue
		}
		b.WriteString(t.text(pos, loc[0]))
		replaceEscapes(&b, repl, t, loc)
		pos = loc[1]
		if n > 0 {
			break
		}
		search = pos
		if loc[0] == loc[1] {
			search++
		}
	}
	b.WriteString(t.text(pos, t.chars()))
	return b.String(), nil
}

// readsGroup says whether replacement repl refers to a capture group
// (\1 … \9).
func readsGroup(repl string) bool {
	for i := 0; i+1 < len(repl); i++ {
		if repl[i] == '\\' {
			if repl[i+1] >= '1' && repl[i+1] <= '9' {
				return true
			}
			i++
		}
	}
	return false
}

// replaceEscapes appends repl with PostgreSQL's escapes resolved
// against match loc: \1…\9 a group (nothing when it did not take part
// or does not exist), \& the whole match, \\ a backslash; any other
// backslash is kept.
func replaceEscapes(b *strings.Builder, repl string, t *subject, loc []int) {
	for {
		i := strings.IndexByte(repl, '\\')
		if i < 0 {
			b.WriteString(repl)
			return
		}
		b.WriteString(repl[:i])
		repl = repl[i+1:]
		if repl == "" {
			b.WriteByte('\\')
			return
		}
		k := -1
		switch c := repl[0]; {
		case c >= '1' && c <= '9':
			k = int(c - '0')
		case c == '&':
			k = 0
		case c == '\\':
			b.WriteByte('\\')
			repl = repl[1:]
			continue
		default:
			b.WriteByte('\\')
			continue
		}
		repl = repl[1:]
		if 2*k+1 < len(loc) && loc[2*k] >= 0 && loc[2*k+1] >= 0 {
			b.WriteString(t.text(loc[2*k], loc[2*k+1]))
		}
	}
}

// regexSubstring is substring(s from p) (textregexsubstr): the first
// match's first capture group (NULL when it did not take part), or the
// whole match when p has none; NULL without a match.
func regexSubstring(c *Context, s, p string) (types.Value, error) {
	m, err := compileMatcher(c, p, reFlags{}, true, s)
	if err != nil {
		return nil, err
	}
	t := newSubject(s)
	loc := m.find(t, 0)
	if loc == nil {
		return nil, nil
	}
	k := 0
	if m.groups > 0 {
		k = 1
	}
	if loc[2*k] < 0 || loc[2*k+1] < 0 {
		return nil, nil
	}
	return t.text(loc[2*k], loc[2*k+1]), nil
}

// similarSubstring is substring(s similar p escape esc): substring(s,
// similar_to_escape(p, esc)). With escape-double-quote separators
// PostgreSQL runs ^(?:A){1,1}?(B){1,1}(?:C)$, whose ARE matching
// (regexec.c's dissection of the concatenation, right-leaning) takes the
// shortest A after which B and C match the rest, then the longest B
// after which C matches what is left; the result is B's text. Go's
// leftmost-first matching does not choose so, so the split points are
// searched here, each part matched whole by Go (a string is in a
// part's language the same way in both engines: the subset regex.go
// checks).
func similarSubstring(c *Context, s, p, esc string) (types.Value, error) {
	re, parts, err := similarParts(p, esc, true)
	if err != nil {
		return nil, err
	}
	if parts == nil {
		return regexSubstring(c, s, re)
	}
	return splitSimilar(c, s, parts)
}

// maxSimilarSplit bounds the subject of a SIMILAR substring with
// separators: the split search costs time quadratic in its length.
const maxSimilarSplit = 4096

// splitSimilar is B's text of the split s = a+b+c where a matches
// parts[0] and is shortest, then b matches parts[1] and is longest, c
// matching parts[2]; NULL when there is none.
func splitSimilar(ctx *Context, s string, parts []string) (types.Value, error) {
	if utf8.RuneCountInString(s) > maxSimilarSplit {
		return nil, unsupported("substring(… SIMILAR … ESCAPE …) with escape-double-quote separators of a string longer than %d characters", maxSimilarSplit)
	}
	whole := func(p string) (*regexp.Regexp, error) {
		re, _, err := regexFor(ctx, "^(?:"+p+")$", reFlags{}, s)
		return re, err
	}
	a, err := whole(parts[0])
	if err != nil {
		return nil, err
	}
	b, err := whole(parts[1])
	if err != nil {
		return nil, err
	}
	c, err := whole(parts[2])
	if err != nil {
		return nil, err
	}
	bc, err := whole("(?:" + parts[1] + ")(?:" + parts[2] + ")")
	if err != nil {
		return nil, err
	}
	bounds := make([]int, 0, len(s)+1) // the rune boundaries of s
	for i := range s {
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(s))
	for _, m1 := range bounds {
		if !a.MatchString(s[:m1]) || !bc.MatchString(s[m1:]) {
			continue
		}
		for k := len(bounds) - 1; k >= 0 && bounds[k] >= m1; k-- {
			m2 := bounds[k]
			if b.MatchString(s[m1:m2]) && c.MatchString(s[m2:]) {
				return s[m1:m2], nil
			}
		}
		return nil, nil // not reached: bc matched s[m1:]
	}
	return nil, nil
}
