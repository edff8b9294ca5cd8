package query_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/query"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestBenchReport (QUERY_BENCH=1; QUERY_BENCH_ROWS, default 1M;
// QUERY_BENCH_DUCKDB, the path of the bench/duckdb anchor, optional) is
// the benchmark of issue 14 through the product's path: a mirror (store,
// Prolly trees) holding the table copied and then changed by 1001
// commits, the in-memory HEAD (head.Model) fed by it, and query.Engine
// answering as POST /api/query does — HEAD from the model, --as-of from the
// tree. PostgreSQL holds the same rows (the same commits applied), and
// DuckDB loads them from PostgreSQL. Per query, 5 rounds, each round
// sidecar, PostgreSQL, DuckDB in turn; medians. Wall times on a shared
// machine; print `uptime` next to them.
func TestBenchReport(t *testing.T) {
	if os.Getenv("QUERY_BENCH") == "" {
		t.Skip("QUERY_BENCH not set")
	}
	n := 1_000_000
	if s := os.Getenv("QUERY_BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ctx := t.Context()
	dsn := query.Cluster().NewDB(t)
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	pgExec := func(sql string) [][][]byte {
		res, err := conn.Exec(ctx, sql).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res[len(res)-1].Rows
	}
	const commits = 1001
	st := time.Now()
	pgExec(fmt.Sprintf(`CREATE TABLE b (id bigint PRIMARY KEY, k text, v text, score int, grp int);
INSERT INTO b SELECT i, 'key' || i, 'value-' || (i %% 977), ((i::bigint*7919) %% 2000) - 1000, i %% 100 FROM generate_series(0, %d) i`, n-1))
	pgExec(fmt.Sprintf("UPDATE b SET v = 'u' || j, score = score + 1 FROM generate_series(1, %d) j WHERE b.id = (j * 997) %% %d", commits, n))
	pgExec("VACUUM ANALYZE b")
	t.Logf("PostgreSQL: %d rows loaded in %v", n, time.Since(st).Round(time.Millisecond))

	// The mirror: the same rows, then the same changes as 1001 commits.
	db, err := store.Open(store.Options{Dir: t.TempDir(), CacheBytes: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := mirror.Open(ctx, mirror.Options{DB: db, TempDir: t.TempDir(), SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	rel := &wal.Relation{OID: 1, Schema: "public", Name: "b", Identity: wal.IdentityDefault,
		Columns: []wal.Column{
			{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
			{Name: "k", TypeOID: 25, TypeName: "text", TypeMod: -1},
			{Name: "v", TypeOID: 25, TypeName: "text", TypeMod: -1},
			{Name: "score", TypeOID: 23, TypeName: "int4", TypeMod: -1},
			{Name: "grp", TypeOID: 23, TypeName: "int4", TypeMod: -1},
		}}
	txt := func(s string) wal.Value { return wal.Value{Kind: wal.Text, Bytes: []byte(s)} }
	row := func(i int64, v string, score int64) []wal.Value {
		return []wal.Value{txt(strconv.FormatInt(i, 10)), txt("key" + strconv.FormatInt(i, 10)), txt(v),
			txt(strconv.FormatInt(score, 10)), txt(strconv.FormatInt(i%100, 10))}
	}
	score := func(i int64) int64 { return (i*7919)%2000 - 1000 }
	st = time.Now()
	w, err := m.CopyRange(ctx, rel, wal.BlockRange{Index: 0, Of: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(n) {
		if err := w.WriteRow(row(i, "value-"+strconv.FormatInt(i%977, 10), score(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lsn := wal.LSN(1000)
	if err := m.TableCopied(ctx, rel, lsn); err != nil {
		t.Fatal(err)
	}
	for j := int64(1); j <= commits; j++ {
		lsn += 100
		info := wal.TxnInfo{Xid: uint32(lsn), CommitLSN: lsn, CommitTime: time.Unix(int64(lsn), 0)}
		if err := m.Begin(ctx, info); err != nil {
			t.Fatal(err)
		}
		id := (j * 997) % int64(n)
		ch := wal.Change{Kind: wal.Update, Relation: rel, New: row(id, "u"+strconv.FormatInt(j, 10), score(id)+1)}
		if err := m.Change(ctx, &ch); err != nil {
			t.Fatal(err)
		}
		info.EndLSN = lsn + 8
		if err := m.Commit(ctx, info); err != nil {
			t.Fatal(err)
		}
		lsn = info.EndLSN
	}
	model := head.New(head.Options{})
	sub, err := m.Subscribe(model, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for model.LSN() < lsn {
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("sidecar: mirror copied, %d commits, in-memory HEAD at %s, in %v", commits, model.LSN(), time.Since(st).Round(time.Millisecond))
	svc := history.New(db, m)
	svc.SetHead(model)
	eng := &query.Engine{Tree: svc, Heads: model}
	scanEng := &query.Engine{Tree: svc, Heads: model, Options: query.Options{NoSummaries: true}}

	// DuckDB, loaded from the same PostgreSQL table.
	var duck *duckAnchor
	if path := os.Getenv("QUERY_BENCH_DUCKDB"); path != "" {
		duck = startDuck(t, path, dsn)
		defer duck.close()
		t.Logf("DuckDB: %s", duck.send("load"))
	}

	lo := n / 2
	kr := fmt.Sprintf("id BETWEEN %d AND %d", lo, lo+9999)
	krExpr := &query.Expr{Op: "between", Col: "id", Values: []string{strconv.Itoa(lo), strconv.Itoa(lo + 9999)}}
	countSum := []query.Agg{{Func: "count"}, {Func: "sum", Col: "score"}}
	cases := []struct {
		name, sql string
		eng       *query.Engine
		req       query.Request
		duck      bool
	}{
		{"scan.full", "SELECT count(*), sum(score) FROM b", scanEng, query.Request{Aggs: countSum}, true},
		{"scan.projected", "SELECT sum(score) FROM b WHERE grp < 10", eng, query.Request{Aggs: []query.Agg{{Func: "sum", Col: "score"}}, Where: &query.Expr{Op: "<", Col: "grp", Values: []string{"10"}}}, true},
		{"aggregate.group_having", "SELECT grp, sum(score) FROM b GROUP BY grp HAVING sum(score) > 0", eng, query.Request{Aggs: []query.Agg{{Func: "sum", Col: "score"}}, GroupBy: []string{"grp"}, Having: &query.Expr{Op: ">", Col: "sum(score)", Values: []string{"0"}}}, true},
		{"keyrange.10k", "SELECT count(*), sum(score) FROM b WHERE " + kr, eng, query.Request{Aggs: countSum, Where: krExpr}, true},
		{"summaries.count_sum", "SELECT count(*), sum(score) FROM b", eng, query.Request{Aggs: countSum}, false},
		{"asof.keyrange.10k", "SELECT count(*), sum(score) FROM b WHERE " + kr, eng, query.Request{Aggs: countSum, Where: krExpr, AsOf: "HEAD~1000"}, false},
		{"asof.scan.full", "SELECT count(*), sum(score) FROM b", eng, query.Request{Aggs: countSum, AsOf: "HEAD~1000"}, false},
	}
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }
	t.Logf("| query | sidecar | read | PostgreSQL | DuckDB | sidecar/PG | sidecar/DuckDB | checksum sidecar / PG / DuckDB |")
	for _, c := range cases {
		c.req.Table = "public.b"
		rounds := 5
		var sc, pt, dt []time.Duration
		var res *query.Result
		var hdr history.ReadHeader
		var pgRows [][][]byte
		var duckLine string
		for range rounds {
			st := time.Now()
			res, hdr, err = c.eng.Run(ctx, c.req)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			sc = append(sc, time.Since(st))
			st = time.Now()
			pgRows = pgExec(c.sql)
			pt = append(pt, time.Since(st))
			if duck != nil && c.duck {
				duckLine = duck.send("query " + c.name + " " + c.sql)
				f := strings.Fields(duckLine)
				if len(f) < 4 || f[0] != "result" {
					t.Fatalf("duckdb: %s", duckLine)
				}
				v, _ := strconv.ParseFloat(f[2], 64)
				dt = append(dt, time.Duration(v*1e6))
			}
		}
		sum := checksum(res)
		pgSum := string(pgRows[0][0])
		if len(pgRows[0]) > 1 {
			pgSum += ":" + string(pgRows[0][1])
		}
		if len(res.Rows) > 1 || len(pgRows) > 1 {
			sum = fmt.Sprintf("%d groups", len(res.Rows))
			pgSum = fmt.Sprintf("%d groups", len(pgRows))
		}
		duckSum, dm, ratioD := "-", "-", "-"
		if len(dt) > 0 {
			f := strings.Fields(duckLine)
			duckSum = f[3]
			if strings.HasPrefix(f[4], "rows=") && f[4] != "rows=1" {
				duckSum = strings.TrimPrefix(f[4], "rows=") + " groups"
			}
			dm = ms(med(dt))
			ratioD = fmt.Sprintf("%.2f", float64(med(sc))/float64(med(dt)))
		}
		if !strings.HasPrefix(c.name, "asof.") && sum != pgSum {
			t.Errorf("%s: sidecar %s, PostgreSQL %s", c.name, sum, pgSum)
		}
		t.Logf("| %s | %s | %s at %s (%s), %d pages | %s | %s | %.4f | %s | %s / %s / %s |", c.name, ms(med(sc)), res.Read, hdr.LSN, hdr.Ref, res.PagesScanned,
			ms(med(pt)), dm, float64(med(sc))/float64(med(pt)), ratioD, sum, pgSum, duckSum)
	}

	// Memory: the heap, the index, PostgreSQL's relation sizes.
	tb := model.Table("public.b")
	mem := tb.Heap().Memory()
	ix, keys := tb.IndexBytes()
	sizes := pgExec("SELECT pg_relation_size('b'), pg_indexes_size('b'), pg_total_relation_size('b')")
	t.Logf("memory per row: heap %.1f B (%d pages), radix index %.1f B, key store %.1f B; PostgreSQL heap %s B, indexes %s B, total %s B (per row %s)",
		float64(mem.DecodedBytes+mem.ColdBytes)/float64(n), mem.DecodedPages+mem.ColdPages, float64(ix)/float64(n), float64(keys)/float64(n),
		sizes[0][0], sizes[0][1], sizes[0][2], perRow(sizes[0], n))

	// The Go-loop floor: the score column as []int32, summed on every core.
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(score(int64(i)))
	}
	var floor []time.Duration
	for range 5 {
		st := time.Now()
		workers := runtime.GOMAXPROCS(0)
		parts := make([]int64, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var s int64
				for _, v := range vals[len(vals)*w/workers : len(vals)*(w+1)/workers] {
					s += int64(v)
				}
				parts[w] = s
			}()
		}
		wg.Wait()
		floor = append(floor, time.Since(st))
	}
	t.Logf("Go-loop floor (sum of %d int32 on %d cores): median %s", n, runtime.GOMAXPROCS(0), ms(med(floor)))
}

func perRow(sizes [][]byte, n int) string {
	v, _ := strconv.ParseFloat(string(sizes[2]), 64)
	return fmt.Sprintf("%.1f B", v/float64(n))
}

// checksum is the count:sum line of a one-row answer.
func checksum(res *query.Result) string {
	var parts []string
	for c := range res.Columns {
		s, ok := res.Text(0, c)
		if !ok {
			s = "NULL"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ":")
}

// duckAnchor drives the bench/duckdb program over its stdin protocol.
type duckAnchor struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startDuck(t *testing.T, path, dsn string) *duckAnchor {
	cmd := exec.Command(path, "-dsn", dsn, "-table", "b")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &duckAnchor{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
}

func (d *duckAnchor) send(line string) string {
	if _, err := io.WriteString(d.in, line+"\n"); err != nil {
		d.t.Fatal(err)
	}
	if !d.out.Scan() {
		d.t.Fatalf("duckdb anchor: no answer to %q: %v", line, d.out.Err())
	}
	return d.out.Text()
}

func (d *duckAnchor) close() {
	io.WriteString(d.in, "quit\n")
	d.in.Close()
	d.cmd.Wait()
}
