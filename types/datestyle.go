package types

import "strings"

// date_out, timestamp_out and timestamptz_out under the session's
// DateStyle: PostgreSQL's EncodeDateOnly and EncodeDateTime (datetime.c)
// for the four output styles and the field order. ISO is appendDate /
// appendTimestamp (datetime.go). The order matters to the SQL and
// Postgres styles only, and only DMY is special there (YMD prints as
// MDY); German is always day.month.year. Infinity prints alike in every
// style (EncodeSpecialDate / EncodeSpecialTimestamp). time and timetz
// print alike in every style (EncodeTimeOnly), so they are not here.

// The DateStyle output styles, as SHOW DateStyle spells them.
const (
	DateStyleISO      = "ISO"
	DateStyleSQL      = "SQL"
	DateStylePostgres = "Postgres"
	DateStyleGerman   = "German"
)

// DateStyle is an output style and whether the field order is DMY (the
// only order the output functions look at).
type DateStyle struct {
	Style string
	DMY   bool
}

// DateStyleOf reads the canonical DateStyle text SHOW prints ("SQL,
// DMY"); ok false for anything else.
func DateStyleOf(v string) (DateStyle, bool) {
	style, order, ok := strings.Cut(strings.TrimSpace(v), ",")
	if !ok {
		return DateStyle{}, false
	}
	style, order = strings.TrimSpace(style), strings.ToUpper(strings.TrimSpace(order))
	var ds DateStyle
	switch strings.ToUpper(style) {
	case "ISO":
		ds.Style = DateStyleISO
	case "SQL":
		ds.Style = DateStyleSQL
	case "POSTGRES":
		ds.Style = DateStylePostgres
	case "GERMAN":
		ds.Style = DateStyleGerman
	default:
		return DateStyle{}, false
	}
	switch order {
	case "DMY":
		ds.DMY = true
	case "MDY", "YMD":
	default:
		return DateStyle{}, false
	}
	return ds, true
}

