package sqlfront_test

import (
	"context"
	"strings"
	"testing"
)

// TestUnfollowedTableInSubquery (issue 21, refusal item): a statement
// reading a table sidecar does not follow (pgbench_history: no primary
// key nor REPLICA IDENTITY, so it cannot be followed) inside a scalar
// subquery, IN, EXISTS, a join or a CTE is refused with 0A000 naming
// that table as not followed — the reason — and not as "a subquery"
// sidecar would not run; PostgreSQL answers each, over the extended
// and the simple protocol, with a parameter and under AS OF. A guard:
// it already passed on 2f71b81 (the "a subquery" refusal reported came
// from a main before unfollowed relations were listed, facts 'w'); a
// daemon listing pgbench_history in its tables does not start at all
// (preflight: no key), so that configuration cannot reach the port.
func TestUnfollowedTableInSubquery(t *testing.T) {
	r := newRig(t, []string{"public.pgbench_tellers"}, []string{
		`CREATE TABLE pgbench_tellers (tid int PRIMARY KEY, bid int, tbalance int, filler char(84))`,
		`CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))`,
		`INSERT INTO pgbench_tellers SELECT g, 1, 0 FROM generate_series(1, 10) g`,
		`INSERT INTO pgbench_history SELECT g % 10 + 1, 1, g, g, now() FROM generate_series(1, 50) g`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	for _, q := range []string{
		"SELECT tid, coalesce((SELECT sum(delta) FROM pgbench_history h WHERE h.tid = t.tid), 0) FROM pgbench_tellers t ORDER BY tid",
		"SELECT t.tid, (SELECT count(*) FROM pgbench_history) FROM pgbench_tellers t WHERE t.tid = 1",
		"SELECT tid FROM pgbench_tellers WHERE tid IN (SELECT tid FROM pgbench_history WHERE delta > 40) ORDER BY tid",
		"SELECT tid FROM pgbench_tellers t WHERE EXISTS (SELECT 1 FROM pgbench_history h WHERE h.tid = t.tid) ORDER BY tid",
		"SELECT t.tid, sum(h.delta) FROM pgbench_tellers t JOIN pgbench_history h USING (tid) GROUP BY t.tid ORDER BY 1",
		"WITH h AS (SELECT tid, delta FROM pgbench_history) SELECT tid, sum(delta) FROM h GROUP BY tid ORDER BY 1",
		"SELECT * FROM pgbench_history ORDER BY aid",
		"SELECT tid, tbalance, coalesce((SELECT sum(delta) FROM pgbench_history WHERE pgbench_history.tid = pgbench_tellers.tid), 0) FROM pgbench_tellers WHERE tid = $1",
		"SELECT tid, coalesce((SELECT sum(delta) FROM pgbench_history WHERE pgbench_history.tid = pgbench_tellers.tid), 0) FROM pgbench_tellers WHERE tid < $1 ORDER BY tid",
		"SELECT tid, coalesce((SELECT sum(delta) FROM pgbench_history h WHERE h.tid = t.tid), 0) FROM pgbench_tellers AS OF 'HEAD' t ORDER BY tid",
		"SELECT tid, coalesce((SELECT sum(delta) FROM public.pgbench_history h WHERE h.tid = t.tid AND h.mtime < now()), 0) AS s FROM pgbench_tellers t ORDER BY s DESC, tid LIMIT 3",
	} {
		var params [][]byte
		if strings.Contains(q, "$1") {
			params = [][]byte{[]byte("3")}
		}
		pq := strings.ReplaceAll(q, " AS OF 'HEAD'", "")
		if w := pgc.ExecParams(ctx, pq, params, nil, nil, nil).Read(); w.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", pq, w.Err)
		}
		g := sc.ExecParams(ctx, q, params, nil, nil, nil).Read()
		if pgCode(g.Err) != "0A000" || !strings.Contains(g.Err.Error(), `"public.pgbench_history" is not followed`) {
			t.Errorf("sidecar: %s: %q %v, want 0A000 naming public.pgbench_history as not followed", q, rowsText(g), g.Err)
		}
		if params == nil { // psql's simple query protocol
			if _, err := sc.Exec(ctx, q).ReadAll(); pgCode(err) != "0A000" || !strings.Contains(err.Error(), `"public.pgbench_history" is not followed`) {
				t.Errorf("sidecar (simple query): %s: %v, want 0A000 naming public.pgbench_history as not followed", q, err)
			}
		}
	}
}
