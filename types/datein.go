package types

import "strings"

// dateOrder is DateStyle's field order for ambiguous date input
// (PostgreSQL's DateOrder).
type dateOrder int

const (
	orderYMD dateOrder = iota
	orderDMY
	orderMDY
)

// Date input beyond ISO 8601 ('January 8, 1999', '1999-Jan-08',
// '19990108', '1999.008', …) is PostgreSQL's ParseDateTime and
// DecodeDateTime (datetime.c) for fields that make a date only: numbers,
// month and weekday names, AD/BC, 'at'/'on', and punctuation. Times,
// zones, Julian days, ISO field labels and anything else stay refused.
//
// The answer of such an input may depend on DateStyle's field order
// (MDY, DMY, YMD), which the type catalog does not see. The input is
// decoded under all three orders: when they agree (on a date, or on the
// SQLSTATE of an error) that is PostgreSQL's answer whatever the
// session's DateStyle, and it is given; when they differ
// ('1/8/1999', '01/02/03') the input stays refused.

// dateFieldMask bits (PostgreSQL's DTK_M of the field types).
const (
	dmYear = 1 << iota
	dmMonth
	dmDay
	dmDOY
	dmDOW
	dmBC
	dmTime // a run-together hhmm or hhmmss after a whole date
	dmDate = dmYear | dmMonth | dmDay
)

// dtErr is DecodeDateTime's failure: 22007 (DTERR_BAD_FORMAT) or 22008
// (DTERR_FIELD_OVERFLOW, DTERR_MD_FIELD_OVERFLOW); refused is an input
// this port does not decode.
type dtErr int

const (
	dtOK dtErr = iota
	dtBadFormat
	dtOverflow
	dtRefuse
)

// dateTokens are datetktbl's entries a date's fields may hold: months
// (1–12), weekdays (100+), AD/BC (200/201), ignored words (300).
var dateTokens = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
	"dec": 12, "december": 12,
	"sun": 100, "sunday": 100, "mon": 101, "monday": 101, "tue": 102, "tues": 102, "tuesday": 102,
	"wed": 103, "weds": 103, "wednesday": 103, "thu": 104, "thur": 104, "thurs": 104, "thursday": 104,
	"fri": 105, "friday": 105, "sat": 106, "saturday": 106,
	"ad": 200, "bc": 201, "at": 300, "on": 300,
}

// coreTokens are datetktbl's other entries: a letter run equal to one
// is not the start of a date in ParseDateTime (and is refused here).
var coreTokens = map[string]bool{"-infinity": true, "allballs": true, "am": true, "current": true, "d": true,
	"dow": true, "doy": true, "dst": true, "epoch": true, "h": true, "infinity": true, "invalid": true,
	"isodow": true, "isoyear": true, "j": true, "jd": true, "julian": true, "m": true, "mm": true, "now": true,
	"pm": true, "s": true, "t": true, "today": true, "tomorrow": true, "undefined": true, "y": true, "yesterday": true}

// isAlnum is C's isalnum in ASCII (isDigit and the others: intervalin.go).
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

// dtField is one field of ParseDateTime.
type dtField struct {
	s    string
	kind byte // 'D' DTK_DATE, 'N' DTK_NUMBER, 'S' DTK_STRING
}

