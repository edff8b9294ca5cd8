package sqlfront

import (
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// SET DateStyle as PostgreSQL's check_datestyle (variable.c) reads it: a
// comma-separated list of an output style (ISO, SQL, Postgres, German)
// and a field order (YMD; DMY, Euro, European; MDY, US, NonEuro,
// NonEuropean), either kept from the session's current value when not
// given, German implying DMY unless an order is given, DEFAULT standing
// for the boot value "ISO, MDY" where not overridden. The canonical text
// is what SHOW prints. Before, a value was not kept at all (SET DateStyle
// = 'ISO, YMD' answered SET and SHOW then printed ISO, MDY) and any style
// but ISO was refused at the SET; now it is kept, and the statements that
// would print a date or time under a style other than ISO are refused
// (vecPlan.settingsFollowed), as for a server whose default it is.

// parseDateStyle is check_datestyle over val starting from cur (the
// session's canonical value) as the followed server's version reads it:
// the canonical result, or PostgreSQL's 22023 error.
func parseDateStyle(cur, val string, version int) (string, error) {
	style, order := "ISO", "MDY"
	if s, o, ok := strings.Cut(cur, ", "); ok {
		style, order = s, o
	}
	bad := func(detail string) error {
		e := errf(codeInvalidParam, -1, "invalid value for parameter \"DateStyle\": \"%s\"", val)
		e.Detail = detail
		return e
	}
	toks, ok := splitIdentifierList(val)
	if !ok {
		return "", bad("List syntax is invalid.")
	}
	haveStyle, haveOrder, conflict := false, false, false
	setStyle := func(s string) {
		if haveStyle && style != s {
			conflict = true
		}
		style, haveStyle = s, true
	}
	setOrder := func(o string) {
		if haveOrder && order != o {
			conflict = true
		}
		order, haveOrder = o, true
	}
	for _, tok := range toks {
		low := strings.ToLower(tok)
		switch {
		case low == "iso":
			setStyle("ISO")
		case low == "sql":
			setStyle("SQL")
		case strings.HasPrefix(low, "postgres"):
			setStyle("Postgres")
		case low == "german":
			setStyle("German")
			if !haveOrder {
				order = "DMY"
			}
		case low == "ymd":
			setOrder("YMD")
		case low == "dmy" || strings.HasPrefix(low, "euro"):
			setOrder("DMY")
		case low == "mdy" || low == "us" || strings.HasPrefix(low, "noneuro"):
			setOrder("MDY")
		case low == "default":
			if !haveStyle {
				style = "ISO"
			}
			if !haveOrder {
				order = "MDY"
			}
		default:
			return "", bad("Unrecognized key word: " + strconv.Quote(tok) + ".")
		}
	}
	if conflict {
		if version == 0 || version >= 180000 {
			return "", bad("Conflicting \"DateStyle\" specifications.") // 18 names the parameter as written in its table
		}
		return "", bad("Conflicting \"datestyle\" specifications.")
	}
	return style + ", " + order, nil
}

// splitIdentifierList is SplitIdentifierString with ',': blank-trimmed
// items, unquoted ones downcased, a double-quoted one taken as written
// ("" for a quote); ok false
// on an empty item or junk between items.
func splitIdentifierList(s string) ([]string, bool) {
	var out []string
	i := 0
	skip := func() {
		for i < len(s) && strings.IndexByte(" \t\n\r\f\v", s[i]) >= 0 {
			i++
		}
	}
	skip()
	if i == len(s) {
		return nil, true // an empty string: no items
	}
	for {
		var item string
		if i < len(s) && s[i] == '"' {
			var b strings.Builder
			i++
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, false // unterminated quote
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			item = b.String()
		} else {
			start := i
			for i < len(s) && s[i] != ',' && strings.IndexByte(" \t\n\r\f\v", s[i]) < 0 {
				i++
			}
			if i == start {
				return nil, false // empty unquoted item
			}
			item = strings.ToLower(s[start:i]) // unquoted: downcased, as an identifier
		}
		out = append(out, item)
		skip()
		if i == len(s) {
			return out, true
		}
		if s[i] != ',' {
			return nil, false
		}
		i++
		skip()
	}
}

// cannedStyleRefusal refuses a canned catalog answer (catalog_psql.go,
// catalog_jdbc.go) with a date, time or interval column under a DateStyle
// other than ISO or an IntervalStyle other than postgres: its values
// print in the defaults (psql's \du "Password valid until").
func (s *session) cannedStyleRefusal(p *plan) error {
	if s.printsISODates() && s.printsPostgresIntervals() {
		return nil
	}
	for _, c := range p.cols {
		if isDateTime(c.typ) || types.IsArray(c.typ) && isDateTime(types.ElemOf(c.typ)) {
			return unsupported(-1, "this catalog query under DateStyle "+s.settings["datestyle"]+" and IntervalStyle "+s.settings["intervalstyle"])
		}
	}
	return nil
}
