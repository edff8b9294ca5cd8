package sqlfront_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// Issue 23 (tools): Rails' PostgreSQL adapter runs
// `SET intervalstyle = iso_8601` on every connection, and the SQL port
// refused it (0A000), so a Rails application (Blazer, ActiveRecord read
// replicas) could not connect. Every IntervalStyle is accepted now:
// interval result columns print as PostgreSQL's interval_out does in
// that style (EncodeInterval), a statement printing an interval inside
// itself is refused, and under sql_standard an interval input whose
// leading '-' applies to every field is refused. Checked against
// PostgreSQL over edge values and seeded random ones (the seed is
// printed), in text and binary format.
func TestIntervalStylesMatchPostgres(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	vals := []string{"0", "1 sec", "-1 sec", "0.5 sec", "-0.5 sec", "0.000001 sec", "1 min 1 sec", "1 day", "-1 day", "1 mon", "-1 mon",
		"1 year", "-1 year", "1 year 2 mons 3 days 04:05:06.7", "-1 year -2 mons", "-3 days +04:05", "1 day -1 sec", "-1 day +1 sec",
		"1 mon -1 day", "100000 hours", "-100000 hours", "2 years 3 hours", "-2 years -3 hours", "12 mons", "13 mons", "-13 mons",
		"1 day 1 sec", "1 sec 500 microseconds", "178000000 years", "-178000000 years", "2147483647 days", "-2147483648 days",
		"2000000000 hours", "-2000000000 hours", "1 mon 1 day 1 microsecond", "-1 mon -1 day -1 microsecond"}
	for i := 0; i < 150; i++ {
		sign := func() int64 {
			if rng.Intn(2) == 0 {
				return -1
			}
			return 1
		}
		m, d, us := int64(0), int64(0), int64(0)
		if rng.Intn(3) > 0 {
			m = sign() * rng.Int63n(400)
		}
		if rng.Intn(3) > 0 {
			d = sign() * rng.Int63n(100)
		}
		if rng.Intn(4) > 0 {
			us = sign() * rng.Int63n(1<<uint(rng.Intn(45)+1))
		}
		// Seconds with a fraction, not microseconds: 14 reads each
		// number of interval input as an int32.
		neg := ""
		if us < 0 {
			neg, us = "-", -us
		}
		vals = append(vals, fmt.Sprintf("%d mons %d days %s%d.%06d secs", m, d, neg, us/1e6, us%1e6))
	}
	var ins []string
	for i, v := range vals {
		ins = append(ins, fmt.Sprintf("(%d, '%s')", i+1, v))
	}
	r := newRig(t, []string{"public.ivs"}, []string{
		`CREATE TABLE ivs (id int PRIMARY KEY, span interval)`,
		`INSERT INTO ivs VALUES ` + strings.Join(ins, ", ") + `, (0, NULL)`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	answered := []string{
		`SELECT id, span FROM ivs ORDER BY id`,
		`SELECT id, -span AS neg, span * 2 AS twice, justify_interval(span) AS j FROM ivs WHERE id < 40 ORDER BY id`,
		`SELECT max(span), min(span), sum(span), count(*) FILTER (WHERE extract(day from span) > 3) FROM ivs WHERE id > 40`,
		`SELECT span FROM (SELECT span FROM ivs WHERE id BETWEEN 5 AND 25) s UNION SELECT interval '3 days' ORDER BY 1`,
		`SELECT interval '1 year 2 mons 3 days 04:05:06.7', interval '1 day -1 sec', interval '0'`,
	}
	refusedOrSame := []string{
		`SELECT span::text FROM ivs ORDER BY id`,
		`SELECT to_json(span) FROM ivs ORDER BY id`,
		`SELECT ARRAY[span] FROM ivs ORDER BY id`,
		`SELECT i FROM (SELECT id, span FROM ivs) i ORDER BY id`,
		`SELECT 'x' || span FROM ivs ORDER BY id`,
		`SELECT interval '-1 day 1 sec', interval '-1 1:00:00', interval '-1 day -1 sec'`,
		`SELECT count(*) FROM ivs WHERE span < '-1 2:00:00'`,
	}
	for _, style := range []string{"iso_8601", "sql_standard", "postgres_verbose", "ISO_8601", "postgres"} {
		set := "SET intervalstyle = '" + style + "'"
		for _, c := range conns {
			if got := simpleExec(ctx, c, set); len(got) > 0 && strings.HasPrefix(got[0], "ERROR") {
				t.Fatalf("%s: %q", set, got)
			}
		}
		if got, want := simpleExec(ctx, conns["sidecar"], "SHOW intervalstyle"), simpleExec(ctx, conns["postgresql"], "SHOW intervalstyle"); !slices.Equal(got, want) {
			t.Errorf("%s; SHOW intervalstyle: got %q, want %q", set, got, want)
		}
		for _, q := range answered {
			want := simpleExec(ctx, conns["postgresql"], q)
			got := simpleExec(ctx, conns["sidecar"], q)
			if len(got) > 0 && strings.HasPrefix(got[0], "ERROR 0A000") && strings.Contains(got[0], "as PostgreSQL 14 does") {
				continue // 14's int fields: -2147483648 days prints "--2147483648" there
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s; %s\n got %q\nwant %q", set, q, got, want)
			}
			rw := conns["postgresql"].ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()
			rg := conns["sidecar"].ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()
			if rw.Err != nil && rg.Err != nil && pgCode(rw.Err) == pgCode(rg.Err) {
				continue // the same error both ways
			}
			if rw.Err != nil || rg.Err != nil || !slices.EqualFunc(rw.Rows, rg.Rows, func(a, b [][]byte) bool {
				return slices.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) && (x == nil) == (y == nil) })
			}) {
				t.Errorf("%s; %s in binary format: sidecar %v, PostgreSQL %v", set, q, rg.Err, rw.Err)
			}
		}
		for _, q := range refusedOrSame {
			want := simpleExec(ctx, conns["postgresql"], q)
			got := simpleExec(ctx, conns["sidecar"], q)
			if !slices.Equal(got, want) && (len(got) == 0 || !strings.HasPrefix(got[0], "ERROR 0A000")) {
				t.Errorf("%s; %s\n got %q\nwant %q (or 0A000)", set, q, got, want)
			}
		}
		// A parameter's text is read in the style too.
		for _, p := range []string{"-1 day 1 sec", "1 day -1 sec", "P1DT2H"} {
			q := `SELECT count(*) FROM ivs WHERE span <= $1`
			rw := conns["postgresql"].ExecParams(ctx, q, [][]byte{[]byte(p)}, []uint32{1186}, nil, nil).Read()
			rg := conns["sidecar"].ExecParams(ctx, q, [][]byte{[]byte(p)}, []uint32{1186}, nil, nil).Read()
			if rg.Err != nil {
				if !strings.Contains(rg.Err.Error(), "0A000") {
					t.Errorf("%s; %s with $1 = %q: %v", set, q, p, rg.Err)
				}
				continue
			}
			if rw.Err != nil || !slices.EqualFunc(rw.Rows, rg.Rows, func(a, b [][]byte) bool { return slices.EqualFunc(a, b, slices.Equal) }) {
				t.Errorf("%s; %s with $1 = %q: sidecar %q, PostgreSQL %q (%v)", set, q, p, rg.Rows, rw.Rows, rw.Err)
			}
		}
	}
	// An invalid value fails as in PostgreSQL, and the session keeps its style.
	for _, c := range conns {
		simpleExec(ctx, c, "SET intervalstyle = iso_8601")
	}
	got, want := simpleExec(ctx, conns["sidecar"], "SET intervalstyle = bogus"), simpleExec(ctx, conns["postgresql"], "SET intervalstyle = bogus")
	if !slices.Equal(got, want) {
		t.Errorf("SET intervalstyle = bogus: got %q, want %q", got, want)
	}
	if got, want := simpleExec(ctx, conns["sidecar"], "SELECT span FROM ivs WHERE id = 14"), simpleExec(ctx, conns["postgresql"], "SELECT span FROM ivs WHERE id = 14"); !slices.Equal(got, want) {
		t.Errorf("after a bad SET: got %q, want %q", got, want)
	}
}