// parseDateFields is ParseDateTime for the fields a date may have.
func parseDateFields(s string) ([]dtField, dtErr) {
	if len(s) > 100 {
		return nil, dtRefuse
	}
	var out []dtField
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			return nil, dtRefuse // isalpha/isdigit of the server's locale
		}
		if isSpace(c) {
			i++
			continue
		}
		if len(out) >= 20 {
			return nil, dtRefuse
		}
		var b []byte
		kind := byte(0)
		switch {
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) {
				b = append(b, s[i])
				i++
			}
			switch {
			case i < len(s) && s[i] == ':':
				return nil, dtRefuse // a time
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				b = append(b, delim)
				i++
				if i < len(s) && isDigit(s[i]) {
					kind = 'D'
					if delim == '.' {
						kind = 'N'
					}
					for i < len(s) && isDigit(s[i]) {
						b = append(b, s[i])
						i++
					}
					if i < len(s) && s[i] == delim {
						kind = 'D'
						b = append(b, delim)
						i++
						for i < len(s) && (isDigit(s[i]) || s[i] == delim) {
							b = append(b, s[i])
							i++
						}
					}
				} else {
					kind = 'D'
					for i < len(s) && (isAlnum(s[i]) || s[i] == delim) {
						b = append(b, lower(s[i]))
						i++
					}
				}
			default:
				kind = 'N'
			}
		case isAlpha(c):
			kind = 'S'
			for i < len(s) && isAlpha(s[i]) {
				b = append(b, lower(s[i]))
				i++
			}
			isDate := false
			if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				isDate = true
			} else if i < len(s) && (s[i] == '+' || isDigit(s[i])) {
				_, known := dateTokens[string(b)]
				isDate = !known && !coreTokens[string(b)]
			}
			if isDate {
				kind = 'D'
				for {
					b = append(b, lower(s[i]))
					i++
					if i >= len(s) || !(s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' || s[i] == '.' || s[i] == ':' || isAlnum(s[i])) {
						break
					}
				}
			}
		case c == '+' || c == '-' || c == '.':
			return nil, dtRefuse // a zone, a special, a fraction
		case isPunct(c):
			i++
			continue
		default:
			return nil, dtRefuse
		}
		out = append(out, dtField{string(b), kind})
	}
	return out, dtOK
}

// dateTm is the date DecodeDateTime builds.
type dateTm struct {
	year, mon, mday, yday int64
	is2digits, bc         bool
}

// decodeDateFields is DecodeDateTime over fields that make a date, and
// ValidateDate: the astronomical year, month and day.
func decodeDateFields(fields []dtField, order dateOrder) (y, m, d int64, e dtErr) {
	var tm dateTm
	fmask := 0
	haveTextMonth := false
	for _, f := range fields {
		tmask := 0
		switch f.kind {
		case 'D':
			if fmask&(dmMonth|dmDay) == dmMonth|dmDay {
				return 0, 0, 0, dtRefuse // a zone name
			}
			var e dtErr
			if tmask, e = decodeDatePart(f.s, fmask, &tm, order); e != dtOK {
				return 0, 0, 0, e
			}
		case 'N':
			dot := strings.IndexByte(f.s, '.')
			var e dtErr
			switch {
			case dot >= 0 && fmask&dmDate == 0:
				tmask, e = decodeDatePart(f.s, fmask, &tm, order)
			case dot >= 0:
				return 0, 0, 0, dtRefuse // a concatenated time or seconds
			case len(f.s) >= 6:
				tmask, e = decodeNumberField(f.s, fmask, &tm)
			default:
				tmask, e = decodeNumber(f.s, haveTextMonth, fmask, &tm, order, false)
			}
			if e != dtOK {
				return 0, 0, 0, e
			}
		case 'S':
			if len(f.s) > 10 {
				return 0, 0, 0, dtRefuse
			}
			v, ok := dateTokens[f.s]
			if !ok {
				return 0, 0, 0, dtRefuse // a zone, a special, units: not decoded here
			}
			switch {
			case v == 300:
				continue
			case v >= 200:
				tmask, tm.bc = dmBC, v == 201
			case v >= 100:
				tmask = dmDOW
			default:
				// A numeric month already and no day: that number was
				// the day ('99 08 Jan').
				tmask = dmMonth
				if fmask&dmMonth != 0 && !haveTextMonth && fmask&dmDay == 0 && tm.mon >= 1 && tm.mon <= 31 {
					tm.mday, tmask = tm.mon, dmDay
				}
				tm.mon, haveTextMonth = int64(v), true
			}
		}
		if tmask&fmask != 0 {
			return 0, 0, 0, dtBadFormat
		}
		fmask |= tmask
	}
	if e := validateDate(fmask, &tm); e != dtOK {
		return 0, 0, 0, e
	}
	if fmask&dmDate != dmDate {
		return 0, 0, 0, dtBadFormat
	}
	return tm.year, tm.mon, tm.mday, dtOK
}

