package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/logging"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/mirror/consumertest"
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
	// retain is 1 s: what the final stop leaves is the versions of the
	// last second before it, as few as the latest commit group on a
	// loaded machine (1 at load 65 failed runCrash's usual 10): at least 1.
	runCrash(t, crashCase{kills: 10, rows: 30000, config: "history:\n  retain: 1s\n  gc_interval: 200ms\n", minVersions: 1,
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
	// minDelay is added to every random pause before a kill (after the
	// condition the kill waits for: killTiming).
	minDelay time.Duration
	// afterKill, if set, runs after each kill (the daemon is dead).
	afterKill func(t *testing.T, i int, dataDir string, seed int64)
	// output, if set, is given each process's log: after kill i, and (i =
	// kills) after the final clean stop, before after runs.
	output func(t *testing.T, i int, log string)
	// minVersions is how many consecutive counter versions the mirror
	// must hold after the final stop (0: 10).
	minVersions int
}

func runCrash(t *testing.T, c crashCase) {
	kills, seed := crashParams(t, "CRASH_KILLS", c.kills)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))

	url := pg.NewDB(t)
	crashTables(t, url, c.rows) // big enough that the first kills land inside the copy
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
	go func() { loadDone <- crashWorkload(ctx, url, seed, &txns, &bigTxns, crashBacklogCap) }()

	// The first two kills land inside the initial copy (it is long), the
	// rest inside streamed big transactions and between commits: each
	// waits until its run streams, so that the versions the counter check
	// walks exist at any machine load.
	killRuns(t, file, kills, killTiming{streamFrom: 2, pause: func(int) time.Duration {
		return c.minDelay + time.Duration(100+rng.IntN(1900))*time.Millisecond
	}}, func(i int, p *proc) {
		if c.output != nil {
			c.output(t, i, p.output())
		}
		if c.afterKill != nil {
			c.afterKill(t, i, dataDir, seed)
		}
	})
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
	catchUpAndStop(t, url, p.waitListen(t), p)
	if c.output != nil {
		c.output(t, kills, p.output())
	}

	checkMirrorEqualsPG(t, dataDir, url, seed)
	minVersions := c.minVersions
	if minVersions == 0 {
		minVersions = 10
	}
	checkCounterVersions(t, dataDir, seed, minVersions)
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

// crashBacklogCap bounds the WAL the crash workload writes ahead of the
// sidecar: past it (the WAL position minus the slowest slot's confirmed
// flush position, on the workload's database) the workload pauses until
// the sidecar catches up. Unbounded, 20 kills at load 30 on 2 cores left
// a backlog of over 500 MiB of WAL for the final catch-up (1 GiB at load
// 50), most of the test's time; 32 MiB still holds many streamed big
// transactions (logical_decoding_work_mem is 64kB) for the kills to land
// in.
const crashBacklogCap = 32 << 20

