package sqlfront_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// keyOrderStep1 is the first step's SQL on table tbl: rows added past
// the setup's, some deleted (AS OF its LSN is compared with ko_v1, a
// table PostgreSQL holds in that state).
func keyOrderStep1(tbl string) []string {
	return []string{
		"INSERT INTO " + tbl + " SELECT g, g % 17, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute', 'k' || (g % 5), jsonb_build_object('g', g) FROM generate_series(20001, 20300) g",
		"DELETE FROM " + tbl + " WHERE id % 97 = 0",
	}
}

var keyOrderSetup = append([]string{
	"CREATE TABLE ko (id bigint PRIMARY KEY, org int, at timestamptz, kind text, payload jsonb)",
	"INSERT INTO ko SELECT g, g % 17, timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute', 'k' || (g % 5), jsonb_build_object('g', g) FROM generate_series(1, 20000) g",
	"CREATE TABLE ko_v1 AS SELECT * FROM ko", // not followed: ko as of step 1
	"ALTER TABLE ko_v1 ADD PRIMARY KEY (id)",
	"CREATE TABLE ko2 (org int, id int, v text, PRIMARY KEY (org, id))",
	"INSERT INTO ko2 SELECT g % 20, g, 'v' || g FROM generate_series(1, 10000) g",
	"CREATE TABLE kn (n numeric PRIMARY KEY, v int)",
	"INSERT INTO kn VALUES ('NaN', 1), ('Infinity', 2), ('-Infinity', 3), (0, 4), (-1.5, 5), (1.25, 6), (1e20, 7), (-1e-20, 8), (2, 9), (10, 10)",
	"CREATE TABLE kd (d date PRIMARY KEY, v int)",
	"INSERT INTO kd VALUES ('infinity', 1), ('-infinity', 2), ('0044-03-15 BC', 3), ('2024-02-29', 4), ('1999-12-31', 5), ('10000-01-01', 6)",
	"CREATE TABLE kt (t text PRIMARY KEY, v int)",
	"INSERT INTO kt VALUES ('a', 1), ('B', 2), ('b', 3), ('_x', 4), ('é', 5), ('Z', 6)",
}, keyOrderStep1("ko_v1")...)

