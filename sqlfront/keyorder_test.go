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
	"CREATE TABLE kt (t text PRIMARY KEY, v int)", // the database's collation: C
	"INSERT INTO kt VALUES ('a', 1), ('B', 2), ('b', 3), ('_x', 4), ('é', 5), ('Z', 6)",
	"CREATE TABLE kts (at timestamptz PRIMARY KEY, v int)",
	"INSERT INTO kts SELECT timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute', g FROM generate_series(1, 3000) g",
	"INSERT INTO kts VALUES ('infinity', -1), ('-infinity', -2), ('4714-11-24 00:00:00+00 BC', -3), ('0044-03-15 12:00:00+00 BC', -4), ('294276-12-31 23:59:59.999999+00', -5), ('2024-01-01 00:00:00.000001+00', -6), ('2024-01-01 00:00:00.5+00', -7)",
	"CREATE TABLE ktt (t timestamp PRIMARY KEY, v int)",
	"INSERT INTO ktt SELECT timestamp '2024-01-01 00:00:00' + g * interval '1 minute', g FROM generate_series(1, 3000) g",
	"INSERT INTO ktt VALUES ('infinity', -1), ('-infinity', -2), ('4714-11-24 00:00:00 BC', -3), ('0001-12-31 23:59:59 BC', -4), ('294276-12-31 23:59:59.999999', -5), ('10000-01-01 00:00:00', -6)",
	`CREATE TABLE ktx (k varchar(20) COLLATE "C" PRIMARY KEY, v int)`,
	"INSERT INTO ktx SELECT 'k' || lpad(g::text, 5, '0'), g FROM generate_series(1, 3000) g",
	"INSERT INTO ktx VALUES ('K1', -1), ('k', -2), ('k0', -3), ('é', -4), ('~', -5), ('', -6)",
	`CREATE TABLE ktl (t text COLLATE "en_US" PRIMARY KEY, v int)`,
	"INSERT INTO ktl VALUES ('a', 1), ('B', 2), ('b', 3), ('_x', 4), ('é', 5), ('Z', 6)",
}, keyOrderStep1("ko_v1")...)

