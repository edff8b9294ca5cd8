package sqldiff_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

// TestRandomWide compares the sidecar's answers to the wide generator's
// queries (randwide.go: NULLs, NaN/±Infinity/-0, mixed-scale numerics,
// padded and non-ASCII text, an ICU column, churned heaps, a keyless
// table, inheritance; joins of every kind, grouping, windows, set
// operations, subqueries, CTEs) with PostgreSQL's, in text and binary
// format. A different answer or an answer where PostgreSQL failed fails
// the test; refusals and errors where PostgreSQL answered are counted
// and the most common shown. It runs the fixed seeds below and one
// random seed (printed; -seed replays one). SIDECAR_RANDWIDE_N sets the
// queries per seed (default 100).
func TestRandomWide(t *testing.T) {
	n := 100
	if s := os.Getenv("SIDECAR_RANDWIDE_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SIDECAR_RANDWIDE_N=%q: %v", s, err)
		}
		n = v
	}
	seeds := []uint64{20261205, 7, 1234567}
	if *seedFlag != 0 {
		seeds = nil
	}
	seeds = withClockSeed(t, seeds)
	seeds = envSeeds(t, "SIDECAR_RANDWIDE_SEEDS", seeds)
	t.Logf("seeds %v", seeds)
	ctx := context.Background()
	pgs, scs := followed(t, sqldiff.WideSetup, sqldiff.WideTables)
	for _, q := range wideCases {
		o := sqldiff.CompareWide(ctx, pgs, scs, q, true, 10*time.Second)
		if o.Class.Wrong() || o.Class == sqldiff.OrderOnly {
			t.Errorf("fixed case %s: %s\n  %s", q.SQL, o.Class, o.Message)
		}
	}
	for _, q := range wideParamCases {
		o := sqldiff.CompareParams(ctx, pgs, scs, q, 10*time.Second)
		if o.Class.Wrong() || o.Class == sqldiff.OrderOnly {
			t.Errorf("fixed case %s: %s\n  %s", q, o.Class, o.Message)
		}
	}
	counts := map[sqldiff.Class]int{}
	reasons := map[string]int{}
	failures := 0
	for _, sd := range seeds {
		gen := sqldiff.NewWideGen(sd)
		for i := range n {
			q := gen.Next()
			o := sqldiff.CompareWide(ctx, pgs, scs, q, i%4 == 0, 10*time.Second)
			counts[o.Class]++
			switch o.Class {
			case sqldiff.Refused, sqldiff.ErrorMismatch, sqldiff.Timeout:
				reasons[string(o.Class)+" "+o.Code+" "+fmt.Sprintf("%.120s", o.Message)]++
				if o.Class == sqldiff.ErrorMismatch {
					t.Logf("seed %d query %d: error where PostgreSQL answered: %s\n  %s %s", sd, i, q.SQL, o.Code, o.Message)
				}
			}
			if !o.Class.Wrong() && o.Class != sqldiff.OrderOnly {
				continue
			}
			failures++
			if failures <= 30 {
				t.Errorf("seed %d query %d: %s\n  %s\n  %s", sd, i, o.Class, q.SQL, o.Message)
			}
		}
		// prepared statements with parameters (extended protocol, text
		// and binary formats)
		for i := range n / 3 {
			q := gen.NextParam()
			o := sqldiff.CompareParams(ctx, pgs, scs, q, 10*time.Second)
			counts[o.Class]++
			switch o.Class {
			case sqldiff.Refused, sqldiff.ErrorMismatch, sqldiff.Timeout:
				reasons["params "+string(o.Class)+" "+o.Code+" "+fmt.Sprintf("%.120s", o.Message)]++
				if o.Class == sqldiff.ErrorMismatch {
					t.Logf("seed %d param query %d: error where PostgreSQL answered: %s\n  %s %s", sd, i, q, o.Code, o.Message)
				}
			}
			if !o.Class.Wrong() && o.Class != sqldiff.OrderOnly {
				continue
			}
			failures++
			if failures <= 30 {
				t.Errorf("seed %d param query %d: %s\n  %s\n  %s", sd, i, o.Class, q, o.Message)
			}
		}
	}
	t.Logf("seeds %v, %d queries each: %d identical, %d wrong, %d refused, %d error mismatches, %d timeouts, %d PostgreSQL errors (both failed), %d answered where PostgreSQL failed",
		seeds, n, counts[sqldiff.Identical], failures, counts[sqldiff.Refused], counts[sqldiff.ErrorMismatch], counts[sqldiff.Timeout],
		counts[sqldiff.PGError], counts[sqldiff.AnsweredError])
	logTop(t, reasons, 25)
}