var (
	dayAbbrevs   = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	monthAbbrevs = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// styleDate is a broken-down date: the year as printed (before Christ
// counted from 1), month, day, BC and the Julian day (for the weekday).
type styleDate struct {
	year, mon, mday, jd int64
	bc                  bool
}

func splitDate(jd int64) styleDate {
	y, m, d := j2date(jd)
	sd := styleDate{year: y, mon: m, mday: d, jd: jd}
	if y <= 0 {
		sd.year, sd.bc = 1-y, true
	}
	return sd
}

// appendDMY appends the day and month in the style's order with sep
// between them and after (SQL "dd/mm/", Postgres "mm-dd-", German
// "dd.mm.").
func (sd styleDate) appendDayMonth(dst []byte, dmy bool, sep byte) []byte {
	a, b := sd.mon, sd.mday
	if dmy {
		a, b = b, a
	}
	dst = appendPadded(dst, a, 2)
	dst = append(dst, sep)
	dst = appendPadded(dst, b, 2)
	return append(dst, sep)
}

// AppendDateStyle appends d as date_out prints it under ds
// (EncodeDateOnly).
func AppendDateStyle(dst []byte, d DateVal, ds DateStyle) []byte {
	if ds.Style == DateStyleISO || d == DatePosInf || d == DateNegInf {
		return appendDate(dst, d)
	}
	sd := splitDate(int64(d) + postgresEpochJDate)
	switch ds.Style {
	case DateStyleSQL:
		dst = sd.appendDayMonth(dst, ds.DMY, '/')
	case DateStyleGerman:
		dst = sd.appendDayMonth(dst, true, '.')
	default: // Postgres
		dst = sd.appendDayMonth(dst, ds.DMY, '-')
	}
	dst = appendPadded(dst, sd.year, 4)
	if sd.bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// AppendTimestampStyle appends ts as timestamp_out prints it under ds
// (EncodeDateTime without a zone).
func AppendTimestampStyle(dst []byte, ts TimestampVal, ds DateStyle) []byte {
	if ds.Style == DateStyleISO || ts == TimestampPosInf || ts == TimestampNegInf {
		return appendTimestamp(dst, ts, false)
	}
	return appendDateTimeStyle(dst, int64(ts), ds, "")
}

// AppendTimestamptzStyle appends ts as timestamptz_out prints it in zone
// z under ds: the local time and, in the SQL, German and Postgres
// styles, the zone's abbreviation at that instant. ok false when the
// abbreviation PostgreSQL would print is not known here: a fixed-offset
// or POSIX zone other than UTC (PostgreSQL names those from its own
// POSIX parse).
func AppendTimestamptzStyle(dst []byte, ts TimestampVal, ds DateStyle, z *Zone) ([]byte, bool) {
	if ds.Style == DateStyleISO || ts == TimestampPosInf || ts == TimestampNegInf {
		return AppendTimestamptzIn(dst, ts, z), true
	}
	abbr, ok := z.styleAbbrev(ts)
	if !ok {
		return dst, false
	}
	local := int64(ts) + z.OffsetAt(ts)*usecsPerSec
	return appendDateTimeStyle(dst, local, ds, abbr), true
}

// StyleAbbrevKnown says whether AppendTimestamptzStyle can print
// timestamptz values of zone z (see there).
func (z *Zone) StyleAbbrevKnown() bool {
	_, ok := z.styleAbbrev(0)
	return ok
}

// styleAbbrev is timestamp2tm's tzn for ts in z.
func (z *Zone) styleAbbrev(ts TimestampVal) (string, bool) {
	switch {
	case z == nil:
		return "UTC", true
	case z.loc != nil:
		return z.Abbrev(ts), true
	case z.east == 0 && (z.Name == "UTC" || z.Name == "Etc/UTC"):
		return "UTC", true
	}
	return "", false
}

// appendDateTimeStyle is EncodeDateTime's SQL, German and Postgres
// branches for a local time us (microseconds since 2000-01-01) and the
// zone abbreviation tzn ("" for timestamp without time zone).
func appendDateTimeStyle(dst []byte, us int64, ds DateStyle, tzn string) []byte {
	days := us / usecsPerDay
	rem := us % usecsPerDay
	if rem < 0 {
		rem += usecsPerDay
		days--
	}
	sd := splitDate(days + postgresEpochJDate)
	if len(tzn) > maxTZLen {
		tzn = tzn[:maxTZLen] // " %.*s", MAXTZLEN
	}
	switch ds.Style {
	case DateStyleSQL, DateStyleGerman:
		if ds.Style == DateStyleSQL {
			dst = sd.appendDayMonth(dst, ds.DMY, '/')
		} else {
			dst = sd.appendDayMonth(dst, true, '.')
		}
		dst = appendPadded(dst, sd.year, 4)
		dst = append(dst, ' ')
		dst = appendClock(dst, rem)
	default: // Postgres: "Tue Mar 05 10:11:12.5 2024"
		dst = append(dst, dayAbbrevs[weekday(sd.jd)]...)
		dst = append(dst, ' ')
		if ds.DMY {
			dst = appendPadded(dst, sd.mday, 2)
			dst = append(dst, ' ')
			dst = append(dst, monthAbbrevs[sd.mon-1]...)
		} else {
			dst = append(dst, monthAbbrevs[sd.mon-1]...)
			dst = append(dst, ' ')
			dst = appendPadded(dst, sd.mday, 2)
		}
		dst = append(dst, ' ')
		dst = appendClock(dst, rem)
		dst = append(dst, ' ')
		dst = appendPadded(dst, sd.year, 4)
	}
	if tzn != "" {
		dst = append(dst, ' ')
		dst = append(dst, tzn...)
	}
	if sd.bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// maxTZLen is PostgreSQL's MAXTZLEN: the longest abbreviation printed.
const maxTZLen = 10

// weekday is j2day: 0 Sunday … 6 Saturday.
func weekday(jd int64) int {
	d := (jd + 1) % 7
	if d < 0 {
		d += 7
	}
	return int(d)
}
