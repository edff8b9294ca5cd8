package builtin

import (
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// "Cannot fail" facts (issue 22): which calls raise no error for any
// value of their arguments' types, as PostgreSQL's function runs (out of
// memory aside). A reader that evaluates an expression on fewer rows
// than PostgreSQL's plan may (sql/opt keyorder.go: an ORDER BY on the
// primary key under a LIMIT read in key order, where PostgreSQL's Seq
// Scan and Sort would evaluate the select list on every row) is only
// exact where nothing it skips could have raised; these facts say where.
//
// A fact is per overload and may look at the arguments that are
// constants (a format, a zone name): a constant that makes the call fail
// fails it on every row, but a reader that skips rows may evaluate it on
// none (an OFFSET past the end), so such a call is not one that cannot
// fail. Everything not listed here may fail.

// noFail is the fact of one overload: whether calls with these constant
// arguments (consts[i] non-nil: argument i is that constant, its text;
// nil: a value read per row) cannot fail.
type noFail func(consts []*string) bool

// always: the function raises no error for any input of its types.
func always([]*string) bool { return true }

// noFailFacts are the overloads (name and argument types, sigOf) that
// cannot fail, with the condition on their constant arguments.
var noFailFacts = map[string]noFail{
	// float8abs, float4abs and numeric_abs clear the sign bit: no
	// overflow, NaN and infinities included.
	sigOf("abs", types.Float8): always, sigOf("abs", types.Float4): always, sigOf("abs", types.Numeric): always,
	// textlen, octet_length: a length of a valid text value.
	sigOf("length", types.Text): always, sigOf("char_length", types.Text): always,
	sigOf("character_length", types.Text): always, sigOf("octet_length", types.Text): always,
	// timestamp[tz]_to_char: an infinite value is NULL; every finite one
	// breaks into fields (timestamp2tm cannot fail inside the types'
	// range, in any zone), and DCH_to_char raises only for TM's
	// localized names; the format is checked here.
	sigOf("to_char", types.Timestamp, types.Text): toCharFormatNoFail, sigOf("to_char", types.Timestamptz, types.Text): toCharFormatNoFail,
	// timestamptz_zone / timestamp_zone: the shifted value is checked to
	// be in range ("timestamp out of range" for a value near either end
	// shifted past it), which only a zone that is UTC at every instant
	// cannot do.
	sigOf("timezone", types.Text, types.Timestamptz): zeroOffsetZone, sigOf("timezone", types.Text, types.Timestamp): zeroOffsetZone,
}

// sigOf is the key of an overload in noFailFacts.
func sigOf(name string, args ...OID) string {
	var b strings.Builder
	b.WriteString(name)
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(uint64(a), 10))
	}
	return b.String()
}

// CannotFail says whether the call raises no error for any values of its
// arguments that are not constants (consts[i] non-nil: argument i is the
// constant of that text). Arguments converted to their parameter's type
// inside the call (an implicit cast) may fail: such a call is not one
// that cannot fail, except varchar, char(n) and an untyped literal taken
// as text.
func (c *Call) CannotFail(consts []*string) bool {
	if c == nil || c.Func == nil || c.Spread || len(consts) != len(c.Params) || len(c.Args) != len(c.Params) {
		return false
	}
	for i, p := range c.Params {
		if a := c.Args[i]; a != p && (p != types.Text || a != types.Varchar && a != types.Bpchar && (a != types.Unknown || consts[i] == nil)) {
			return false // converted inside the call: only varchar, char(n) and an untyped literal to text cannot fail
		}
	}
	fact := noFailFacts[sigOf(c.Func.Name, c.Params...)]
	return fact != nil && fact(consts)
}

// toCharFormatNoFail: to_char's format is a constant whose keywords
// print without error: no TM prefix (localized names: "localized string
// format value too long"), no SP suffix, no TH/th suffix (str_numth's
// "is not a number" where a keyword prints no final digit); quoted
// literals and other characters are copied.
func toCharFormatNoFail(consts []*string) bool {
	if len(consts) != 2 || consts[1] == nil {
		return false
	}
	f := *consts[1]
	for len(f) > 0 {
		if strings.HasPrefix(f, "FM") || strings.HasPrefix(f, "fm") {
			f = f[2:]
			continue
		}
		if strings.HasPrefix(f, "TM") || strings.HasPrefix(f, "tm") {
			return false
		}
		k := dchKeyword(f)
		if k == "" {
			if f[0] == '"' {
				_, f = quotedLiteral(f[1:])
				continue
			}
			if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
				f = f[1:]
			}
			f = f[1:]
			continue
		}
		f = f[len(k):]
		for _, suffix := range []string{"TH", "th", "SP"} {
			if strings.HasPrefix(f, suffix) {
				return false
			}
		}
	}
	return true
}

// utcZones are zone names PostgreSQL resolves to UTC at every instant
// (abbreviations of the Default set and tz database links to Etc/UTC),
// lower case: it compares zone names case-insensitively.
var utcZones = map[string]bool{"utc": true, "etc/utc": true, "gmt": true, "etc/gmt": true, "z": true, "zulu": true, "etc/zulu": true,
	"uct": true, "etc/uct": true, "universal": true, "etc/universal": true}

// zeroOffsetZone: timezone's zone is a constant naming UTC.
func zeroOffsetZone(consts []*string) bool {
	return len(consts) == 2 && consts[0] != nil && utcZones[strings.ToLower(*consts[0])]
}
