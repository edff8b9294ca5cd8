package builtin

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// lower, upper, initcap and ILIKE's folding follow the collation's
// LC_CTYPE (str_tolower, str_toupper, str_initcap). Under the C and
// POSIX locales (libc, and the builtin provider's C) only ASCII letters
// change, and initcap counts only ASCII letters and digits as a word's
// characters. Under a glibc UTF-8 locale PostgreSQL maps each character
// with towlower_l/towupper_l and finds words with iswalnum_l; sidecar
// maps with Go's unicode tables, which TestCaseMappingMatchesGlibc
// compared with glibc 2.36 (the en_US.UTF-8 collation of a live server)
// over every code point 0x80–0x2FFFF: lower and upper agree on all of
// them, iswalnum is Unicode's Alphabetic or Nd except for the code
// points glibcAlnumDiffers lists (added to Unicode after glibc 2.36's
// tables), which initcap refuses. Another glibc version is not assumed
// to agree: those collations keep the refusal of non-ASCII text, as do
// Turkish and Azeri locales (their i/I) and every other provider.

// CaseMap is the case mapping of a statement's text: nil when it is not
// known (ASCII letters map, other text is refused).
type CaseMap struct {
	libc   bool   // a glibc UTF-8 locale (else C)
	locale string // for messages
}

// CaseC is the C/POSIX locales' mapping: ASCII letters only.
var CaseC = &CaseMap{locale: "C"}

// VerifiedGlibc is the glibc version whose case mapping sidecar's was
// compared with.
const VerifiedGlibc = "2.36"

// CaseLibc is the mapping of a glibc UTF-8 locale (not Turkish or
// Azeri) of collation version version (the server's glibc), or nil when
// that glibc is not the verified one.
func CaseLibc(locale, version string) *CaseMap {
	l := strings.ToLower(locale)
	if version != VerifiedGlibc || strings.HasPrefix(l, "tr_") || strings.HasPrefix(l, "az_") ||
		!(strings.HasSuffix(l, ".utf8") || strings.HasSuffix(l, ".utf-8")) {
		return nil
	}
	return &CaseMap{libc: true, locale: locale}
}

// Same says whether m and o map alike.
func (m *CaseMap) Same(o *CaseMap) bool {
	return m != nil && o != nil && m.libc == o.libc && (!m.libc || strings.EqualFold(m.locale, o.locale))
}

// String names the mapping's locale.
func (m *CaseMap) String() string { return m.locale }

// caseOf is the context's mapping (nil: not known).
func caseOf(c *Context) *CaseMap {
	if c == nil {
		return nil
	}
	return c.Case
}

// Lower is lower() of s under m.
func (m *CaseMap) Lower(s string) (string, error) {
	return m.apply("lower", s, asciiLower, func(s string) (string, error) { return strings.Map(unicode.ToLower, s), nil })
}

// Upper is upper() of s under m.
func (m *CaseMap) Upper(s string) (string, error) {
	return m.apply("upper", s, asciiUpper, func(s string) (string, error) { return strings.Map(unicode.ToUpper, s), nil })
}

// Initcap is initcap() of s under m.
func (m *CaseMap) Initcap(s string) (string, error) {
	return m.apply("initcap", s, initcap, m.libcInitcap)
}

// apply maps s with ascii under C (and for ASCII text under any
// locale), with libc under a glibc locale, and refuses non-ASCII text
// when m is not known.
func (m *CaseMap) apply(name, s string, ascii func(string) string, libc func(string) (string, error)) (string, error) {
	switch {
	case isASCII(s) || m != nil && !m.libc:
		return ascii(s), nil
	case m == nil:
		return "", unknownCase(name)
	}
	return libc(s)
}

// libcInitcap is str_initcap under a glibc locale: towupper of a word's
// first character, towlower of the rest, words of iswalnum characters.
func (m *CaseMap) libcInitcap(s string) (string, error) {
	var b strings.Builder
	prev := false
	for _, r := range s {
		if glibcAlnumDiffers(r) {
			return "", unsupported("initcap() of U+%04X under the collation locale %s (glibc's classification of it is not Go's)", r, m.locale)
		}
		if prev {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		prev = r < utf8.RuneSelf && isAlnum(byte(r)) || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) ||
			unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r))
	}
	return b.String(), nil
}

func unknownCase(name string) error {
	return unsupported("%s() of non-ASCII text where the collation's case mapping is not known (C, POSIX, or a glibc %s UTF-8 locale)", name, VerifiedGlibc)
}

// glibcAlnumDiffers says whether glibc 2.36's iswalnum of r differs from
// Unicode's Alphabetic-or-Nd as Go's tables hold it (code points Unicode
// 15 assigned after glibc 2.36's data, TestCaseMappingMatchesGlibc).
func glibcAlnumDiffers(r rune) bool {
	for _, rg := range glibcAlnumRanges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// glibcAlnumRanges are the code points (inclusive ranges) whose iswalnum
// under glibc 2.36's UTF-8 locales differs from Go's Alphabetic-or-Nd.
var glibcAlnumRanges = [][2]rune{
	{0x0C04, 0x0C04},
	{0x0CF3, 0x0CF3},
	{0x0F82, 0x0F83},
	{0x11080, 0x11081},
	{0x1123F, 0x11241},
	{0x11F00, 0x11F10},
	{0x11F12, 0x11F3A},
	{0x11F3E, 0x11F40},
	{0x11F50, 0x11F59},
	{0x1342F, 0x1342F},
	{0x13441, 0x13446},
	{0x1B132, 0x1B132},
	{0x1B155, 0x1B155},
	{0x1DF25, 0x1DF2A},
	{0x1E030, 0x1E06D},
	{0x1E08F, 0x1E08F},
	{0x1E4D0, 0x1E4EB},
	{0x1E4F0, 0x1E4F9},
	{0x2B739, 0x2B739},
	{0x31350, 0x323AF},
}
