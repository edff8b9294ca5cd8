package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
)

// keyPagesSetup is a table clustered by its keys (id, a date and a
// nullable integer that grow with it) over about 160 pages of 256 rows,
// and a small table of keys at both ends and in the middle.
var keyPagesSetup = []string{
	"CREATE TABLE kp (id int PRIMARY KEY, k int, b bigint, d date, v int, m numeric(10,2))",
	"INSERT INTO kp SELECT g, CASE WHEN g % 5 = 0 OR g BETWEEN 20000 AND 20600 THEN NULL ELSE g END, g::bigint * 3 - 60000, date '1994-01-01' + g / 100, g % 100, (g % 500) * 0.07 FROM generate_series(1, 40000) g",
	"CREATE TABLE ks (id int PRIMARY KEY, k int, b bigint, d date)",
	"INSERT INTO ks VALUES (3, 3, -59991, date '1994-01-01'), (20001, 20003, 3, date '1994-07-20'), (39999, 39999, 60000, date '1995-02-05'), (50000, NULL, NULL, NULL), (-4, -4, -60012, date '1993-01-01')",
}

// keyPagesQueries join kp (probed: its scan gets the join's key filter)
// with the few keys of ks: inner, semi and anti joins on integer,
// bigint, date and nullable keys, with the scan's own comparisons
// (the pages may be skipped) and with a conjunct that could fail (they
// may not), and a LEFT JOIN whose preserved side is kp (no filter).
var keyPagesQueries = []string{
	"SELECT count(*), sum(a.v) FROM kp a JOIN ks b ON a.id = b.id",
	"SELECT count(*), sum(a.v) FROM kp a JOIN ks b ON a.id = b.id WHERE a.v < 50 AND a.d > date '1993-12-01' AND a.m < 30",
	"SELECT count(*), sum(a.v) FROM kp a JOIN ks b ON a.id = b.id WHERE 100 / (a.v + 1) > 0",
	"SELECT count(*), sum(a.id) FROM kp a JOIN ks b ON a.k = b.k",
	"SELECT count(*), sum(a.id) FROM kp a JOIN ks b ON a.b = b.b WHERE a.v >= 0",
	"SELECT count(*), sum(a.id) FROM kp a JOIN ks b ON a.d = b.d",
	"SELECT count(*), sum(a.id) FROM kp a WHERE a.id IN (SELECT id FROM ks)",
	"SELECT count(*), sum(a.id) FROM kp a WHERE a.k IN (SELECT k FROM ks) AND a.v < 90",
	"SELECT count(*) FROM ks b WHERE NOT EXISTS (SELECT 1 FROM kp a WHERE a.id = b.id)",
	"SELECT count(*) FROM ks b WHERE EXISTS (SELECT 1 FROM kp a WHERE a.k = b.k)",
	"SELECT count(*), count(b.id), sum(a.v) FROM kp a LEFT JOIN ks b ON a.id = b.id",
	"SELECT a.id, a.k, a.d, b.id FROM kp a JOIN ks b ON a.d = b.d AND a.k = b.k ORDER BY a.id",
}

// TestKeyFilterPageSkip: a join's key filter on its probe side's typed
// page scan skips a page whose zone map of the key holds no build key
// (pagechunk_cmp.go, sql/exec KeyMisses) — the answers are PostgreSQL's,
// in memory and with the pages cold on a page file, and on the page file
// the join reads a small part of the pages a full scan of the same
// column reads (on 781ae99 it read them all).
func TestKeyFilterPageSkip(t *testing.T) {
	t.Run("warm", func(t *testing.T) {
		lateQueriesCheck(t, newRig(t, []string{"public.kp", "public.ks"}, keyPagesSetup), keyPagesQueries)
	})
	t.Run("disk", func(t *testing.T) {
		pf, err := heap.OpenPageFile(t.TempDir(), 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pf.Close() })
		cfg := heap.Config{PageRows: 256, Budget: heap.NewPageBudget(64 << 10), Pages: pf}
		r := newRigHead(t, head.Options{Heap: cfg}, []string{"public.kp", "public.ks"}, keyPagesSetup)
		lateQueriesCheck(t, r, keyPagesQueries)
		ctx := context.Background()
		conn := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
		defer conn.Close(ctx)
		reads := func(q string) int64 {
			before := pf.Stats()
			var n int64
			var s *int64
			if err := conn.QueryRow(ctx, q).Scan(&n, &s); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			after := pf.Stats()
			return after.Reads + after.ReadAhead - before.Reads - before.ReadAhead
		}
		// The subquery in FROM keeps the full scan on sql/exec.
		full := reads("SELECT count(*), sum(v) FROM (SELECT * FROM kp WHERE v < 50 AND d > date '1993-12-01') x")
		join := reads("SELECT count(*), sum(a.v) FROM kp a JOIN ks b ON a.id = b.id WHERE a.v < 50 AND a.d > date '1993-12-01'")
		t.Logf("page file reads: full scan %d, join on 5 keys %d", full, join)
		rows, err := conn.Query(ctx, "EXPLAIN SELECT count(*), sum(a.v) FROM kp a JOIN ks b ON a.id = b.id WHERE a.v < 50 AND a.d > date '1993-12-01'")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var l string
			_ = rows.Scan(&l)
			t.Log(l)
		}
		rows.Close()
		if full < 20 || join*4 > full {
			t.Errorf("the join read %d pages from the page file, a full scan %d: pages whose key range holds no build key were read", join, full)
		}
	})
}
