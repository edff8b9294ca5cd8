package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
)

// TestLateFilter: a scan filter applied while the HEAD's typed pages are
// decoded (sql/exec LateFilter, vexec_scan.go's pageChunker: conjunct by
// conjunct, each decoding only its columns for the rows the earlier ones
// kept) answers as PostgreSQL does — three-valued logic (a NULL conjunct
// before a false or true one), OR inside a conjunct, a division guarded
// by an earlier conjunct (no error) and an unguarded one (22012 on both),
// a division guarded by a later but cheaper conjunct (PostgreSQL orders
// a scan's quals by cost, and so does sql/exec: qualorder.go),
// date against timestamp, LIKE, IN, numerics (typed and NaN) — over more
// rows than a batch and than one parallel scan unit (40,000 rows: about
// 40 pages, several workers: vexec_pscan.go), with selective and
// unselective filters, so that the
// chunks refill partly filled batches.
func TestLateFilter(t *testing.T) {
	lateFilterCheck(t, newRig(t, []string{"public.lf"}, lateFilterSetup))
}

// TestLateFilterColdPages: the same statements with the table's pages
// nearly all cold (a heap memory bound far below the table), in memory
// and on a page file behind a small page cache: the scan decodes a cold
// page for the columns it reads only (heap.ColReader), which must not
// change an answer.
func TestLateFilterColdPages(t *testing.T) {
	for _, disk := range []bool{false, true} {
		t.Run(fmt.Sprintf("disk=%v", disk), func(t *testing.T) {
			cfg := heap.Config{PageRows: 256, Budget: heap.NewPageBudget(64 << 10)}
			var pf *heap.PageFile
			if disk {
				var err error
				if pf, err = heap.OpenPageFile(t.TempDir(), 64<<10); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { pf.Close() })
				cfg.Pages = pf
			}
			lateFilterCheck(t, newRigHead(t, head.Options{Heap: cfg}, []string{"public.lf"}, lateFilterSetup))
			if pf != nil && pf.Stats().Reads == 0 {
				t.Errorf("no cold page was read from the page file: %+v", pf.Stats())
			}
		})
	}
}

// lateFilterSetup is the table lateFilterCheck reads.
var lateFilterSetup = []string{
	"CREATE TABLE lf (id int PRIMARY KEY, a int, d int, n numeric, s text, c char(4), dt date, x float8)",
	"INSERT INTO lf SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 100 END, g % 5, " +
		"CASE WHEN g % 11 = 0 THEN NULL WHEN g % 13 = 0 THEN 'NaN' ELSE (g % 50) * 0.25 END, " +
		"CASE WHEN g % 17 = 0 THEN NULL ELSE 'str' || (g % 9) END, left('c' || (g % 3), 4), " +
		"date '1994-01-01' + (g % 1000), g / 7.0 FROM generate_series(1, 40000) g",
}

