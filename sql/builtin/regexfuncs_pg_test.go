package builtin_test

import (
	"testing"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// TestRegexFuncsMatchPostgres compares regexp_count, regexp_instr,
// regexp_substr, regexp_match, regexp_split_to_array and regexp_replace
// (start, N, flags, back-references) with PostgreSQL's over a cross of
// subjects and patterns: empty matches, anchors after the start,
// optional groups, non-ASCII text. Patterns outside the subset Go runs
// as PostgreSQL does are refused (0A000), never answered differently.
func TestRegexFuncsMatchPostgres(t *testing.T) {
	subjects := vals("text", "abcabc", "aXbXc", "", "hello wörld", "line1\nline2", "aaa", "ABCabc", "foo123bar456", "x")
	pats := vals("text", "a", "^a", "c$", "b*", "", "[a-c]+", "(a)(b)?", "(b)(c)", "([0-9]+)", "a|b", "(a|ab)(c|bc)", "l+", ".$", "^", `\d`, "x?")
	ints := func(vs ...string) []arg { return vals("int4", vs...) }
	var cases []call
	cases = append(cases, cross("regexp_count", subjects, pats)...)
	cases = append(cases, cross("regexp_count", subjects, pats, ints("1", "2", "4", "0"))...)
	cases = append(cases, cross("regexp_count", subjects, pats, ints("1", "3"), vals("text", "i", "g", ""))...)
	cases = append(cases, cross("regexp_instr", subjects, pats, ints("2"), ints("1", "2"), ints("0", "1"), vals("text", "i"), ints("0", "2"))...)
	cases = append(cases, cross("regexp_substr", subjects, pats, ints("1", "3"), ints("2"), vals("text", ""), ints("0", "1"))...)
	cases = append(cases, cross("regexp_match", subjects, pats)...)
	cases = append(cases, cross("regexp_match", subjects, pats, vals("text", "i", "g"))...)
	cases = append(cases, cross("regexp_split_to_array", subjects, pats)...)
	cases = append(cases, cross("regexp_split_to_array", subjects, pats, vals("text", "i", "g"))...)
	cases = append(cases, cross("regexp_replace", subjects, pats, vals("text", `<\&>`, `\2\1`, `\\`, `x\`), vals("text", "g", ""))...)
	cases = append(cases, cross("regexp_replace", subjects, pats, vals("text", "-"), ints("1", "2", "9", "0"))...)
	cases = append(cases, cross("regexp_replace", subjects, pats, vals("text", `[\1]`), ints("3"), ints("0", "2"), vals("text", "i", "g"))...)
	runDifferential(t, cases)
}

// TestSimilarMatchesPostgres compares similar_to_escape's rewriting of
// SIMILAR TO patterns (its text is user-visible) with PostgreSQL's,
// escapes and separators included; regexfuncs.diff.sql (sql/exec)
// matches with them.
func TestSimilarMatchesPostgres(t *testing.T) {
	pats := vals("text", "_bcd%", "bcd%", `_bcd#%`, `_bcd\%`, "a|b%", "(ab)*c", "[a-c]%", `[\]]`, "a.b^c$", "a#\"b#\"c", `a#"b#"c#"d`, "%#", "é_%", "x{2}", "")
	escs := vals("text", "#", "", `\`, "ab", "é")
	var cases []call
	cases = append(cases, cross("similar_to_escape", pats)...)
	cases = append(cases, cross("similar_to_escape", pats, escs)...)
	runDifferential(t, cases)
}

// TestRegexOptionsMatchPostgres compares the class escapes (\d \s \w,
// negated, in brackets), the flags n m p w s x t q and embedded options
// ((?n), ***=, ***:) with PostgreSQL's over subjects with newlines,
// tabs and non-ASCII text; then checks the calls sidecar now runs are
// answered, not refused (before: every one was 0A000).
func TestRegexOptionsMatchPostgres(t *testing.T) {
	subjects := vals("text", "ab 12\ncd_3\n\nef", "x1 y22\tz", "a.b", "line1\nline2\n", "héllo 1", "", "\nab")
	pats := vals("text", `\d+`, `\s`, `\w+`, `\D`, `\S+`, `\W`, `[\d.]+`, `[^\s]+`, `^\w`, `\w$`, `^.`, `.$`, `a.b`, `[^a]`,
		"a b  # comment\n|c", `\d \d`, `(?n)^\w+$`, `(?x) \w + `, `***=a.b`, `***:\d`, `(?i)AB`, `(?q).`, `^(\w)(\d)?`, `(\d)\s`)
	flags := vals("text", "n", "m", "p", "w", "s", "x", "t", "q", "gn", "gw", "gp", "nx", "ig", "qi", "xn")
	var cases []call
	cases = append(cases, cross("regexp_replace", subjects, pats, vals("text", "<\\&>"), flags)...)
	cases = append(cases, cross("regexp_match", subjects, pats, vals("text", "n", "p", "w", "x", "q", "i"))...)
	cases = append(cases, cross("regexp_count", subjects, pats, vals("int4", "1", "3"), vals("text", "n", "w", "x"))...)
	cases = append(cases, cross("regexp_split_to_array", subjects, pats, vals("text", "n", "p", "x"))...)
	cases = append(cases, cross("textregexeq", subjects, pats)...)
	cases = append(cases, cross("substring", subjects, pats)...)
	cases = append(cases, cross("substring", subjects, vals("text", "%#\"1#\"%", "a%", "%\\d%", "_b%", "%b", "(ab|x1)%"), vals("text", "#", ""))...)
	runDifferential(t, cases)

	reg := builtin.NewFor(types.Dialect{Version: pg.ServerVersion()})
	txt := func(vs ...string) []arg {
		out := make([]arg, len(vs))
		for i, v := range vs {
			out[i] = arg{typ: "text", val: v}
		}
		return out
	}
	answered := []call{
		{fn: "regexp_replace", args: txt("x1 y22", `\d+`, "#", "g")},
		{fn: "regexp_replace", args: txt("ab\ncd", "^", ">", "gn")},
		{fn: "regexp_replace", args: txt("ab\ncd", ".$", "!", "gw")},
		{fn: "regexp_match", args: txt("a b", "a b", "x")},
		{fn: "regexp_match", args: txt("a.b", ".", "q")},
		{fn: "regexp_split_to_array", args: txt("a\tb c", `\s`)},
		{fn: "regexp_match", args: txt("ab_1 x", `(?x) \w+ `)},
		{fn: "substring", args: txt("foo123", `\d+`)},
		{fn: "substring", args: txt("foobar", "%b_r", "#")},
	}
	for _, c := range answered {
		if o := libOutcome(reg, &builtin.Context{}, c); o.refused() {
			t.Errorf("%s refused: %v", c.sql(), o)
		}
	}
}

// TestSimilarSubstringMatchesPostgres compares substring(… SIMILAR …
// ESCAPE …) with escape-double-quote separators (one or two) with
// PostgreSQL's: the part before the first matched as little as
// possible, the part between as much as possible, alternations and
// repetitions in each part, non-ASCII subjects, no match. Before, every
// such call was refused (0A000).
func TestSimilarSubstringMatchesPostgres(t *testing.T) {
	subjects := vals("text", "abcdefg", "aaa", "abab", "", "xyz", "héllo wörld", "a\nb\nc", "abcabcabc", "aXbXbXc")
	pats := vals("text", `a#"(b_d)#"%`, `#"(b_d)#"%`, `a#"%#"g`, `a*#"%#"g*`, `a|b#"%#"g`, `a#"%#"x|g`, `a#"%|ab#"g`, `a#"%g`,
		`%#"%#"%`, `%#"a*#"%`, `%#"b%#"`, `#"%#"`, `%#"_#"`, `(a|ab)#"(b|bc)*#"%`, `%b#"%#"b%`, `%#"[a-c]+#"%`, `_*#"l+#"%`,
		`%#"%#"(c|bc)`, `(a|b)*#"b*#"(b|c)%`, `%X#"%#"X%`, `%#"X_#"%`, `a%#"#"`, `#"#"%`)
	var cases []call
	cases = append(cases, cross("substring", subjects, pats, vals("text", "#"))...)
	runDifferential(t, cases)
	noRefusals(t, cases)
}

// TestRegexLeadingGroupMatchesPostgres: a pattern starting with "(?:"
// (a non-capturing group, not embedded options: those need a letter
// after "(?") is matched as PostgreSQL does. Before, it was refused as
// embedded options.
func TestRegexLeadingGroupMatchesPostgres(t *testing.T) {
	subjects := vals("text", "123456", "", "abab", "x")
	pats := vals("text", "(?:)", "(?:ab)+", "(?:a|b)", "(?:)b", "(?i)AB", "(?:a)(b)")
	var cases []call
	cases = append(cases, cross("regexp_split_to_array", subjects, pats)...)
	cases = append(cases, cross("regexp_replace", subjects, pats, vals("text", "-"), vals("text", "g"))...)
	cases = append(cases, cross("textregexeq", subjects, pats)...)
	runDifferential(t, cases)
	noRefusals(t, cross("regexp_split_to_array", vals("text", "123456", "abab"), vals("text", "(?:)", "(?:ab)+")))
}
