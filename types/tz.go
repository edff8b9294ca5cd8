package types

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// This file is the session TimeZone: the zone timestamptz values are
// printed in, and local times (timestamptz input without an offset, casts
// from timestamp and date, date_trunc and extract over timestamptz) are
// read in, as PostgreSQL's session_timezone. Zone names come from the tz
// database the process reads (Go's time.LoadLocation: /usr/share/zoneinfo
// on Debian, the files PostgreSQL's Debian packages read too); a POSIX
// offset ("UTC+3", "+05:30": west of Greenwich positive, as PostgreSQL's
// pg_tzset) and a number or an interval (SET TIME ZONE 5 / INTERVAL
// '+05:30' HOUR TO MINUTE: east positive) are fixed offsets. Whether the
// process's tz database agrees with the followed server's is the
// caller's to prove (docs/DESIGN.md, "Time zones").

// Zone is a time zone as the session's TimeZone holds it. The zero
// Zone and nil are UTC.
type Zone struct {
	// Name is the setting as SHOW TimeZone prints it.
	Name string
	loc  *time.Location // nil: the fixed offset east
	east int64          // seconds east of UTC when loc is nil
}

// UTC is the zone "UTC".
var utcZone = &Zone{Name: "UTC"}

// UTCZone is the zone named UTC (the mirror's default).
func UTCZone() *Zone { return utcZone }

// IsUTC says whether z is UTC at every instant (nil, a UTC name, or a
// zero fixed offset).
func (z *Zone) IsUTC() bool { return z == nil || z.loc == nil && z.east == 0 }

// Fixed says whether the zone has one offset at every instant (no tz
// database involved).
func (z *Zone) Fixed() bool { return z == nil || z.loc == nil }

// Location is the tz database zone behind z (nil for a fixed offset).
func (z *Zone) Location() *time.Location {
	if z == nil {
		return nil
	}
	return z.loc
}

// zoneDir is where the tz database is read from (as Go's time package
// reads it on Unix).
func zoneDir() string {
	if d := os.Getenv("ZONEINFO"); d != "" {
		return d
	}
	return "/usr/share/zoneinfo"
}

// ParseZone reads a TimeZone setting as PostgreSQL's check_timezone: a
// number is hours east ("5", "-7.5"), "INTERVAL '…'" is not read here
// (see ZoneFromInterval); anything else is a zone name of the tz
// database (matched case-insensitively, reported in its file's spelling)
// or a POSIX zone string with a fixed offset ("UTC+3", "<+05>-5",
// "+05:30"). An unknown zone is 22023 as PostgreSQL's.
func ParseZone(s string) (*Zone, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpPnNiI_") && strings.TrimSpace(s) == s && s != "" {
		// strtod's whole string: hours east of Greenwich.
		if math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) >= 168 {
			return nil, invalidZone(s)
		}
		return fixedZone(int64(math.Round(f * 3600))), nil
	}
	return LookupZone(s)
}

// LookupZone is PostgreSQL's pg_tzset: a zone of the tz database
// (matched case-insensitively) or a POSIX zone string with a fixed
// offset; 22023 when neither.
func LookupZone(s string) (*Zone, error) {
	if z, ok := posixFixed(s); ok {
		return z, nil
	}
	if strings.HasPrefix(strings.ToLower(s), "right/") || strings.Contains(s, "..") || strings.HasPrefix(s, "/") || s == "" {
		return nil, invalidZone(s)
	}
	name, ok := zoneFileName(s)
	if !ok {
		if z, ok := utcWithoutData(s); ok {
			return z, nil
		}
		return nil, invalidZone(s)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, invalidZone(s)
	}
	if name == "UTC" || name == "Etc/UTC" {
		return &Zone{Name: name}, nil
	}
	return &Zone{Name: name, loc: loc}, nil
}

// ZoneFromSeconds is the fixed zone of SET TIME ZONE INTERVAL '…': east
// seconds east of Greenwich, named as PostgreSQL's pg_tzset_offset.
func ZoneFromSeconds(east int64) *Zone { return fixedZone(east) }

// fixedZone is pg_tzset_offset's zone: named "<+05:30>-05:30".
func fixedZone(east int64) *Zone {
	abbr := appendOffsetName(nil, east)
	posix := appendOffsetName(nil, -east)
	return &Zone{Name: "<" + string(abbr) + ">" + string(posix), east: east}
}