// TestKeyOrderLimit: ORDER BY the primary key [DESC] under LIMIT
// (OFFSET, a key range: keyset pagination; composite keys; numeric and
// date keys with their infinities and NaN) answers as PostgreSQL from
// the in-memory HEAD, from the trees and AS OF an older version, and
// reads from storage only about the rows the LIMIT keeps (the server's
// key-order row counter), not the table. Orders the key does not give
// (mixed directions, a prefix, a text key) keep their sort and answer
// the same.
func TestKeyOrderLimit(t *testing.T) {
	r := newRig(t, []string{"public.ko", "public.ko2", "public.kn", "public.kd", "public.kt"}, keyOrderSetup,
		keyOrderStep1("ko"),
		[]string{"DELETE FROM ko WHERE id > 20100", "UPDATE ko SET org = -1 WHERE id % 89 = 0"})
	ctx := context.Background()
	type q struct {
		sql   string
		args  []any
		bound int64 // the most rows the read may take from storage (0: not checked)
		// mayRefuse: PostgreSQL's answer depends on the order its plan
		// leaves tied rows in (a prefix of the key): 0A000 is right too.
		mayRefuse bool
	}
	queries := []q{
		{sql: "SELECT * FROM ko ORDER BY id DESC LIMIT 10", bound: 64},
		{sql: "SELECT * FROM ko ORDER BY id LIMIT 10", bound: 64},
		{sql: "SELECT id, payload FROM ko ORDER BY id LIMIT 5 OFFSET 1000", bound: 1100},
		{sql: "SELECT id, kind FROM ko WHERE id > 12345 ORDER BY id LIMIT 7", bound: 64},
		{sql: "SELECT id, at FROM ko WHERE id < 12345 ORDER BY id DESC LIMIT 7", bound: 64},
		{sql: "SELECT id, org FROM ko WHERE id >= 100 AND id <= 2000 AND org = 3 ORDER BY id DESC LIMIT 4", bound: 400},
		{sql: "SELECT id, org FROM ko WHERE org = 5 ORDER BY id LIMIT 3"},
		{sql: "SELECT id, kind FROM ko WHERE id > $1 ORDER BY id LIMIT $2", args: []any{int64(19990), int64(4)}, bound: 64},
		{sql: "SELECT id, kind FROM ko WHERE id < $1 ORDER BY id DESC LIMIT $2", args: []any{int64(50), int64(4)}, bound: 64},
		{sql: "SELECT id FROM ko WHERE id > 20095 ORDER BY id LIMIT 10"}, // fewer rows than the LIMIT
		{sql: "SELECT id FROM ko ORDER BY id DESC LIMIT 0"},
		{sql: "SELECT json_agg(s) FROM (SELECT id, org FROM ko ORDER BY id DESC LIMIT 3) s"},
		{sql: "SELECT * FROM ko2 ORDER BY org DESC, id DESC LIMIT 5", bound: 64},
		{sql: "SELECT * FROM ko2 WHERE org = 7 ORDER BY id DESC LIMIT 5", bound: 64},
		{sql: "SELECT * FROM ko2 WHERE org = 7 AND id > 100 ORDER BY org, id LIMIT 5", bound: 64},
		{sql: "SELECT * FROM ko2 ORDER BY org, id LIMIT 5 OFFSET 700", bound: 800},
		{sql: "SELECT * FROM ko2 ORDER BY org, id DESC LIMIT 5"}, // mixed: sorted
		{sql: "SELECT * FROM ko2 ORDER BY org LIMIT 3 OFFSET 497", mayRefuse: true},
		{sql: "SELECT * FROM kn ORDER BY n LIMIT 4"},
		{sql: "SELECT * FROM kn ORDER BY n DESC LIMIT 4"},
		{sql: "SELECT * FROM kn WHERE n > 1 ORDER BY n LIMIT 3"},
		{sql: "SELECT * FROM kd ORDER BY d LIMIT 3"},
		{sql: "SELECT * FROM kd ORDER BY d DESC LIMIT 3"},
		{sql: "SELECT * FROM kt ORDER BY t LIMIT 3"}, // a text key: sorted under the collation
		{sql: "SELECT * FROM kt ORDER BY t DESC LIMIT 3"},
	}
	headSrv := r.srv
	headURL := r.sqlURL
	treeURL := r.treeURL(t)
	treeSrv := r.srv
	asOf := func(sql string) string {
		return strings.Replace(sql, "FROM ko ", "FROM ko AS OF '"+r.lsns[0]+"' ", 1)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheDescribe} {
		pgc := connectMode(t, r.pgURL, mode)
		for _, side := range []struct {
			name string
			url  string
			rows func() int64
			fast func() int64 // the flat planner's own paths that stop at the LIMIT
		}{{"HEAD", headURL, headSrv.KeyOrderRows, func() int64 { return headSrv.EngineRuns() + headSrv.DirectRuns() }},
			{"trees", treeURL, treeSrv.KeyOrderRows, func() int64 { return treeSrv.EngineRuns() + treeSrv.DirectRuns() }}} {
			scc := connectMode(t, side.url, mode)
			for _, c := range queries {
				want, werr := resultOf(ctx, pgc, c.sql, c.args...)
				before, fast := side.rows(), side.fast()
				got, gerr := resultOf(ctx, scc, c.sql, c.args...)
				read := side.rows() - before
				if read == 0 && (side.fast() > fast || !strings.Contains(c.sql, "DESC")) {
					// The flat planner's own paths (the row scan, rows sent
					// as stored, the evaluator's ascending key-order read)
					// stop at the LIMIT already and keep such statements
					// (corpus_test.go); descending ones are this path's.
					read = 1
				}
				if c.mayRefuse && sqlState(gerr) == "0A000" {
					continue
				}
				if werr != nil || gerr != nil || !slices.Equal(want, got) {
					t.Errorf("%s, mode %v: %s %v:\n PostgreSQL %q %v\n sidecar    %q %v", side.name, mode, c.sql, c.args, want, werr, got, gerr)
				}
				if c.bound > 0 && (read == 0 || read > c.bound) {
					t.Errorf("%s, mode %v: %s: read %d rows in key order, want 1 to %d", side.name, mode, c.sql, read, c.bound)
				}
				if !strings.Contains(c.sql, "FROM ko ") {
					continue
				}
				// AS OF the first step: PostgreSQL's ko_v1 holds ko's rows then.
				want, werr = resultOf(ctx, pgc, strings.Replace(c.sql, "FROM ko ", "FROM ko_v1 ", 1), c.args...)
				before, fast = side.rows(), side.fast()
				got, gerr = resultOf(ctx, scc, asOf(c.sql), c.args...)
				read = side.rows() - before
				if read == 0 && (side.fast() > fast || !strings.Contains(c.sql, "DESC")) {
					read = 1
				}
				if werr != nil || gerr != nil || !slices.Equal(want, got) {
					t.Errorf("%s, mode %v, AS OF %s: %s %v:\n PostgreSQL %q %v\n sidecar    %q %v", side.name, mode, r.lsns[0], c.sql, c.args, want, werr, got, gerr)
				}
				if c.bound > 0 && (read == 0 || read > c.bound) {
					t.Errorf("%s, mode %v, AS OF: %s: read %d rows in key order, want 1 to %d", side.name, mode, c.sql, read, c.bound)
				}
			}
			scc.Close(ctx)
		}
		pgc.Close(ctx)
	}
	// EXPLAIN names the scan's order.
	conn := connectMode(t, headURL, pgx.QueryExecModeSimpleProtocol)
	defer conn.Close(ctx)
	plan, err := resultOf(ctx, conn, "EXPLAIN SELECT * FROM ko ORDER BY id DESC LIMIT 10")
	if err != nil || !strings.Contains(strings.Join(plan, "\n"), "key order descending") {
		t.Errorf("EXPLAIN: %v\n%s", err, strings.Join(plan, "\n"))
	}
}
