package builtin

import (
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// extract/date_part of time and timetz (time_part_common and
// timetz_part_common, PostgreSQL 14+) and make_time. The units a time
// has are microseconds, milliseconds, second, minute, hour and epoch
// (timetz also timezone, timezone_hour, timezone_minute); every other
// unit of date_part's tables is "not supported" — 0A000 from 15 on, 14
// says 22023 "not recognized" for them too — and a word neither table
// holds (or a reserved word other than epoch) is 22023 on every major.

// usecsPerHr is microseconds per hour.
const usecsPerHr = 3600 * 1000000

// timeOfDay is a time's fields (time2tm): hour, minute, second and the
// microseconds of the second.
func timeOfDay(us int64) (h, m, s, fsec int64) {
	h = us / usecsPerHr
	us -= h * usecsPerHr
	m = us / 60000000
	us -= m * 60000000
	s = us / 1000000
	return h, m, s, us - s*1000000
}

// timePartFor is extract/date_part of a time (tz nil) or timetz (tz its
// zone, seconds west) whose local time is us microseconds.
func (r *Registry) timePartFor(low string, us int64, tz *int32) (part, error) {
	typ := types.Time
	if tz != nil {
		typ = types.Timetz
	}
	u, ok := deltaUnits[tok10(low)]
	if !ok {
		u, ok = specialUnits[tok10(low)]
	}
	if !ok || u == uReserved {
		return part{}, r.timeUnitErr(low, typ, false)
	}
	if u == uEpoch {
		if tz == nil {
			return part{n: us, scale: 6, f: float64(us) / 1000000.0}, nil
		}
		return part{n: us + int64(*tz)*1000000, scale: 6, f: float64(us)/1000000.0 + float64(*tz)}, nil
	}
	_, m, s, fsec := timeOfDay(us)
	if p, ok := secondsPart(u, s, fsec); ok { // datetime.go
		return p, nil
	}
	switch u {
	case uMinute:
		return intPart(m), nil
	case uHour:
		return intPart(us / usecsPerHr), nil
	}
	if tz != nil {
		switch west := int64(*tz); u {
		case uTZ:
			return intPart(-west), nil
		case uTZMinute:
			return intPart((-west / 60) % 60), nil
		case uTZHour:
			return intPart(-west / 3600), nil
		}
	}
	return part{}, r.timeUnitErr(low, typ, true)
}

// timeUnitErr is time_part_common's error for a unit: not recognized
// (22023), or one of date_part's units a time does not have — 0A000
// "not supported" from 15 on, 22023 "not recognized" on 14 (refused
// when the major is not known).
func (r *Registry) timeUnitErr(low string, typ OID, known bool) error {
	newer, major := r.atLeast(150000)
	switch {
	case known && !major:
		return unsupported("extract(%s) of %s when the server's major is not known (14 says 22023, later majors 0A000)", low, types.NameOf(typ))
	case !newer && major:
		name := "time"
		if typ == types.Timetz {
			name = "time with time zone"
		}
		return errorf(CodeInvalidParameter, "\"%s\" units \"%s\" not recognized", name, low)
	case known:
		return unitErr(CodeFeatureNotSupported, low, typ, "not supported")
	}
	return unitErr(CodeInvalidParameter, low, typ, "not recognized")
}

// makeTime is make_time (float_time_overflows, then tm2time).
func makeTime(h, m int64, sec float64) (types.Value, error) {
	us := math.RoundToEven(sec * 1000000)
	if h < 0 || h > 24 || m < 0 || m >= 60 || math.IsNaN(sec) || us < 0 || us > 60*1000000 ||
		(h*60+m)*60*1000000+int64(us) > usecsPerDay {
		return nil, errorf(CodeDatetimeOverflow, "time field value out of range: %d:%02d:%s", h, m, pgFloatG02(sec))
	}
	return types.TimeVal((h*60+m)*60*1000000 + int64(us)), nil
}

// pgFloatG02 is printf("%02g", f) as PostgreSQL's snprintf.c prints
// it (NaN, Infinity and -Infinity spelled out): %g is six significant
// digits, FormatFloatDigits' C form with extra_float_digits -9.
func pgFloatG02(f float64) string {
	s := types.FormatFloatDigits(f, 64, -9)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

// addTimeParts registers extract/date_part of time and timetz and
// make_time.
func (r *Registry) addTimeParts(partFns func(t OID, fn func(low string, v types.Value) (part, error))) {
	partFns(types.Time, func(low string, v types.Value) (part, error) {
		return r.timePartFor(low, int64(v.(types.TimeVal)), nil)
	})
	partFns(types.Timetz, func(low string, v types.Value) (part, error) {
		t := v.(types.TimeTZVal)
		return r.timePartFor(low, t.Micros, &t.Zone)
	})
	r.def("make_time", types.Time, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return makeTime(i64(a[0]), i64(a[1]), f8Of(a[2]))
	}, i4, i4, f8)
}
