package sqlfront_test

import "testing"

// TestUngroupedArgsOfOtherAggregates: with GROUP BY, an aggregate the
// flat evaluator does not compute itself (string_agg, array_agg,
// json_agg, jsonb_object_agg, …) over an ungrouped column was answered
// 42803 "column … must appear in the GROUP BY clause" — the flat planner
// read the call as a scalar function — where PostgreSQL answers (seen by
// the lead: `SELECT country, string_agg(name, ',') … GROUP BY country`).
// Such calls go to sql/exec now: answered as PostgreSQL, or refused
// 0A000 when the value depends on the order PostgreSQL's plan reads the
// rows in. A built-in scalar function over an ungrouped column fails
// 42803 as on PostgreSQL (the flat planner knows PostgreSQL's aggregate
// names: pgaggregates.go).
func TestUngroupedArgsOfOtherAggregates(t *testing.T) {
	r := newRig(t, []string{"public.og"}, []string{
		"CREATE TABLE og (id int PRIMARY KEY, g text, s text, n int)",
		"INSERT INTO og SELECT i, 'g' || (i % 3), 's' || i, i % 5 FROM generate_series(1, 30) i",
	})
	// Answered identically (each 42803 on 4f1044f).
	psqlRig(r).same(t,
		`SELECT id, string_agg(s, ',') FROM og GROUP BY id ORDER BY id`,
		`SELECT id, array_agg(n), json_agg(s), jsonb_agg(g) FROM og WHERE id < 8 GROUP BY id ORDER BY id`,
		`SELECT g, jsonb_object_agg(g, 1) FROM og GROUP BY g ORDER BY g`,
		`SELECT g, string_agg(s, ',' ORDER BY id), count(*) FROM og GROUP BY g ORDER BY g`,
	)
	// Refused: the value depends on PostgreSQL's row order.
	psqlRig(r).refused(t, nil,
		`SELECT g, string_agg(s, ',') FROM og GROUP BY g ORDER BY g`,
		`SELECT g, array_agg(id) FROM og GROUP BY g`,
	)
	// A built-in scalar function over an ungrouped column fails 42803 as
	// on PostgreSQL (it was refused 0A000 on dee3915: the flat planner
	// did not tell it from an aggregate it does not compute).
	psqlRig(r).orSameError().same(t,
		`SELECT g, upper(s) FROM og GROUP BY g`,
		`SELECT g, length(s) + n FROM og GROUP BY g ORDER BY g`,
		`SELECT g, coalesce(s, 'x') FROM og GROUP BY g`,
	)
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
	psqlRig(r).same(t,
		`SELECT DISTINCT g FROM dg ORDER BY g`,
		`SELECT DISTINCT g, n FROM dg ORDER BY n, 1`,
		`SELECT DISTINCT dg.g FROM dg ORDER BY dg.g DESC`,
		`SELECT DISTINCT g AS x FROM dg ORDER BY x`,
		`SELECT DISTINCT upper(g) FROM dg ORDER BY upper(g)`,
		`SELECT DISTINCT n + 1 FROM dg ORDER BY n + 1`,
	)
	psqlRig(r).orRefused().orSameError().same(t,
		`SELECT DISTINCT g FROM dg ORDER BY n`,
		`SELECT DISTINCT g FROM dg ORDER BY dg.id DESC`,
		`SELECT DISTINCT g FROM dg ORDER BY upper(g)`,
		`SELECT DISTINCT g, n FROM dg ORDER BY n + 1`,
	)
}
