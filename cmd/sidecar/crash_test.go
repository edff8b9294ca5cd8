package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/mirrortest"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// TestCrashKill9 runs a mixed write workload while `sidecar run` is killed
// with SIGKILL at random points (during the initial copy, inside streamed
// big transactions, between commits) and restarted, then checks that the
// mirror equals PostgreSQL row by row and that no version is missing or
// doubled: a counter bumped by every transaction must read k, k+1, k+2, …
// across the mirror's versions.
//
// SIDECAR_CRASH_KILLS... is not read (SIDECAR_* is the config namespace);
// CRASH_KILLS overrides the number of kills (default 20).
func TestCrashKill9(t *testing.T) {
	runCrash(t, crashCase{kills: 20, rows: 150000})
}

// TestCrashKill9DuringGC is TestCrashKill9 with a short history.retain and
// automatic GC every 200 ms, so kills land inside expiries, marks and
// sweeps beside the writer; afterwards the offline `sidecar gc` must mark
// every retained tree whole (it fails on a missing node) and leave the
// mirror equal to PostgreSQL with consecutive retained versions.
func TestCrashKill9DuringGC(t *testing.T) {
	runCrash(t, crashCase{kills: 10, rows: 30000, config: "history:\n  retain: 1s\n  gc_interval: 200ms\n",
		after: func(t *testing.T, file, dataDir, url string, seed int64) {
			out, errOut, code := sidecar(t, "gc", "--config", file)
			if code != 0 {
				t.Fatalf("seed %d: offline gc after the kills: exit %d\n%s\n%s", seed, code, out, errOut)
			}
			t.Logf("offline gc: %s", out)
			checkMirrorEqualsPG(t, dataDir, url, seed)
			// retain is 1 s: only the latest commit group is left.
			checkCounterVersions(t, dataDir, seed, 1)
		}})
}

// crashCase is one kill -9 run.
type crashCase struct {
	kills  int
	rows   int    // initial rows of items
	config string // appended to the config file
	// after runs once the mirror was checked (stopped daemon).
	after func(t *testing.T, file, dataDir, url string, seed int64)
}

func runCrash(t *testing.T, c crashCase) {
	kills := c.kills
	if s := os.Getenv("CRASH_KILLS"); s != "" {
		kills, _ = strconv.Atoi(s)
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (rerun with CRASH_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))

	url := pg.NewDB(t)
	mustExec(t, url,
		"CREATE TABLE counter (id int PRIMARY KEY, k bigint NOT NULL)",
		"INSERT INTO counter VALUES (1, 0)",
		"CREATE TABLE items (id int PRIMARY KEY, n bigint NOT NULL, note text)",
		// Big enough that the first kills land inside the copy.
		fmt.Sprintf("INSERT INTO items SELECT g, 0, repeat('x', 40) || g FROM generate_series(1, %d) g", c.rows),
	)
	file, dataDir := runConfig(t, url, "public.counter, public.items")
	if c.config != "" {
		f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(c.config); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}

	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var txns, bigTxns atomic.Int64
	loadDone := make(chan error, 1)
	go func() { loadDone <- crashWorkload(ctx, url, seed, &txns, &bigTxns) }()

	for i := 0; i < kills; i++ {
		p := sidecarProcess(t, "run", "--config", file)
		delay := time.Duration(100+rng.IntN(1900)) * time.Millisecond
		select {
		case err := <-p.done:
			t.Fatalf("kill %d: sidecar exited by itself: %v\n%s", i, err, p.output())
		case <-time.After(delay):
		}
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		p.cmd.ProcessState = &os.ProcessState{} // reaped: keep Cleanup from killing again
	}
	stopLoad()
	if err := <-loadDone; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kills, %d transactions (%d big) committed", kills, txns.Load(), bigTxns.Load())

	// Catch up and stop cleanly.
	p := sidecarProcess(t, "run", "--config", file)
	defer func() {
		if t.Failed() {
			t.Logf("last sidecar's log:\n%s", p.output())
		}
	}()
	base := p.waitListen(t)
	// The WAL may end with an aborted big transaction: wait for a marker
	// commit instead of the server's WAL position.
	target := queryLSN(t, url, "SELECT pg_current_wal_insert_lsn()::text")
	mustExec(t, url, "UPDATE counter SET k = k + 1 WHERE id = 1")
	lastLog := time.Now()
	waitFor(t, "catch up after the kills", 300*time.Second, func() bool {
		if time.Since(lastLog) > 10*time.Second {
			lastLog = time.Now()
			_, body := httpBodyNoT(base + "/api/status")
			t.Logf("catching up to %s: %s", target, body)
		}
		var st struct {
			Durable string `json:"durable_lsn"`
			Phase   string `json:"phase"`
		}
		if err := getJSON(base+"/api/status", &st); err != nil {
			return false
		}
		l, _ := replication.ParseLSN(st.Durable)
		return st.Phase == "streaming" && l > target
	})
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.output())
	}

	checkMirrorEqualsPG(t, dataDir, url, seed)
	checkCounterVersions(t, dataDir, seed, 10)
	if c.after != nil {
		c.after(t, file, dataDir, url, seed)
	}
}