// appendOffsetName appends ±HH[:MM[:SS]] of east seconds.
func appendOffsetName(dst []byte, east int64) []byte {
	if east < 0 {
		dst = append(dst, '-')
		east = -east
	} else {
		dst = append(dst, '+')
	}
	dst = appendPadded(dst, east/3600, 2)
	if east%3600 != 0 {
		dst = append(dst, ':')
		dst = appendPadded(dst, east%3600/60, 2)
		if east%60 != 0 {
			dst = append(dst, ':')
			dst = appendPadded(dst, east%60, 2)
		}
	}
	return dst
}

func invalidZone(s string) error {
	return errorf(CodeInvalidParam, "invalid value for parameter \"TimeZone\": \"%s\"", s)
}

// zoneFileName finds the tz database file s names, ignoring case as
// PostgreSQL's pg_open_tzfile does, and returns its spelling.
func zoneFileName(s string) (string, bool) {
	dir := zoneDir()
	if fi, err := os.Stat(filepath.Join(dir, s)); err == nil && !fi.IsDir() {
		return s, true
	}
	parts := strings.Split(s, "/")
	cur, out := dir, make([]string, 0, len(parts))
	for _, p := range parts {
		ents, err := os.ReadDir(cur)
		if err != nil {
			return "", false
		}
		found := ""
		for _, e := range ents {
			if strings.EqualFold(e.Name(), p) {
				found = e.Name()
				break
			}
		}
		if found == "" {
			return "", false
		}
		out = append(out, found)
		cur = filepath.Join(cur, found)
	}
	if fi, err := os.Stat(cur); err != nil || fi.IsDir() {
		return "", false
	}
	return strings.Join(out, "/"), true
}

// posixFixed reads a POSIX TZ string without daylight-saving rules
// ("UTC+3", "<+05>-5", "+05:30"): std name, then the offset west of
// Greenwich. Zone names of the database ("EST", "GMT+2" as a file) are
// not taken here when the file exists (PostgreSQL loads the file first).
func posixFixed(s string) (*Zone, bool) {
	if _, ok := zoneFileName(s); ok && s != "" {
		return nil, false
	}
	i := 0
	if strings.HasPrefix(s, "<") {
		j := strings.IndexByte(s, '>')
		if j < 0 {
			return nil, false
		}
		i = j + 1
	} else {
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			i++
		}
		if i > 0 && i < 3 {
			return nil, false
		}
	}
	west, n, ok := posixOffset(s[i:])
	if !ok || n != len(s)-i {
		return nil, false
	}
	return &Zone{Name: s, east: -west}, true
}

// posixOffset reads [+-]hh[:mm[:ss]] (POSIX: positive west); n bytes.
func posixOffset(s string) (west int64, n int, ok bool) {
	sign := int64(1)
	if n < len(s) && (s[n] == '+' || s[n] == '-') {
		if s[n] == '-' {
			sign = -1
		}
		n++
	}
	var fields [3]int64
	for f := 0; f < 3; f++ {
		start := n
		for n < len(s) && s[n] >= '0' && s[n] <= '9' && n-start < 3 {
			fields[f] = fields[f]*10 + int64(s[n]-'0')
			n++
		}
		if n == start {
			return 0, 0, false
		}
		if n < len(s) && s[n] == ':' && f < 2 {
			n++
			continue
		}
		break
	}
	if fields[0] > 167 || fields[1] > 59 || fields[2] > 59 {
		return 0, 0, false
	}
	return sign * (fields[0]*3600 + fields[1]*60 + fields[2]), n, true
}

// unixEpochUsecs is 1970-01-01 as a TimestampVal.
const unixEpochSecs = 946684800

// OffsetAt is the zone's offset (seconds east) at instant ts, as
// PostgreSQL's timestamp2tm reads it (the instant's seconds truncated
// toward 2000-01-01).
func (z *Zone) OffsetAt(ts TimestampVal) int64 {
	if z == nil || z.loc == nil {
		if z == nil {
			return 0
		}
		return z.east
	}
	secs := int64(ts)/usecsPerSec + unixEpochSecs
	_, off := time.Unix(secs, 0).In(z.loc).Zone()
	return int64(off)
}