// TestKeyOrderLimit: ORDER BY the primary key [DESC] under LIMIT
// (OFFSET, a key range: keyset pagination, ascending and descending,
// after a leading equality; composite keys; numeric, date, timestamp and
// timestamptz keys with their infinities, BC and NaN; text and varchar
// keys under a byte-order collation; select lists the "cannot fail"
// facts allow) answers as PostgreSQL from the in-memory HEAD, from the
// trees and AS OF an older version, and reads from storage only about
// the rows the LIMIT keeps (the server's key-order row counter), not the
// table. Orders the key does not give (mixed directions, a prefix, a
// text key under a locale's collation, an explicit COLLATE) and select
// lists that could fail where PostgreSQL's plan would not read (a named
// zone's AT TIME ZONE, integer addition) keep their sort: they read
// nothing in key order, and answer the same.
func TestKeyOrderLimit(t *testing.T) {
	r := newRig(t, []string{"public.ko", "public.ko2", "public.kn", "public.kd", "public.kt", "public.kts", "public.ktt", "public.ktx", "public.ktl"}, keyOrderSetup,
		keyOrderStep1("ko"),
		[]string{"DELETE FROM ko WHERE id > 20100", "UPDATE ko SET org = -1 WHERE id % 89 = 0"})
	ctx := context.Background()
	type q struct {
		sql   string
		args  []any
		bound int64 // the most rows the read may take from storage (0: not checked)
		// mayRefuse: PostgreSQL's answer depends on the order its plan
		// leaves tied rows in (a prefix of the key), or sidecar cannot
		// order under the collation: 0A000 is right too.
		mayRefuse bool
		// sorted: the statement must not read in key order (its order or
		// its select list keeps the sort).
		sorted bool
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
		{sql: "SELECT * FROM kt ORDER BY t LIMIT 3", bound: 64}, // a text key under the database's C collation
		{sql: "SELECT * FROM kt ORDER BY t DESC LIMIT 3", bound: 64},
		// Keyset pagination after a leading equality.
		{sql: "SELECT * FROM ko2 WHERE org = $1 AND id > $2 ORDER BY id LIMIT 5", args: []any{int64(7), int64(5000)}, bound: 64},
		{sql: "SELECT * FROM ko2 WHERE org = 3 AND id >= 4003 ORDER BY org, id LIMIT 4", bound: 64},
		// Timestamp keys: infinities, BC, microseconds, the range's ends.
		{sql: "SELECT * FROM kts ORDER BY at LIMIT 6", bound: 64},
		{sql: "SELECT * FROM kts ORDER BY at DESC LIMIT 4", bound: 64},
		{sql: "SELECT at, v FROM kts WHERE at > '2024-01-01 10:00:00+00' ORDER BY at LIMIT 5", bound: 64},
		{sql: "SELECT at, v FROM kts WHERE at < $1 ORDER BY at DESC LIMIT 3", args: []any{"2024-01-01 00:00:01+00"}, bound: 64},
		{sql: "SELECT at, v FROM kts WHERE at >= '2024-01-02 00:00:00+00' AND at <= '2024-01-02 01:00:00+00' ORDER BY at DESC LIMIT 3", bound: 64},
		{sql: "SELECT * FROM ktt ORDER BY t LIMIT 5", bound: 64},
		{sql: "SELECT * FROM ktt ORDER BY t DESC LIMIT 4", bound: 64},
		{sql: "SELECT t, v FROM ktt WHERE t > '2024-01-01 20:00' ORDER BY t LIMIT 3", bound: 64},
		// Text keys: varchar under COLLATE "C" (byte order: 'K1' < 'k' <
		// 'k0' < 'k00001' < '~' < 'é'); a locale's collation or an
		// explicit COLLATE keep the sort.
		{sql: "SELECT * FROM ktx ORDER BY k LIMIT 5", bound: 64},
		{sql: "SELECT * FROM ktx ORDER BY k DESC LIMIT 3", bound: 64},
		{sql: "SELECT k, v FROM ktx WHERE k > 'k01500' ORDER BY k LIMIT 5", bound: 64},
		{sql: "SELECT k, v FROM ktx WHERE k < $1 ORDER BY k DESC LIMIT 5", args: []any{"k00003"}, bound: 64},
		{sql: "SELECT * FROM ktl ORDER BY t LIMIT 3", sorted: true, mayRefuse: true},
		{sql: "SELECT * FROM ktl ORDER BY t DESC LIMIT 3", sorted: true, mayRefuse: true},
		{sql: `SELECT * FROM ktx ORDER BY k COLLATE "en_US" LIMIT 3`, sorted: true, mayRefuse: true},
		// Select lists that cannot fail (nofail.go) keep the key order.
		{sql: "SELECT id, to_char(at, 'YYYY-MM-DD HH24:MI:SS Day') FROM ko ORDER BY id DESC LIMIT 5", bound: 64},
		{sql: "SELECT id, at AT TIME ZONE 'UTC', -(id::numeric), id::text AS idt, abs(id::numeric), CASE WHEN org > 5 THEN kind ELSE 'x' END, coalesce(kind, 'none'), length(kind) FROM ko ORDER BY id DESC LIMIT 5", bound: 64},
		{sql: "SELECT id, to_char(at, 'YYYY-MM-DD') FROM ko WHERE id > $1 ORDER BY id LIMIT $2", args: []any{int64(700), int64(6)}, bound: 64},
		{sql: "SELECT to_char(at, 'FMDD Mon YYYY HH12:MI AM'), timezone('utc', at) FROM kts ORDER BY at DESC LIMIT 5", bound: 64},
		{sql: "SELECT to_char(t, 'YYYY-MM-DD HH24:MI:SS.US'), timezone('UTC', t) FROM ktt ORDER BY t LIMIT 5", bound: 64},
		// Select lists that can fail keep the sort (PostgreSQL's Seq Scan
		// and Sort would evaluate them on every row).
		{sql: "SELECT id, at AT TIME ZONE 'Asia/Tokyo' FROM ko ORDER BY id DESC LIMIT 3", sorted: true},
		{sql: "SELECT id + 1 FROM ko ORDER BY id DESC LIMIT 3", sorted: true},
		{sql: "SELECT id, to_char(at, 'DDth') FROM ko WHERE id > 100 ORDER BY id LIMIT 3", sorted: true, mayRefuse: true},
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
			fast func() int64 // the flat planner's path that stops at the LIMIT: rows sent as stored
		}{{"HEAD", headURL, headSrv.KeyOrderRows, headSrv.DirectRuns},
			{"trees", treeURL, treeSrv.KeyOrderRows, treeSrv.DirectRuns}} {
			scc := connectMode(t, side.url, mode)
			for _, c := range queries {
				want, werr := resultOf(ctx, pgc, c.sql, c.args...)
				before, fast := side.rows(), side.fast()
				got, gerr := resultOf(ctx, scc, c.sql, c.args...)
				read := side.rows() - before
				if c.sorted && read > 0 {
					t.Errorf("%s, mode %v: %s: read %d rows in key order, want its sort", side.name, mode, c.sql, read)
				}
				if read == 0 && side.fast() > fast {
					// Rows sent as stored read in key order themselves
					// and stop at the LIMIT (corpus_test.go).
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
				if c.sorted && read > 0 {
					t.Errorf("%s, mode %v, AS OF: %s: read %d rows in key order, want its sort", side.name, mode, c.sql, read)
				}
				if read == 0 && side.fast() > fast {
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