// decodeDatePart is DecodeDate: a field with embedded separators.
func decodeDatePart(s string, fmask int, tm *dateTm, order dateOrder) (int, dtErr) {
	var fields []string
	i := 0
	for i < len(s) && len(fields) < 25 {
		for i < len(s) && !isAlnum(s[i]) {
			i++
		}
		if i >= len(s) {
			return 0, dtBadFormat // a separator at the end
		}
		j := i
		if isDigit(s[i]) {
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		} else {
			for i < len(s) && isAlpha(s[i]) {
				i++
			}
		}
		fields = append(fields, s[j:i])
		if i < len(s) {
			i++ // the character after a run ends the field, whatever it is
		}
	}
	if i < len(s) {
		return 0, dtRefuse
	}
	tmask := 0
	haveTextMonth := false
	done := make([]bool, len(fields))
	for k, f := range fields {
		if !isAlpha(f[0]) {
			continue
		}
		v, ok := dateTokens[f]
		if len(f) > 10 || !ok && !coreTokens[f] {
			return 0, dtRefuse // DecodeSpecial of an unknown word: UNKNOWN_FIELD
		}
		if v == 300 {
			continue // IGNORE_DTF: skipped here, but left for the numeric pass, which fails on it
		}
		if !ok || v > 12 {
			return 0, dtBadFormat
		}
		tm.mon, haveTextMonth = int64(v), true
		if fmask&dmMonth != 0 {
			return 0, dtBadFormat
		}
		fmask |= dmMonth
		tmask |= dmMonth
		done[k] = true
	}
	for k, f := range fields {
		if done[k] {
			continue
		}
		if isAlpha(f[0]) {
			return 0, dtBadFormat // 'at'/'on' given to DecodeNumber: strtoint reads nothing
		}
		dmask, e := decodeNumber(f, haveTextMonth, fmask, tm, order, true)
		if e != dtOK {
			return 0, e
		}
		if fmask&dmask != 0 {
			return 0, dtBadFormat
		}
		fmask |= dmask
		tmask |= dmask
	}
	if fmask&^dmDOY != dmDate {
		return 0, dtBadFormat // a weekday or AD/BC before it too: DecodeDate's check
	}
	return tmask, dtOK
}

// decodeNumber is DecodeNumber for a field of digits only.
//
// inDate: s is a field of DecodeDate, where a number after a whole date
// is DecodeNumberField's time, which DecodeDate then rejects (22007).
func decodeNumber(s string, haveTextMonth bool, fmask int, tm *dateTm, order dateOrder, inDate bool) (int, dtErr) {
	if s == "" {
		return 0, dtBadFormat
	}
	var val int64
	for k := 0; k < len(s); k++ {
		if !isDigit(s[k]) {
			if s[k] == '.' {
				return 0, dtRefuse // seconds or a concatenated date with a fraction
			}
			return 0, dtBadFormat
		}
		val = val*10 + int64(s[k]-'0')
		if val > 1<<31-1 {
			return 0, dtOverflow // strtoint's ERANGE
		}
	}
	flen := len(s)
	if flen == 3 && fmask&dmDate == dmYear && val >= 1 && val <= 366 {
		tm.yday = val
		return dmDOY | dmMonth | dmDay, dtOK
	}
	tmask := 0
	switch fmask & dmDate {
	case 0:
		switch {
		case flen >= 3 || order == orderYMD:
			tmask, tm.year = dmYear, val
		case order == orderDMY:
			tmask, tm.mday = dmDay, val
		default:
			tmask, tm.mon = dmMonth, val
		}
	case dmYear:
		tmask, tm.mon = dmMonth, val
	case dmMonth:
		if haveTextMonth && (flen >= 3 || order == orderYMD) {
			tmask, tm.year = dmYear, val
		} else {
			tmask, tm.mday = dmDay, val
		}
	case dmYear | dmMonth:
		if haveTextMonth && flen >= 3 && tm.is2digits {
			tm.mday, tm.year, tm.is2digits = tm.year, val, false
			return dmDay, dtOK
		}
		tmask, tm.mday = dmDay, val
	case dmDay:
		tmask, tm.mon = dmMonth, val
	case dmMonth | dmDay:
		tmask, tm.year = dmYear, val
	case dmDate:
		switch {
		case !inDate && flen == 4:
			return 0, dtRefuse // DecodeNumberField's hhmm: a time, not decoded here
		case !inDate:
			return 0, dtBadFormat // DecodeNumberField: not a time either
		case fmask&dmTime == 0 && (flen == 4 || flen == 6):
			return dmTime, dtOK
		default:
			return 0, dtBadFormat
		}
	default:
		return 0, dtBadFormat
	}
	if tmask == dmYear {
		tm.is2digits = flen <= 2
	}
	return tmask, dtOK
}