// Abbrev is the zone's abbreviation at instant ts ("CET", "LMT").
func (z *Zone) Abbrev(ts TimestampVal) string {
	if z == nil || z.loc == nil {
		if z.IsUTC() {
			return "UTC"
		}
		return string(appendOffsetName(nil, z.east))
	}
	name, _ := time.Unix(int64(ts)/usecsPerSec+unixEpochSecs, 0).In(z.loc).Zone()
	return name
}

// OffsetOfLocal is PostgreSQL's DetermineTimeZoneOffset: the offset
// (seconds east) a local wall time (microseconds since 2000-01-01 as if
// UTC) has in the zone. In a gap (spring forward) the offset before the
// transition is taken, in an overlap (fall back) the one after.
func (z *Zone) OffsetOfLocal(local int64) int64 {
	if z == nil || z.loc == nil {
		return z.OffsetAt(0)
	}
	t := floorDiv(local, usecsPerSec) + unixEpochSecs
	prev := time.Unix(t-86400, 0).In(z.loc)
	_, before := prev.Zone()
	_, end := prev.ZoneBounds()
	if end.IsZero() {
		return int64(before)
	}
	boundary := end.Unix()
	_, after := end.In(z.loc).Zone()
	bt, at := t-int64(before), t-int64(after)
	switch {
	case bt < boundary && at < boundary:
		return int64(before)
	case bt >= boundary && at >= boundary:
		// The next boundary may be within a day too (never in the
		// tz database: transitions are ≥ 48 hours apart).
		return int64(after)
	case bt > at:
		return int64(before)
	}
	return int64(after)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// LocalToUTC is a local wall time of the zone as an instant (22008 out
// of range).
func (z *Zone) LocalToUTC(local TimestampVal) (TimestampVal, error) {
	if local == TimestampPosInf || local == TimestampNegInf {
		return local, nil
	}
	us := int64(local) - z.OffsetOfLocal(int64(local))*usecsPerSec
	if !tsInRange(us) {
		return 0, errorf(CodeDatetimeField, "timestamp out of range")
	}
	return TimestampVal(us), nil
}

// UTCToLocal is instant ts as the zone's local wall time.
func (z *Zone) UTCToLocal(ts TimestampVal) (TimestampVal, error) {
	if ts == TimestampPosInf || ts == TimestampNegInf {
		return ts, nil
	}
	us := int64(ts) + z.OffsetAt(ts)*usecsPerSec
	if !tsInRange(us) {
		return 0, errorf(CodeDatetimeField, "timestamp out of range")
	}
	return TimestampVal(us), nil
}

// AppendTimestamptzIn is timestamptz_out in zone z.
func AppendTimestamptzIn(dst []byte, ts TimestampVal, z *Zone) []byte {
	if z.IsUTC() || ts == TimestampPosInf || ts == TimestampNegInf {
		return appendTimestamp(dst, ts, true)
	}
	off := z.OffsetAt(ts)
	dst = appendTimestamp(dst, TimestampVal(int64(ts)+off*usecsPerSec), false)
	bc := false
	if strings.HasSuffix(string(dst[max(0, len(dst)-3):]), " BC") {
		dst, bc = dst[:len(dst)-3], true
	}
	dst = appendZone(dst, int32(-off))
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// OutIn is the output function of oid in zone z (timestamptz and arrays
// of it print their local time and offset; the rest as Out).
func OutIn(oid OID, v Value, z *Zone) string {
	if z.IsUTC() {
		return Out(oid, v)
	}
	switch oid {
	case Timestamptz:
		return string(AppendTimestamptzIn(nil, v.(TimestampVal), z))
	case Tstzrange:
		return string(AppendRangeOut(nil, oid, v.(RangeVal), z)) // rangetype.go
	}
	return Out(oid, v)
}

// InIn is the input function of oid in zone z: timestamptz text without
// an offset is a local time of z.
func InIn(oid OID, mod int32, s string, z *Zone) (Value, error) {
	if oid == Tstzrange && !z.IsUTC() {
		return ParseRange(oid, s, z) // rangetype.go
	}
	if oid != Timestamptz || z.IsUTC() {
		return In(oid, mod, s)
	}
	p, err := decodeDateTime(oid, s, true)
	if err != nil {
		return nil, err
	}
	v, err2 := In(oid, -1, s) // the ISO checks, specials and range
	if err2 != nil {
		return nil, err2
	}
	if p.special != 0 || p.hasZone {
		return Convert(v, Timestamptz, Timestamptz, mod)
	}
	local := (date2j(p.y, p.m, p.d)-postgresEpochJDate)*usecsPerDay + p.us
	ts, err2 := z.LocalToUTC(TimestampVal(local))
	if err2 != nil {
		return nil, errorf(CodeDatetimeField, "timestamp out of range: \"%s\"", s)
	}
	return Convert(ts, Timestamptz, Timestamptz, mod)
}

// isStringType: the types whose casts from and to timestamptz go through
// its text.
func isStringType(o OID) bool {
	switch o {
	case Text, Varchar, Bpchar, Name, Unknown:
		return true
	}
	return false
}

// ConvertIn is Convert in zone z: the casts between timestamptz and
// timestamp, date, time and text read and print local time of z;
// time → timetz (the zone's offset "today") is refused outside UTC.
func ConvertIn(v Value, from, to OID, mod int32, z *Zone) (Value, error) {
	if ts, ok := v.(TimestampVal); ok && (from == Timestamp || from == Timestamptz) && (to == Time || to == Timetz) &&
		(ts == TimestampPosInf || ts == TimestampNegInf) {
		return nil, nil // timestamp_time, timestamptz_time(tz): NULL for an infinity
	}
	if !z.IsUTC() && (from == Tstzrange || to == Tstzrange) && from != to {
		return convertTstzrangeIn(v, from, to, mod, z) // rangetype.go
	}
	if z.IsUTC() || from == to || from != Timestamptz && to != Timestamptz && !(from == Time && to == Timetz) {
		return Convert(v, from, to, mod)
	}
	switch {
	case from == Time && to == Timetz:
		return nil, errorf(CodeUnsupported, "a cast from time to timetz when TimeZone is not UTC")
	case from == Timestamptz && isStringType(to):
		return Convert(OutIn(Timestamptz, v, z), Text, to, mod)
	case to == Timestamptz && isStringType(from):
		s, ok := v.(string)
		if !ok {
			return Convert(v, from, to, mod)
		}
		if from == Bpchar {
			s = strings.TrimRight(s, " ")
		}
		return InIn(Timestamptz, mod, s, z)
	case from == Timestamptz:
		ts := v.(TimestampVal)
		if ts == TimestampPosInf || ts == TimestampNegInf {
			return Convert(v, from, to, mod)
		}
		switch to {
		case Timestamp, Date, Time:
			local, err := z.UTCToLocal(ts)
			if err != nil {
				return nil, err
			}
			return Convert(local, Timestamp, to, mod)
		case Timetz:
			off := z.OffsetAt(ts)
			local := int64(ts) + off*usecsPerSec
			_, rem := floorDivMod(local, usecsPerDay)
			return Convert(TimeTZVal{Micros: rem, Zone: int32(-off)}, Timetz, Timetz, mod)
		}
	case to == Timestamptz:
		switch from {
		case Timestamp, Date:
			l, err := Convert(v, from, Timestamp, -1)
			if err != nil {
				return nil, err
			}
			ts, err := z.LocalToUTC(l.(TimestampVal))
			if err != nil {
				return nil, err
			}
			return Convert(ts, Timestamptz, Timestamptz, mod)
		}
	}
	return Convert(v, from, to, mod)
}

func floorDivMod(a, b int64) (int64, int64) {
	q := floorDiv(a, b)
	return q, a - q*b
}

// utcWithoutData is UTC and Etc/UTC on a machine without a tz database
// (a slim container image): they need no data, and a followed server's
// default zone is often one of them (sqlfront's session defaults).
func utcWithoutData(s string) (*Zone, bool) {
	if _, err := os.Stat(zoneDir()); err == nil {
		return nil, false
	}
	for _, n := range []string{"UTC", "Etc/UTC"} {
		if strings.EqualFold(s, n) {
			return &Zone{Name: n}, true
		}
	}
	return nil, false
}