// crashWorkload commits transactions until ctx ends: each bumps the
// counter and changes items (small mixed changes; sometimes a big update
// that PostgreSQL streams in progress, with a rolled-back subtransaction).
// With backlogCap > 0 it holds the sidecar's backlog under it (the kill
// tests: crashBacklogCap; the pauses draw nothing from rng, so a seed
// replays the same transactions); 0 writes as fast as it can (the remote
// tests, which count on a rate of commits while the writer uploads).
func crashWorkload(ctx context.Context, url string, seed int64, txns, big *atomic.Int64, backlogCap int64) error {
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for i := 0; ctx.Err() == nil; i++ {
		if backlogCap > 0 && i%10 == 0 {
			if err := awaitBacklogUnder(ctx, conn, backlogCap); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
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

// awaitBacklogUnder waits (polling every 50 ms) until the WAL written past
// the confirmed flush position of every replication slot of conn's
// database is under limit; no slot yet (the sidecar has not created it)
// is no backlog.
func awaitBacklogUnder(ctx context.Context, conn *pgx.Conn, limit int64) error {
	for {
		var backlog int64
		if err := conn.QueryRow(ctx, `SELECT COALESCE(max(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)), 0)::bigint
			FROM pg_replication_slots WHERE database = current_database()`).Scan(&backlog); err != nil {
			return fmt.Errorf("the sidecar's backlog: %w", err)
		}
		if backlog < limit {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// checkCounterVersions walks every version the mirror holds after the
// first copy (the retained ones) and checks the counter increments by
// exactly one each time, over at least atLeast versions.
func checkCounterVersions(t *testing.T, dataDir string, seed int64, atLeast int) {
	t.Helper()
	n, _, err := mirrortest.CounterVersions(t, dataDir, "public.counter", 1)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
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

// crashModelEnv names the file of the model consumer a re-executed
// `sidecar run` feeds (TestCrashKill9Consumer); unset, the child is the
// plain binary.
const crashModelEnv = "CRASH_MODEL_CONSUMER"

// The child of TestCrashKill9Consumer: `run --config FILE` with a model
// consumer subscribed (the binary has no flag for one: consumers are
// wired in code).
func init() {
	if os.Getenv(beMain) == "1" && os.Getenv(crashModelEnv) != "" {
		os.Exit(runModelChild(os.Args[1:], os.Getenv(crashModelEnv)))
	}
}

func runModelChild(args []string, modelPath string) int {
	if len(args) != 3 || args[0] != "run" || args[1] != "--config" {
		fmt.Fprintf(os.Stderr, "model child: want run --config FILE, got %q\n", args)
		return 2
	}
	cfg, err := config.Load(config.LoadOptions{File: args[2]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	logger, err := logging.New(os.Stderr, cfg.Log.Level, cfg.Log.Format)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	model, err := consumertest.Load(modelPath, 300*time.Millisecond)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := daemon.Run(ctx, daemon.Options{Config: cfg, Logger: logger, Consumers: []mirror.Consumer{model},
		Mirror: func(o *mirror.Options) { o.StrictChecks = true }}); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	if err := model.Save(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	logger.Info("model consumer saved", "lsn", model.LSN(), "batches", fmt.Sprint(model.Batches()))
	return 0
}

// TestCrashKill9Consumer is TestCrashKill9 with a model consumer (a
// sorted map per table, saved to a file every 300 ms) subscribed to the
// mirror inside the killed process: after every kill the saved model
// must equal the mirror's trees at the model's LSN, and after the final
// catch-up and clean stop it must equal HEAD.
func TestCrashKill9Consumer(t *testing.T) {
	model := filepath.Join(t.TempDir(), "model")
	t.Setenv(crashModelEnv, model)
	checked := 0
	compare := func(t *testing.T, dataDir string, seed int64) consumertest.Result {
		t.Helper()
		_, m, close := mirrortest.Open(t, dataDir)
		defer close()
		mod, err := consumertest.Load(model, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := mod.Compare(context.Background(), m)
		if err != nil {
			t.Fatalf("seed %d: the saved model differs from the mirror: %v", seed, err)
		}
		return res
	}
	// Kills at least 2 s after each start, so the model (saved every
	// 300 ms once streaming) moves between kills.
	runCrash(t, crashCase{kills: 10, rows: 30000, minDelay: 2 * time.Second,
		afterKill: func(t *testing.T, i int, dataDir string, seed int64) {
			if _, err := os.Stat(model); err != nil {
				t.Logf("kill %d: no model saved yet", i)
				return
			}
			res := compare(t, dataDir, seed)
			checked += res.Tables
			t.Logf("kill %d: model at %s equals the trees (%d tables, %d rows; skipped, copied again since: %v)", i, res.LSN, res.Tables, res.Rows, res.Skipped)
		},
		after: func(t *testing.T, file, dataDir, url string, seed int64) {
			res := compare(t, dataDir, seed)
			_, m, close := mirrortest.Open(t, dataDir)
			head := m.Head().EndLSN
			close()
			if res.LSN != head || res.Tables != 2 || len(res.Skipped) > 0 {
				t.Fatalf("seed %d: after catch-up the model is at %s (%+v), HEAD %s", seed, res.LSN, res, head)
			}
			t.Logf("model equals HEAD %s (%d rows); %d table comparisons after kills", head, res.Rows, checked)
			if checked == 0 {
				t.Fatalf("seed %d: no kill left a saved model to compare", seed)
			}
		}})
}
