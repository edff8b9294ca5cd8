package sqlfront_test

import "testing"

// srfTables hold arrays (NULL, empty, with NULL elements) for the
// LATERAL set-returning function and select-list SRF tests.
var srfTables = []string{
	"CREATE TABLE sa (id int PRIMARY KEY, ia int[], ta text[], n int)",
	"INSERT INTO sa VALUES (1, '{1,2,3}', '{a,b}', 2), (2, '{}', '{x}', 0), (3, NULL, NULL, NULL), (4, '{NULL,5}', '{}', 3), (5, '{7}', '{p,q,r}', -1)",
}

// TestVectorizedLateralSRF: set-returning functions in FROM reading the
// items before them (with and without LATERAL, WITH ORDINALITY, on the
// right of [LEFT] JOIN LATERAL … ON) answer as PostgreSQL over the
// wire, in order; RIGHT/FULL lateral references fail as PostgreSQL's do.
func TestVectorizedLateralSRF(t *testing.T) {
	r := newRig(t, []string{"public.sa"}, srfTables)
	cases := []diffCase{
		{sql: "SELECT s.id, u FROM sa s, unnest(s.ia) u ORDER BY 1, 2"},
		{sql: "SELECT s.id, a.v, a.o FROM sa s JOIN LATERAL unnest(s.ia) WITH ORDINALITY AS a(v, o) ON true ORDER BY 1, 3"},
		{sql: "SELECT s.id, a.v, a.o FROM sa s LEFT JOIN LATERAL unnest(s.ia) WITH ORDINALITY AS a(v, o) ON true ORDER BY 1, 3"},
		{sql: "SELECT s.id, a.v FROM sa s LEFT JOIN LATERAL unnest(s.ia) AS a(v) ON a.v > s.id ORDER BY 1, 2"},
		{sql: "SELECT s.id, g FROM sa s, LATERAL generate_series(1, s.n) g ORDER BY 1, 2"},
		{sql: "SELECT s.id, g FROM sa s LEFT JOIN generate_series(1, s.n) g ON true ORDER BY 1, 2"},
		{sql: "SELECT s.id, t, u FROM sa s, unnest(s.ta) t, unnest(s.ia) u WHERE u > 1 ORDER BY 1, 2, 3"},
		{sql: "SELECT u, count(*) FROM sa s CROSS JOIN LATERAL unnest(s.ia) u GROUP BY u ORDER BY 1"},
		{sql: "SELECT s.id, x.m FROM sa s, LATERAL (SELECT max(v) AS m FROM unnest(s.ia) v) x ORDER BY 1"},
		{sql: "SELECT s.id, t.* FROM sa s, unnest(s.ia, s.ta) WITH ORDINALITY AS t(i, x, o) ORDER BY 1, 4"},
		{sql: "SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a', 'b'])) AS r(n, s) ORDER BY 1"},
		// A LATERAL subquery's output that is a column of the left side
		// is NULL where LEFT JOIN finds no row.
		{sql: "SELECT s.id, b.id, x.z FROM sa s, sa b LEFT JOIN LATERAL (SELECT s.n) x(z) ON b.n = x.z ORDER BY 1, 2"},
		// PostgreSQL: 42P10; sql/exec too (lateral.diff.sql), the flat
		// planner's refusal of RIGHT JOIN stands over the wire.
		{sql: "SELECT s.id FROM sa s RIGHT JOIN LATERAL unnest(s.ia) u ON true", refuse: true},
	}
	diffVectorized(t, r, cases)
}

// TestVectorizedProjectSet: set-returning functions in the select list
// (PostgreSQL 10+'s ProjectSet: lockstep, NULL-padded, no row when all
// are empty) over the wire, including the shape of SQLAlchemy's
// inspector queries (unnest and generate_subscripts of an array column
// in a subquery, joined and aggregated in order).
func TestVectorizedProjectSet(t *testing.T) {
	r := newRig(t, []string{"public.sa"}, srfTables)
	cases := []diffCase{
		{sql: "SELECT id, unnest(ia), unnest(ta) FROM sa ORDER BY 1"},
		{sql: "SELECT id, unnest(ia) AS v, generate_subscripts(ia, 1) AS ord FROM sa ORDER BY id, ord"},
		{sql: "SELECT generate_series(1, 3), generate_series(1, 2)"},
		{sql: "SELECT id, generate_series(1, n) FROM sa ORDER BY 1, 2"},
		{sql: "SELECT DISTINCT unnest(ta) AS x FROM sa ORDER BY x"},
		{sql: "SELECT count(*), generate_series(1, 2) FROM sa"},
		{sql: "SELECT idx.id, array_agg(idx.attnum ORDER BY idx.ord) AS elements, min(idx.ord) FROM " +
			"(SELECT s.id, unnest(s.ia) AS attnum, generate_subscripts(s.ia, 1) AS ord FROM sa s WHERE s.id IN (1, 2, 4, 5)) AS idx " +
			"LEFT OUTER JOIN sa b ON b.id = idx.attnum GROUP BY idx.id ORDER BY idx.id"},
		{sql: "SELECT s.id, a.attnum, a.ord FROM sa s JOIN LATERAL unnest(s.ia) WITH ORDINALITY AS a(attnum, ord) ON true WHERE a.attnum IS NOT NULL ORDER BY 1, 3"},
		// PostgreSQL's own refusals (0A000 both sides).
		{sql: "SELECT id, CASE WHEN id > 1 THEN unnest(ia) END FROM sa", refuse: true},
		{sql: "SELECT sum(unnest(ia)) FROM sa", refuse: true},
	}
	diffVectorized(t, r, cases)
}
