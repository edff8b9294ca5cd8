package query

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestBenchAgainstPostgres (QUERY_BENCH=1): the three queries on
// the same 1M rows in the engine and in PostgreSQL, alternating, 5 rounds,
// medians and the count:sum checksum both print. Wall time on a shared
// machine; the engine's CPU time is GOMAXPROCS × wall at most.
func TestBenchAgainstPostgres(t *testing.T) {
	if os.Getenv("QUERY_BENCH") == "" {
		t.Skip("QUERY_BENCH not set")
	}
	conn, err := pgconn.Connect(t.Context(), pg.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	exec := func(sql string) [][][]byte {
		res, err := conn.Exec(t.Context(), sql).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res[len(res)-1].Rows
	}
	exec(`CREATE TABLE b (id bigint PRIMARY KEY, k text, v text, score int, grp int);
INSERT INTO b SELECT i, 'key' || i, 'value-' || (i % 977), ((i::bigint*7919) % 2000) - 1000, i % 100 FROM generate_series(0, 999999) i`)
	exec("VACUUM ANALYZE b")
	h := benchTable(&testing.B{})
	snap := h.Snapshot()
	defer snap.Release()
	cases := []struct {
		name, sql string
		req       Request
	}{
		{"scan.full", "SELECT count(*), sum(score) FROM b", Request{Aggs: countSum}},
		{"scan.projected", "SELECT sum(score) FROM b WHERE grp < 10", Request{Aggs: []Agg{{Func: "sum", Col: "score"}}, Where: &Expr{Op: "<", Col: "grp", Values: []string{"10"}}}},
		{"aggregate.group_having", "SELECT grp, sum(score) FROM b GROUP BY grp HAVING sum(score) > 0", Request{Aggs: []Agg{{Func: "sum", Col: "score"}}, GroupBy: []string{"grp"}, Having: &Expr{Op: ">", Col: "sum(score)", Values: []string{"0"}}}},
	}
	for _, c := range cases {
		p, err := Bind(c.req, benchSchema)
		if err != nil {
			t.Fatal(err)
		}
		var eng, sums, pgt []time.Duration
		var engRes *Result
		var pgRes [][][]byte
		for range 5 {
			st := time.Now()
			engRes, err = Run(t.Context(), p, FromSnapshot(snap), Options{NoSummaries: true})
			if err != nil {
				t.Fatal(err)
			}
			eng = append(eng, time.Since(st))
			st = time.Now()
			if _, err := Run(t.Context(), p, FromSnapshot(snap), Options{}); err != nil {
				t.Fatal(err)
			}
			sums = append(sums, time.Since(st))
			st = time.Now()
			pgRes = exec(c.sql)
			pgt = append(pgt, time.Since(st))
		}
		med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
		line := ""
		if len(engRes.Rows) == 1 && len(engRes.Columns) == 2 {
			a, _ := engRes.Text(0, 0)
			b, _ := engRes.Text(0, 1)
			line = " checksum sidecar " + a + ":" + b + ", postgres " + string(pgRes[0][0]) + ":" + string(pgRes[0][1])
			if a != string(pgRes[0][0]) || b != string(pgRes[0][1]) {
				t.Errorf("%s: answers differ:%s", c.name, line)
			}
		} else if len(engRes.Rows) != len(pgRes) {
			t.Errorf("%s: %d groups, PostgreSQL %d", c.name, len(engRes.Rows), len(pgRes))
		}
		t.Logf("| %s | %v | %v | %v | %.3f |%s", c.name, med(eng), med(sums), med(pgt), float64(med(eng))/float64(med(pgt)), line)
	}
}
