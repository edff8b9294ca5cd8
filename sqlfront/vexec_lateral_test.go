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
		// PostgreSQL: 42P10; sql/exec too (lateral.diff.sql), the flat
		// planner's refusal of RIGHT JOIN stands over the wire.
		{sql: "SELECT s.id FROM sa s RIGHT JOIN LATERAL unnest(s.ia) u ON true", refuse: true},
	}
	diffVectorized(t, r, cases)
}