// checkMirrorEqualsPG compares both tables row by row.
func checkMirrorEqualsPG(t *testing.T, dataDir, url string, seed int64) {
	t.Helper()
	for _, table := range []string{"items", "counter"} {
		_, got := mirrortest.MirrorRows(t, dataDir, "public."+table)
		want := mirrortest.PGRows(t, url, table)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: %s differs: mirror %d rows, PostgreSQL %d rows", seed, table, len(got), len(want))
		}
	}
}

// crashWorkload commits transactions until ctx ends: each bumps the
// counter and changes items (small mixed changes; sometimes a big update
// that PostgreSQL streams in progress, with a rolled-back subtransaction).
func crashWorkload(ctx context.Context, url string, seed int64, txns, big *atomic.Int64) error {
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for ctx.Err() == nil {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "UPDATE counter SET k = k + 1 WHERE id = 1"); err != nil {
				return err
			}
			switch r := rng.IntN(100); {
			case r < 3:
				big.Add(1)
				lo := 1 + rng.IntN(100000)
				if _, err := tx.Exec(ctx, "UPDATE items SET n = n + 1, note = note || '.' WHERE id BETWEEN $1 AND $1 + 20000", lo); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, "SAVEPOINT s1"); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, "DELETE FROM items WHERE id BETWEEN $1 AND $1 + 5000", lo); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT s1"); err != nil {
					return err
				}
			case r < 40:
				id := 1 + rng.IntN(200000)
				_, err := tx.Exec(ctx, "INSERT INTO items VALUES ($1, 0, 'new') ON CONFLICT (id) DO UPDATE SET n = items.n + 1", id)
				return err
			case r < 55:
				_, err := tx.Exec(ctx, "DELETE FROM items WHERE id = $1", 1+rng.IntN(200000))
				return err
			default:
				_, err := tx.Exec(ctx, "UPDATE items SET n = n + 1, note = $2 WHERE id = $1", 1+rng.IntN(150000), fmt.Sprint("u", rng.Int()))
				return err
			}
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		txns.Add(1)
		time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
	}
	return nil
}

// checkCounterVersions walks every version the mirror holds after the
// first copy (the retained ones) and checks the counter increments by
// exactly one each time, over at least atLeast versions.
func checkCounterVersions(t *testing.T, dataDir string, seed int64, atLeast int) {
	t.Helper()
	ctx := context.Background()
	_, m, close := mirrortest.Open(t, dataDir)
	defer close()
	versions, err := m.Versions(0, m.Durable(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var prev int64 = -1
	n := 0
	for _, v := range versions {
		touched := false
		for _, tc := range v.Tables {
			touched = touched || tc.Table == "public.counter"
		}
		if !touched {
			continue
		}
		val, ok, err := m.Get(ctx, "public.counter", []string{"1"}, v.EndLSN)
		if err != nil || !ok {
			t.Fatalf("seed %d: counter at version %s: %v %v", seed, v.EndLSN, ok, err)
		}
		text, _, err := rowenc.Column(val, 1)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := strconv.ParseInt(string(text), 10, 64)
		if prev >= 0 && k != prev+1 {
			t.Fatalf("seed %d: version %s has counter %d after %d: a version is missing or doubled", seed, v.EndLSN, k, prev)
		}
		prev = k
		n++
	}
	if n < atLeast {
		t.Fatalf("seed %d: only %d versions touched the counter", seed, n)
	}
	t.Logf("%d consecutive counter versions checked", n)
}

func getJSON(url string, out any) error {
	code, body := httpBodyNoT(url)
	if code != 200 {
		return fmt.Errorf("HTTP %d", code)
	}
	return jsonUnmarshal(body, out)
}
