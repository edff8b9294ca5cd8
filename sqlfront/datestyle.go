package sqlfront

import (
	"slices"
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

// sessionDateStyle is the session's DateStyle as the output functions
// read it (ok false: ISO, or a value not read, which prints as ISO).
func (s *session) sessionDateStyle() (types.DateStyle, bool) {
	if s == nil {
		return types.DateStyle{}, false
	}
	ds, ok := types.DateStyleOf(s.settings["datestyle"])
	return ds, ok && ds.Style != types.DateStyleISO
}

// dateStyleText is the text of a date, timestamp or timestamptz result
// value (txt: its ISO text at UTC, as types.Out prints it) under the
// session's DateStyle when that is not ISO, timestamptz in the session's
// zone; ok false when the style is ISO or t is another type (the text
// stands, zoneText applies). Values inside a row or an array are not
// reached here: settingsFollowed refuses those statements.
func (s *session) dateStyleText(t uint32, txt string) (string, bool, error) {
	if t != oidDate && t != oidTimestamp && t != oidTimestamptz {
		return "", false, nil
	}
	ds, ok := s.sessionDateStyle()
	if !ok {
		return "", false, nil
	}
	v, err := types.In(t, -1, txt)
	if err != nil {
		return "", false, typesErr(err)
	}
	switch x := v.(type) {
	case types.DateVal:
		return string(types.AppendDateStyle(nil, x, ds)), true, nil
	case types.TimestampVal:
		if t == oidTimestamp {
			return string(types.AppendTimestampStyle(nil, x, ds)), true, nil
		}
		b, ok := types.AppendTimestamptzStyle(nil, x, ds, s.sessionZone())
		if !ok {
			return "", false, unsupported(-1, "printing timestamptz under DateStyle "+s.settings["datestyle"]+" in TimeZone "+s.sessionZone().Name).
				hint("PostgreSQL prints the zone's abbreviation, which sidecar knows for UTC and the tz database's zones only")
		}
		return string(b), true, nil
	}
	return "", false, nil
}

// dateStyleFollowed refuses, under a DateStyle other than ISO, a
// statement that would print a date or timestamp where the encoder's
// dateStyleText does not reach: inside the statement (a cast to text,
// ||, format, a row or an array: plain false) or under a style not read;
// and a timestamptz result column in a zone whose abbreviation is not
// known. Result columns of date, timestamp and timestamptz print under
// the style; compared, computed or aggregated only, values answer as
// under ISO (time and timetz print alike in every DateStyle).
func (v *vecPlan) dateStyleFollowed(s *session, plain bool) error {
	refuse := func() error {
		return unsupported(-1, "DateStyle "+s.settings["datestyle"]+" in this statement").
			hint("sidecar prints a date or timestamp result column under DateStyle; one printed inside the statement (a cast to text, ||, format, a row or an array) only in the ISO style")
	}
	_, known := s.sessionDateStyle()
	for _, t := range []uint32{oidDate, oidTime, types.Timetz, oidTimestamp, oidTimestamptz} {
		if (v.uses[t] || v.uses[types.ArrayOf(t)]) && !plain {
			return refuse()
		}
		if t == oidTime || t == types.Timetz || !slices.Contains(v.oids, t) {
			continue
		}
		if !known {
			return refuse()
		}
		if t == oidTimestamptz && !s.sessionZone().StyleAbbrevKnown() {
			return unsupported(-1, "printing timestamptz under DateStyle "+s.settings["datestyle"]+" in TimeZone "+s.sessionZone().Name).
				hint("PostgreSQL prints the zone's abbreviation, which sidecar knows for UTC and the tz database's zones only")
		}
	}
	return nil
}

// zoneRowsFollowed refuses, in a session zone other than UTC, a
// statement with a row result column (a whole-row reference, ROW(…), a
// composite) over timestamptz values: record_out prints its fields
// through types.Out at UTC, which the encoder's zoneText does not reach
// (before, `SELECT row(tz) FROM t` under TimeZone Europe/Berlin answered
// ("2024-03-05 10:11:12+00") where PostgreSQL prints ("2024-03-05
// 11:11:12+01")). Arrays of timestamptz are refused by the encoder.
func (v *vecPlan) zoneRowsFollowed(s *session) error {
	if s.sessionZone().IsUTC() || !v.uses[oidTimestamptz] && !v.uses[types.ArrayOf(oidTimestamptz)] && !v.uses[types.Tstzrange] {
		return nil
	}
	for _, t := range v.oids {
		if t == types.RecordOID || t >= firstNormalOID {
			return unsupported(-1, "a row with a timestamptz field when TimeZone is not UTC")
		}
	}
	return nil
}