// lateFilterCheck compares the late-filter statements' answers on r with
// PostgreSQL's.
func lateFilterCheck(t *testing.T, r *rig) {
	queries := []string{
		"SELECT count(*), sum(a), sum(n) FROM (SELECT * FROM lf WHERE a > 50) x",
		"SELECT id FROM (SELECT * FROM lf WHERE a > 98 AND d = 1) x ORDER BY id",
		"SELECT count(*) FROM (SELECT * FROM lf WHERE a IS NULL AND d = 2) x",
		"SELECT count(*) FROM (SELECT * FROM lf WHERE a < 10 AND n > 1) x",                 // NULL then true/false
		"SELECT count(*) FROM (SELECT * FROM lf WHERE n < 3 AND a < 10) x",                 // NaN numerics
		"SELECT count(*), min(id) FROM (SELECT * FROM lf WHERE d <> 0 AND 100 / d > 30) x", // guarded division
		"SELECT count(*) FROM (SELECT * FROM lf WHERE a > 3 AND 100 / d > 30) x",           // division by zero
		"SELECT count(*) FROM (SELECT * FROM lf WHERE 100 / d > 30 AND d <> 0) x",          // cheaper conjunct first
		"SELECT count(*) FROM lf WHERE 100 / d > 30 AND d <> 0",
		"SELECT count(*), sum(a) FROM lf WHERE 100 / d > 30 AND d <> 0 GROUP BY d % 2 ORDER BY 1",
		"SELECT id FROM lf WHERE 100 / d > 30 AND d <> 0 AND id < 20 ORDER BY id",
		"SELECT count(*) FROM lf WHERE nullif(d, 0) > 0 AND 100 / d > 30",               // a NULL conjunct stops its row
		"SELECT count(*) FROM lf WHERE (nullif(d, 0) > 0 AND 100 / d > 30) IS NOT TRUE", // not in an expression
		"SELECT count(*) FROM lf WHERE 100 / d > 30 AND a > 3 AND d + 0 <> 0",           // equal costs: written order
		"SELECT count(*) FROM lf WHERE dt > timestamp '1995-06-01 12:00' AND 100 / d > 1 AND d <> 0",
		"SELECT count(*), sum(n) FROM (SELECT * FROM lf WHERE 100 / d > 30 AND a > 3 AND d + 0 <> 0) x", // equal costs: written order
		"SELECT count(*), sum(n) FROM (SELECT * FROM lf WHERE 100 / d > 30 AND a > 3 AND d IN (1, 2, 3)) x",
		"SELECT count(*), max(id) FROM (SELECT * FROM lf WHERE dt > timestamp '1995-06-01 12:00' AND dt <= timestamp '1996-01-01') x",
		"SELECT count(*), max(id) FROM (SELECT * FROM lf WHERE timestamp '1995-06-01' <= dt AND dt <> timestamp '1995-07-01') x",
		"SELECT count(*) FROM (SELECT * FROM lf WHERE (a > 90 OR s = 'str3') AND c = 'c1') x",
		"SELECT count(*), max(id) FROM (SELECT * FROM lf WHERE dt >= date '1994-03-01' AND dt < date '1994-03-01' + interval '1' month) x",
		"SELECT count(*) FROM (SELECT * FROM lf WHERE s LIKE '%4' AND a IN (4, 14, 24, 34, NULL)) x",
		"SELECT count(*) FROM (SELECT * FROM lf WHERE s NOT IN ('str1', 'str2') AND x > 100) x",
		"SELECT sum(n), count(*) FROM (SELECT * FROM lf WHERE id > 10) x",
		"SELECT id, a, n, s FROM (SELECT * FROM lf WHERE id % 997 = 0 AND a IS NOT NULL) x ORDER BY id",
		"SELECT count(*) FROM (SELECT * FROM lf WHERE a > 1000) x",
		"SELECT count(*) FROM (SELECT * FROM lf WHERE NOT (a > 5) AND n IS NULL) x",
		// Scans read by hash joins and aggregations refill their batches
		// (exec.ScanRequest.Reuse); a sort's input is not refilled.
		"SELECT a.d, count(*), sum(b.n), min(b.s) FROM lf a JOIN lf b ON a.id = b.id + 1 WHERE a.a > 50 AND a.id < 6000 GROUP BY a.d ORDER BY a.d",
		"SELECT count(*), sum(a.n) FROM lf a WHERE a.a > 90 AND EXISTS (SELECT 1 FROM lf b WHERE b.id = a.id + 3 AND b.d = 1)",
		"SELECT id, s, n FROM lf WHERE a > 97 ORDER BY s, id",
		"SELECT s, count(*), sum(n), max(x) FROM lf GROUP BY s ORDER BY s",
	}
	lateQueriesCheck(t, r, queries)
}

// lateQueriesCheck compares the answers (or SQLSTATEs) of queries on r
// with PostgreSQL's.
func lateQueriesCheck(t *testing.T, r *rig, queries []string) {
	ctx := context.Background()
	pgc := connectMode(t, r.pgURL, pgx.QueryExecModeSimpleProtocol)
	defer pgc.Close(ctx)
	conn := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
	defer conn.Close(ctx)
	state := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code
		}
		if err != nil {
			return err.Error()
		}
		return ""
	}
	for _, q := range queries {
		want, werr := resultOf(ctx, pgc, q)
		got, gerr := resultOf(ctx, conn, q)
		if state(werr) != state(gerr) {
			t.Errorf("%s: PostgreSQL %v, sidecar %v", q, werr, gerr)
			continue
		}
		if werr == nil && !slices.Equal(want, got) {
			t.Errorf("%s:\n PostgreSQL %q\n sidecar    %q", q, want, got)
		}
	}
}
