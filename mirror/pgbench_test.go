package mirror

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

var pgBench = flag.Int("mirror.pgbench", 0, "run TestPipelineBench with a table of this many rows (e.g. 1000000): copy, catch-up of 10k single-row transactions, one large UPDATE, end to end through a real PostgreSQL into the mirror")

// TestPipelineBench measures the whole pipeline with the mirror as the
// sink, on its own cluster with production-like settings and the
// baseline table of notes/replication.md §9: the initial copy, the
// catch-up of 10k single-row transactions made while the stream was
// stopped, and an UPDATE of half the table, each until Durable covers it.
func TestPipelineBench(t *testing.T) {
	if *pgBench <= 0 {
		t.Skip("run with -mirror.pgbench=N")
	}
	n := *pgBench
	c, err := pgtest.Start(context.Background(), pgtest.Options{Settings: map[string]string{"shared_buffers": "1GB", "max_wal_size": "8GB"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	url, err := c.CreateDB(context.Background(), "bench")
	if err != nil {
		t.Fatal(err)
	}
	e := &e2e{t: t, url: url, dir: t.TempDir(), opts: Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}, filter: wal.NewCopiedAt()}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	e.conn = conn
	e.exec(`CREATE TABLE t (id bigint PRIMARY KEY, k bytea NOT NULL, v text NOT NULL, score int NOT NULL)`,
		fmt.Sprintf(`INSERT INTO t SELECT g, substring(sha256(int8send(g)) from 1 for 24),
		substr(md5(g::text)||md5(g::text),1,27), ((g::bigint*7919) %% 1000003)::int FROM generate_series(1, %d) g`, n),
		`VACUUM ANALYZE t`)
	e.tables = []wal.TableName{{Schema: "public", Name: "t"}}
	e.spool, e.copy = t.TempDir(), replication.CopyOptions{Workers: 4, RangeBlocks: 2048}
	e.open()
	defer func() {
		e.stop()
		e.m.Close(context.Background())
		e.db.Close()
	}()
	start := time.Now()
	e.prepare()
	copyTook := time.Since(start)
	t.Logf("copy of %d rows: %v (%.0f rows/s)", n, copyTook.Round(time.Millisecond), float64(n)/copyTook.Seconds())

	// 10k single-row transactions while the stream is stopped.
	for i := range 10_000 {
		if _, err := conn.Exec(t.Context(), `UPDATE t SET score = score + 1 WHERE id = $1`, 1+(i*7919)%n); err != nil {
			t.Fatal(err)
		}
	}
	// Caught up: every transaction applied and durable (the WAL insert
	// position can lie beyond the last commit, so wait on the mirror).
	waitCommits := func(n int64) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Minute)
		for e.m.Stats().Commits < n || e.m.Durable() < e.m.Head().EndLSN {
			if time.Now().After(deadline) {
				t.Fatalf("%d commits applied, want %d", e.m.Stats().Commits, n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	start = time.Now()
	e.start()
	waitCommits(10_000)
	catch := time.Since(start)
	t.Logf("catch-up of 10000 single-row transactions: %v (%.0f txn/s, connection set-up included)", catch.Round(time.Millisecond), 10_000/catch.Seconds())

	start = time.Now()
	e.exec(fmt.Sprintf(`UPDATE t SET score = score + 1 WHERE id <= %d`, n/2))
	committed := time.Since(start)
	start = time.Now()
	waitCommits(10_001)
	t.Logf("UPDATE of %d rows: %v on PostgreSQL, then durable in the mirror %v after its commit", n/2, committed.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	st := e.m.Stats()
	t.Logf("mirror: %+v", st)
	e.check()
}
