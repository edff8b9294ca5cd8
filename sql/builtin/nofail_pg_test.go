package builtin_test

import (
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// TestCannotFailFactsHoldOnPostgres checks the "cannot fail" facts
// (nofail.go) against PostgreSQL: every call a fact says cannot fail
// answers, without an error, for the extreme values of its argument's
// type (the ends of the timestamp range, infinities, NaN) under session
// zones far east and west of UTC; and the calls it must not claim are
// not claimed — for AT TIME ZONE a named zone, PostgreSQL itself fails
// at an end of the range.
func TestCannotFailFactsHoldOnPostgres(t *testing.T) {
	conn := pgConn(t)
	ctx := t.Context()
	reg := builtin.NewFor(types.Dialect{Version: pg.ServerVersion()})
	extremes := map[string][]string{
		"timestamptz": {"4714-11-24 00:00:00+00 BC", "4714-11-24 11:59:59+00 BC", "294276-12-31 23:59:59.999999+00", "294276-12-31 12:00:00+00", "infinity", "-infinity", "2024-02-29 12:34:56.5+00", "0001-01-01 00:00:00+00 BC"},
		"timestamp":   {"4714-11-24 00:00:00 BC", "294276-12-31 23:59:59.999999", "infinity", "-infinity", "2024-02-29 12:34:56.5", "0001-12-31 23:59:59 BC"},
		"float8":      {"NaN", "Infinity", "-Infinity", "-0", "-1.7976931348623157e308", "5e-324"},
		"float4":      {"NaN", "-Infinity", "-3.4028235e38"},
		"numeric":     {"NaN", "-" + strings.Repeat("9", 131072), "-0.000000000000000000001", "0"},
		"text":        {"", "é", strings.Repeat("x", 10000)},
	}
	zones := []string{"UTC", "Etc/GMT-14", "Etc/GMT+12", "Asia/Tokyo", "America/New_York", "Europe/London"}
	type fcase struct {
		fn       string
		typ      string // the argument read per row
		consts   []string
		rowFirst bool // the row's value is the first argument
		claim    bool // the facts say it cannot fail
	}
	formats := []string{"YYYY-MM-DD HH24:MI:SS.US TZ OF", "Y,YYY YYY YY Y IYYY IYY IY I IW ID IDDD DDD DD D J Q RM rm CC W WW",
		`Day DAY day Month MONTH month Mon MON mon DY Dy dy FMDD FMMonth "quoted TMth" \"x AM am a.m. P.M. BC b.c. A.D.`,
		"SSSSS SSSS SS FF1 FF3 FF6 MS US HH12 HH TZH:TZM tzh tz MONTH-th", ""}
	var cases []fcase
	for _, f := range formats {
		cases = append(cases, fcase{"to_char", "timestamptz", []string{f}, true, true}, fcase{"to_char", "timestamp", []string{f}, true, true})
	}
	for _, f := range []string{"TMMonth", "DDth", "YYYYTH", "DDSP", "tmday"} {
		cases = append(cases, fcase{"to_char", "timestamptz", []string{f}, true, false}, fcase{"to_char", "timestamp", []string{f}, true, false})
	}
	for _, z := range []string{"UTC", "utc", "GMT", "Etc/UTC", "Z", "Zulu", "UCT", "Universal"} {
		cases = append(cases, fcase{"timezone", "timestamptz", []string{z}, false, true}, fcase{"timezone", "timestamp", []string{z}, false, true})
	}
	for _, z := range []string{"Asia/Tokyo", "America/New_York", "Europe/London", "+05", "EST"} {
		cases = append(cases, fcase{"timezone", "timestamptz", []string{z}, false, false}, fcase{"timezone", "timestamp", []string{z}, false, false})
	}
	for _, typ := range []string{"float8", "float4", "numeric"} {
		cases = append(cases, fcase{"abs", typ, nil, true, true})
	}
	for _, fn := range []string{"length", "char_length", "octet_length"} {
		cases = append(cases, fcase{fn, "text", nil, true, true})
	}
	failsOnPG := map[string]bool{}
	for _, c := range cases {
		tt, _, err := types.Parse(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		oids := []uint32{tt.OID}
		consts := []*string{nil}
		for i := range c.consts {
			oids = append(oids, types.Unknown)
			consts = append(consts, &c.consts[i])
		}
		if !c.rowFirst {
			oids[0], oids[1] = oids[1], oids[0]
			consts[0], consts[1] = consts[1], consts[0]
		}
		call, err := reg.Resolve(c.fn, oids)
		if err != nil {
			t.Fatalf("%s(%s): %v", c.fn, c.typ, err)
		}
		if got := call.CannotFail(consts); got != c.claim {
			t.Errorf("%s(%s, %q): CannotFail %v, want %v", c.fn, c.typ, c.consts, got, c.claim)
		}
		for _, zone := range zones {
			if _, err := conn.Exec(ctx, "SET TimeZone = '"+zone+"'"); err != nil {
				t.Fatal(err)
			}
			for _, v := range extremes[c.typ] {
				args := []string{"'" + v + "'::" + c.typ}
				for _, k := range c.consts {
					args = append(args, "'"+strings.ReplaceAll(k, "'", "''")+"'::text")
				}
				if !c.rowFirst {
					args[0], args[1] = args[1], args[0]
				}
				q := "SELECT " + c.fn + "(" + strings.Join(args, ", ") + ")::text"
				var out *string
				err := conn.QueryRow(ctx, q).Scan(&out)
				if err != nil && c.claim {
					t.Errorf("TimeZone %s: %.200s: PostgreSQL fails (%v) where the facts say it cannot", zone, q, err)
				}
				if err != nil {
					failsOnPG[c.fn+" "+c.consts[0]] = true
				}
			}
		}
	}
	// The facts must not claim AT TIME ZONE a named zone: PostgreSQL
	// fails there at an end of the range (timestamp out of range).
	for _, z := range []string{"Asia/Tokyo", "America/New_York"} {
		if !failsOnPG["timezone "+z] {
			t.Errorf("timezone(%q, …) did not fail on PostgreSQL at the range's ends: the test's extremes do not reach them", z)
		}
	}
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
}
