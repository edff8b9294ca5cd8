package builtin

import (
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// makeTimestamptzZone is the zone make_timestamptz(…, zone) reads, as
// PostgreSQL's parse_sane_timezone: a leading digit is an error; a
// numeric offset ("+2", "-03:30", "+0530", ISO sign: east of Greenwich
// is +) is decoded first (DecodeTimezone), out of range 22023; any other
// name is an abbreviation or a zone name as AT TIME ZONE reads it. AT
// TIME ZONE '+2' is POSIX (two hours west); make_timestamptz's '+2' is
// two hours east.
func (r *Registry) makeTimestamptzZone(c *Context, name string) (*types.Zone, error) {
	if name != "" && name[0] >= '0' && name[0] <= '9' {
		return nil, errorf(CodeInvalidParameter, "invalid input syntax for type numeric time zone: \"%s\"", name)
	}
	if name == "" || name[0] != '+' && name[0] != '-' {
		return r.atTimeZone(c, name)
	}
	east, bad, overflow := decodeTimezone(name)
	switch {
	case overflow:
		return nil, errorf(CodeInvalidParameter, "numeric time zone \"%s\" out of range", name)
	case bad:
		// PostgreSQL hands "+2x", "+2.5" to its zone-name parser, which
		// reads them as POSIX zone specs of its own dialect.
		return nil, unsupported("make_timestamptz with the time zone \"%s\" (neither a numeric offset nor a zone name sidecar reads as PostgreSQL does)", name)
	}
	return types.ZoneFromSeconds(east), nil
}

// decodeTimezone is PostgreSQL's DecodeTimezone for s starting with + or
// -: [+-]hh[:mm[:ss]] or [+-]hhmm, hours ≤ 15; east is the offset in
// seconds east of Greenwich. bad: not that syntax (trailing characters);
// overflow: a field out of range (checked before the trailing text, as
// PostgreSQL does).
func decodeTimezone(s string) (east int64, bad, overflow bool) {
	hr, rest, ok := tzStrtoint(s[1:])
	if !ok {
		return 0, false, true
	}
	var mn, sec int64
	switch {
	case rest != "" && rest[0] == ':':
		if mn, rest, ok = tzStrtoint(rest[1:]); !ok {
			return 0, false, true
		}
		if rest != "" && rest[0] == ':' {
			if sec, rest, ok = tzStrtoint(rest[1:]); !ok {
				return 0, false, true
			}
		}
	case rest == "" && len(s) > 3:
		mn, hr = hr%100, hr/100
	}
	if hr < 0 || hr > 15 || mn < 0 || mn >= 60 || sec < 0 || sec >= 60 {
		return 0, false, true
	}
	east = (hr*60+mn)*60 + sec
	if s[0] == '-' {
		east = -east
	}
	return east, rest != "", false
}

// tzStrtoint is C's strtol into an int as PostgreSQL's strtoint uses it:
// leading white space, an optional sign, decimal digits; rest is what
// follows the digits (all of s when there are none); ok is false past
// the int range (ERANGE).
func tzStrtoint(s string) (n int64, rest string, ok bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if n = n*10 + int64(s[i]-'0'); n > math.MaxInt32+1 {
			n = math.MaxInt32 + 1
		}
		i++
	}
	if i == start {
		return 0, s, true
	}
	if neg {
		n = -n
	}
	if n > math.MaxInt32 || n < math.MinInt32 {
		return 0, s[i:], false
	}
	return n, s[i:], true
}