// decodeNumberField is DecodeNumberField for a run of six or more digits
// before any date field: YYYYMMDD or YYMMDD (day and month from the end).
func decodeNumberField(s string, fmask int, tm *dateTm) (int, dtErr) {
	if fmask&dmDate == dmDate {
		if len(s) == 6 {
			return 0, dtRefuse // hhmmss: a time, not decoded here
		}
		return 0, dtBadFormat
	}
	if len(s) > 12 {
		return 0, dtRefuse
	}
	atoi := func(t string) int64 {
		var v int64
		for k := 0; k < len(t); k++ {
			v = v*10 + int64(t[k]-'0')
		}
		return v
	}
	n := len(s)
	tm.mday, tm.mon, tm.year = atoi(s[n-2:]), atoi(s[n-4:n-2]), atoi(s[:n-4])
	if tm.year > 1<<31-1 {
		return 0, dtRefuse // atoi's overflow
	}
	if n-4 == 2 {
		tm.is2digits = true
	}
	return dmDate, dtOK
}

// validateDate is ValidateDate (no Julian days here).
func validateDate(fmask int, tm *dateTm) dtErr {
	if fmask&dmYear != 0 {
		switch {
		case tm.bc:
			if tm.year <= 0 {
				return dtOverflow
			}
			tm.year = -(tm.year - 1)
		case tm.is2digits:
			if tm.year < 70 {
				tm.year += 2000
			} else if tm.year < 100 {
				tm.year += 1900
			}
		default:
			if tm.year <= 0 {
				return dtOverflow
			}
		}
	}
	if fmask&dmDOY != 0 {
		if tm.year > 5000000 || tm.year < -5000000 {
			return dtRefuse // PostgreSQL's int date2j overflows: a date no one can mean
		}
		tm.year, tm.mon, tm.mday = j2date(date2j(tm.year, 1, 1) + tm.yday - 1)
	}
	if fmask&dmMonth != 0 && (tm.mon < 1 || tm.mon > 12) {
		return dtOverflow
	}
	if fmask&dmDay != 0 && (tm.mday < 1 || tm.mday > 31) {
		return dtOverflow
	}
	if fmask&dmDate == dmDate {
		dim := daysInMonth[tm.mon]
		if tm.mon == 2 && isLeap(tm.year) {
			dim = 29
		}
		if tm.mday > dim {
			return dtOverflow
		}
	}
	return dtOK
}

// parseDateAnyOrder decodes s as a date under each DateStyle order and
// answers only when all three agree. ok is false when the input is not
// decoded here or the orders disagree: the caller's refusal stands.
func parseDateAnyOrder(s string) (v DateVal, ok bool, err error) {
	fields, e := parseDateFields(s)
	if e != dtOK || len(fields) == 0 {
		return 0, false, nil
	}
	var first DateVal
	var firstErr error
	for k, order := range []dateOrder{orderYMD, orderDMY, orderMDY} {
		y, m, d, e := decodeDateFields(fields, order)
		var v DateVal
		var err error
		switch e {
		case dtRefuse:
			return 0, false, nil
		case dtBadFormat:
			err = errorf(CodeDatetimeFormat, "invalid input syntax for type date: \"%s\"", s)
		case dtOverflow:
			err = fieldRange(s)
		default:
			v, err = dateOf(s, y, m, d)
		}
		if k == 0 {
			first, firstErr = v, err
			continue
		}
		if (err == nil) != (firstErr == nil) || err == nil && v != first || err != nil && err.(*Error).Code != firstErr.(*Error).Code {
			return 0, false, nil
		}
	}
	return first, true, firstErr
}

// dateOf is date_in's range checks over a decoded year, month and day.
func dateOf(s string, y, m, d int64) (DateVal, error) {
	j := date2j(y, m, d)
	if y < -4713 || y == -4713 && m < 11 || j < 0 || j >= dateEndJulian {
		return 0, errorf(CodeDatetimeField, "date out of range: \"%s\"", s)
	}
	return DateVal(j - postgresEpochJDate), nil
}
