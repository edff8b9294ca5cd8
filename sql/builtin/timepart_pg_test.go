package builtin_test

import (
	"testing"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// timeUnits are every word date_part's tables hold (DecodeUnits'
// deltatktbl and DecodeSpecial's datetktbl words), in several cases,
// and words neither holds.
var timeUnits = lits("microseconds", "microsecon", "us", "usec", "usecs", "usecond", "useconds", "milliseconds", "ms", "msec",
	"msecs", "msecond", "mseconds", "millisecon", "second", "seconds", "s", "sec", "secs", "minute", "minutes", "m", "min", "mins", "mm",
	"hour", "hours", "h", "hr", "hrs", "HOUR", "Second", "day", "days", "d", "week", "w", "month", "mon", "quarter", "qtr", "year", "y",
	"yr", "decade", "dec", "century", "c", "cent", "millennium", "mil", "millennia", "timezone", "timezone_h", "timezone_hour",
	"timezone_m", "timezone_minute", "dow", "isodow", "doy", "isoyear", "julian", "j", "jd", "epoch", "EPOCH", "infinity", "-infinity",
	"now", "today", "tomorrow", "yesterday", "allballs", "foo", "", "tz", "hour ", "microsecondsxx", "millisecondsx")

// TestTimePartMatchesPostgres compares extract and date_part of time
// and timetz, and make_time, with PostgreSQL: every unit word of
// date_part's tables (the units a time has, the ones it does not —
// 0A000 from 15, 22023 on 14 — and unknown words). Before, extract and
// date_part of time were refused (0A000) and of timetz and make_time
// did not exist (42883).
func TestTimePartMatchesPostgres(t *testing.T) {
	times := vals("time", "00:00", "10:23:54.123456", "23:59:59.999999", "24:00:00", "12:00:00.5", "01:02:03")
	timetzs := vals("timetz", "00:00+00", "10:23:54.123456+02", "23:59:59.999999-05:30", "24:00:00+14", "12:00:00.5-14:59",
		"01:02:03+05:45:30", "10:00-00:00:01")
	var cases []call
	for _, fn := range []string{"extract", "date_part"} {
		cases = append(cases, cross(fn, timeUnits, times)...)
		cases = append(cases, cross(fn, timeUnits, timetzs)...)
	}
	cases = append(cases, cross("make_time", vals("int4", "0", "1", "23", "24", "25", "-1", "12"), vals("int4", "0", "1", "59", "60", "-1"),
		vals("float8", "0", "1.5", "59.999999", "59.9999999", "60", "60.0000004", "60.0000005", "-0.0000004", "-1", "NaN", "Infinity",
			"-Infinity", "5", "1e6", "0.000001", "12.3456785"))...)
	cases = append(cases, cross("make_time", lits("10"), lits("30"), lits("1.25", "7"))...)
	runDifferential(t, cases)
	sameErrorTexts(t, cases)
	noRefusals(t, cross("extract", lits("hour", "epoch", "second", "timezone", "milliseconds"), timetzs))
}

// sameErrorTexts checks that where PostgreSQL and the library both
// fail with one SQLSTATE they also say the same message (runDifferential
// compares SQLSTATEs only).
func sameErrorTexts(t *testing.T, cases []call) {
	t.Helper()
	conn := pgConn(t)
	reg := builtin.NewFor(types.Dialect{Version: pg.ServerVersion()})
	bad := 0
	for _, c := range cases {
		want := pgOutcome(t.Context(), t, conn, c)
		got := libOutcome(reg, &builtin.Context{}, c)
		if want.code != "" && got.code == want.code && got.msg != want.msg {
			if bad++; bad <= 10 {
				t.Errorf("%s: PostgreSQL says %q, sidecar %q", c.sql(), want.msg, got.msg)
			}
		}
	}
}