// envSeeds is the comma-separated seeds in the environment variable
// name, or seeds when it is unset.
// withClockSeed appends a seed from the clock (or -seed's) to the fixed
// ones: each developer's run explores statements nobody ran before.
// CI sets SIDECAR_RAND_CLOCK_SEED=off (.ci/run): a landing gate runs the
// fixed seeds, whose answers are known, so that a new finding of the
// generator (a difference that was already there) is a reproducible
// report to fix, not a submission failing by chance — two CI runs in a
// row failed so in session 15, on differences older than the change.
func withClockSeed(t *testing.T, seeds []uint64) []uint64 {
	t.Helper()
	if *seedFlag == 0 && os.Getenv("SIDECAR_RAND_CLOCK_SEED") == "off" {
		return seeds
	}
	return append(seeds, seed.New(t, seedFlag))
}

func envSeeds(t *testing.T, name string, seeds []uint64) []uint64 {
	s := os.Getenv(name)
	if s == "" {
		return seeds
	}
	seeds = nil
	for _, f := range splitComma(s) {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seeds = append(seeds, v)
	}
	return seeds
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// wideCases are wrong answers the wide generator found, kept as fixed
// cases.
var wideCases = []sqldiff.WideQuery{
	// an explicit cast of a literal to char(n)/varchar(n) truncates
	{SQL: "SELECT 'éclair'::char(4), 'banana'::varchar(3), repeat('banana'::char(4), 2) FROM wp a"},
	{SQL: "SELECT '_b%' FROM wb a UNION ALL SELECT 'banana'::varchar(3) FROM wk a WHERE round(a.m, 1) <> 2.5"},
	// CASE resolves its ELSE first (varchar, text: text) and is named
	// after it; NULLIF(varchar, …) is text
	{SQL: "SELECT a.id, CASE WHEN a.k > 1 THEN a.v ELSE a.t END, CASE WHEN a.k > 1 THEN a.t ELSE a.v END, NULLIF(a.v, 'x '), NULLIF(a.c, a.t) FROM wa a"},
	{SQL: "SELECT CASE WHEN a.k > 3 THEN a.k ELSE a.k END FROM wk a EXCEPT SELECT a.id FROM wp a"},
	// timestamp - untyped is timestamp - timestamp (interval), date -
	// untyped is date - date (integer), date + untyped is ambiguous
	{SQL: "SELECT a.ts - NULL, a.d - NULL, a.tz - NULL FROM wa a"},
	{SQL: "SELECT a.d + NULL FROM wa a"},
	// a cast's column name is its argument's only when that is strong
	{SQL: "SELECT timestamp '2024-03-01 00:00'::date FROM wp a EXCEPT SELECT a.d FROM wa a ORDER BY 1", Ordered: true},
	// bpchar LIKE matches the padded value ('x'::char(4) LIKE 'x' is
	// false); a bpchar pattern is read without its padding
	{SQL: "SELECT a.ts, count(a.ts) FROM wa a WHERE NOT (NOT (a.c NOT LIKE '')) GROUP BY a.ts"},
	{SQL: "SELECT a.id, a.c LIKE 'x', a.c LIKE 'x   ', a.c ILIKE 'AB%', a.t LIKE a.c, a.c LIKE a.c FROM wa a"},
	// PostgreSQL has no min(boolean)
	{SQL: "SELECT a.b, count(*) FROM wk a GROUP BY a.b HAVING min(a.b) = max(a.b)"},
}

// wideParamCases are parameterized wrong answers the wide generator
// found: varchar = $1 infers text (varchar has no = of its own).
var wideParamCases = []sqldiff.ParamQuery{
	{WideQuery: sqldiff.WideQuery{SQL: "SELECT a.id, a.v FROM wa a WHERE a.v = $1"}, Params: []any{"ab"}},
	{WideQuery: sqldiff.WideQuery{SQL: "SELECT a.id, a.v FROM wa a WHERE a.v = $1 OR a.v < $2"}, Params: []any{"ab", "Ab"}},
	{WideQuery: sqldiff.WideQuery{SQL: "SELECT a.id, a.v FROM wa a WHERE a.v IN ($1, $2) OR $3 > a.v"}, Params: []any{"ab", "zz", "b"}},
}

// TestRandomWideAsOf compares the sidecar's answers AS OF a past
// version with PostgreSQL's answers captured at that version: the wide
// generator's queries run on PostgreSQL, the rows change (WideChurn),
// and the sidecar answers each query with every table read AS OF the
// LSN before the change; each query also runs at HEAD on both after
// the change. A fixed seed and one random seed (printed; -seed replays).
func TestRandomWideAsOf(t *testing.T) {
	n := 80
	if s := os.Getenv("SIDECAR_RANDWIDE_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SIDECAR_RANDWIDE_N=%q: %v", s, err)
		}
		n = v
	}
	seeds := []uint64{20261205}
	if *seedFlag != 0 {
		seeds = nil
	}
	seeds = withClockSeed(t, seeds)
	t.Logf("seeds %v", seeds)
	ctx := context.Background()
	url := pg.NewDB(t)
	if err := sqldiff.Load(ctx, url, sqldiff.WideSetup); err != nil {
		t.Fatal(err)
	}
	sc, err := sqldiff.Follow(ctx, sqldiff.FollowOptions{PGURL: url, Tables: sqldiff.WideTables, Dir: t.TempDir(), StatementTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Stop() })
	pgs, scs := sc.Sessions(url, 10*time.Second)
	t.Cleanup(func() { pgs.Close(); scs.Close() })
	// The version: PostgreSQL's LSN once the sidecar has applied
	// everything before it (Follow waited for that).
	lsn := pgs.Capture(ctx, "SELECT pg_current_wal_lsn()::text", 10*time.Second)
	ref := lsn.Value(0, 0)
	if ref == "" {
		t.Fatal("no LSN")
	}
	var qs []sqldiff.WideQuery
	var before []sqldiff.Answer
	for _, sd := range seeds {
		gen := sqldiff.NewWideGen(sd)
		for range n {
			q := gen.Next()
			if _, ok := sqldiff.AsOf(q, ref); !ok {
				continue
			}
			qs = append(qs, q)
			before = append(before, pgs.Capture(ctx, q.SQL, 10*time.Second))
		}
	}
	if err := sqldiff.Exec(ctx, url, sqldiff.WideChurn); err != nil {
		t.Fatal(err)
	}
	if err := sc.CatchUp(ctx, url); err != nil {
		t.Fatal(err)
	}
	counts := map[sqldiff.Class]int{}
	reasons := map[string]int{}
	failures := 0
	check := func(label string, q sqldiff.WideQuery, o sqldiff.Outcome) {
		counts[o.Class]++
		switch o.Class {
		case sqldiff.Refused, sqldiff.ErrorMismatch, sqldiff.Timeout:
			reasons[label+" "+string(o.Class)+" "+o.Code+" "+fmt.Sprintf("%.120s", o.Message)]++
		}
		if !o.Class.Wrong() && o.Class != sqldiff.OrderOnly {
			return
		}
		failures++
		if failures <= 30 {
			t.Errorf("%s: %s\n  %s\n  %s", label, o.Class, q.SQL, o.Message)
		}
	}
	for i, q := range qs {
		past, _ := sqldiff.AsOf(q, ref)
		check("AS OF", past, sqldiff.CompareAnswers(q, before[i], scs.Capture(ctx, past.SQL, 10*time.Second)))
		check("HEAD after churn", q, sqldiff.CompareWide(ctx, pgs, scs, q, false, 10*time.Second))
	}
	t.Logf("AS OF %s, %d queries (×2): %d identical, %d wrong, %d refused, %d error mismatches, %d timeouts, %d both failed",
		ref, len(qs), counts[sqldiff.Identical], failures, counts[sqldiff.Refused], counts[sqldiff.ErrorMismatch], counts[sqldiff.Timeout], counts[sqldiff.PGError])
	logTop(t, reasons, 15)
}

// logTop logs the n most frequent reasons with their counts.
func logTop(t *testing.T, reasons map[string]int, n int) {
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return reasons[b] - reasons[a] })
	for i, k := range keys {
		if i == n {
			break
		}
		t.Logf("%5d  %s", reasons[k], k)
	}
}
