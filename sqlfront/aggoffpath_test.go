package sqlfront_test

import (
	"strings"
	"testing"
)

// TestUngroupedArgsOfOtherAggregates: with GROUP BY, an aggregate the
// flat evaluator does not compute itself (string_agg, array_agg,
// json_agg, jsonb_object_agg, …) over an ungrouped column was answered
// 42803 "column … must appear in the GROUP BY clause" — the flat planner
// read the call as a scalar function — where PostgreSQL answers (seen by
// the lead: `SELECT country, string_agg(name, ',') … GROUP BY country`).
// Such calls go to sql/exec now: answered as PostgreSQL, or refused
// 0A000 when the value depends on the order PostgreSQL's plan reads the
// rows in; a scalar function over an ungrouped column is refused (it
// was, and still is on PostgreSQL, 42803: a refusal, never an answer).
func TestUngroupedArgsOfOtherAggregates(t *testing.T) {
	r := newRig(t, []string{"public.og"}, []string{
		"CREATE TABLE og (id int PRIMARY KEY, g text, s text, n int)",
		"INSERT INTO og SELECT i, 'g' || (i % 3), 's' || i, i % 5 FROM generate_series(1, 30) i",
	})
	// Answered identically (each 42803 on 4f1044f).
	for _, q := range []string{
		`SELECT id, string_agg(s, ',') FROM og GROUP BY id ORDER BY id`,
		`SELECT id, array_agg(n), json_agg(s), jsonb_agg(g) FROM og WHERE id < 8 GROUP BY id ORDER BY id`,
		`SELECT g, jsonb_object_agg(g, 1) FROM og GROUP BY g ORDER BY g`,
		`SELECT g, string_agg(s, ',' ORDER BY id), count(*) FROM og GROUP BY g ORDER BY g`,
	} {
		got, err := psql(t, r.sqlURL, "-c", q)
		want, werr := psql(t, r.pgURL, "-c", q)
		if werr != nil {
			t.Fatalf("%s on PostgreSQL: %v\n%s", q, werr, want)
		}
		if err != nil || got != want {
			t.Errorf("%s: (%v)\n%s\nPostgreSQL:\n%s", q, err, got, want)
		}
	}
	// Refused: the value depends on PostgreSQL's row order; and a scalar
	// function over an ungrouped column (PostgreSQL: 42803).
	for _, q := range []string{
		`SELECT g, string_agg(s, ',') FROM og GROUP BY g ORDER BY g`,
		`SELECT g, array_agg(id) FROM og GROUP BY g`,
		`SELECT g, upper(s) FROM og GROUP BY g`,
	} {
		got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", q)
		if err == nil || !strings.Contains(got, "0A000") {
			t.Errorf("%s: (%v) %s; want 0A000", q, err, got)
		}
	}
}

// TestDistinctOrderByNotInList: `SELECT DISTINCT g FROM t ORDER BY n`
// is an error in PostgreSQL (42P10: for SELECT DISTINCT, ORDER BY
// expressions must appear in select list); the flat planner answered it
// with rows (seen by the lead on orders). A column not in the list fails
// 42P10 as PostgreSQL; an expression goes to sql/exec (which compares
// it with the targets as PostgreSQL does).
func TestDistinctOrderByNotInList(t *testing.T) {
	r := newRig(t, []string{"public.dg"}, []string{
		"CREATE TABLE dg (id int PRIMARY KEY, g text, n int)",
		"INSERT INTO dg SELECT i, 'g' || (i % 3), i % 5 FROM generate_series(1, 30) i",
	})
	for _, q := range []string{
		`SELECT DISTINCT g FROM dg ORDER BY g`,
		`SELECT DISTINCT g, n FROM dg ORDER BY n, 1`,
		`SELECT DISTINCT dg.g FROM dg ORDER BY dg.g DESC`,
		`SELECT DISTINCT g AS x FROM dg ORDER BY x`,
		`SELECT DISTINCT upper(g) FROM dg ORDER BY upper(g)`,
		`SELECT DISTINCT n + 1 FROM dg ORDER BY n + 1`,
	} {
		got, err := psql(t, r.sqlURL, "-c", q)
		want, werr := psql(t, r.pgURL, "-c", q)
		if werr != nil {
			t.Fatalf("%s on PostgreSQL: %v\n%s", q, werr, want)
		}
		if err != nil || got != want {
			t.Errorf("%s: (%v)\n%s\nPostgreSQL:\n%s", q, err, got, want)
		}
	}
	for _, q := range []string{
		`SELECT DISTINCT g FROM dg ORDER BY n`,
		`SELECT DISTINCT g FROM dg ORDER BY dg.id DESC`,
		`SELECT DISTINCT g FROM dg ORDER BY upper(g)`,
		`SELECT DISTINCT g, n FROM dg ORDER BY n + 1`,
	} {
		want, werr := psql(t, r.pgURL, "-v", "VERBOSITY=verbose", "-c", q)
		if werr == nil || !strings.Contains(want, "42P10") {
			t.Fatalf("%s on PostgreSQL: (%v) %s, want 42P10", q, werr, want)
		}
		got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", q)
		if err == nil || !strings.Contains(got, "42P10") && !strings.Contains(got, "0A000") {
			t.Errorf("%s: (%v) %s; want 42P10 as PostgreSQL (or 0A000)", q, err, got)
		}
	}
}
