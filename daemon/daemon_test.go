package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/wal"
)

var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

// The daemon's tests run it through internal/testkit/daemontest; these wrappers
// keep the tests' short names.

func testConfig(t *testing.T, url string, tables ...string) *config.Config {
	t.Helper()
	return daemontest.Config(t, url, tables)
}

func execSQL(t *testing.T, url string, sqls ...string) {
	t.Helper()
	daemontest.Exec(t, url, sqls...)
}

func currentWAL(t *testing.T, url string) wal.LSN {
	t.Helper()
	return daemontest.InsertLSN(t, url)
}

// running is a daemon started in-process.
type running struct {
	*daemontest.Daemon
	addr string // http://host:port
}

func start(t *testing.T, cfg *config.Config, logw io.Writer) *running {
	t.Helper()
	return startOpts(t, Options{Config: cfg}, logw)
}

// startOpts is start with more options (Config must be set).
func startOpts(t *testing.T, opts Options, logw io.Writer) *running {
	t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d := daemontest.Start(t, daemontest.Options{PG: opts.Config.Postgres.URL, Run: func(ctx context.Context, ready func(string)) error {
		opts.OnReady = ready
		return Run(ctx, opts)
	}})
	return &running{Daemon: d, addr: d.API}
}

func (r *running) stop() error { return r.Stop() }

func (r *running) status(t *testing.T) Status {
	t.Helper()
	var st Status
	r.StatusInto(t, &st)
	return st
}

// marker commits sql (which must change a followed table) and returns the
// server's WAL insert position just before it: once the mirror's durable
// LSN is past that position, the marker and everything before it are
// applied (daemontest.InsertLSN says why the insert position; a marker
// made during the initial copy needs a second one, daemontest.Marker).
func marker(t *testing.T, url, sql string) wal.LSN {
	t.Helper()
	before := currentWAL(t, url)
	execSQL(t, url, sql)
	return before
}

// waitDurable waits until the daemon streams with its durable LSN past
// lsn, and returns its status then.
func (r *running) waitDurable(t *testing.T, lsn wal.LSN) Status {
	t.Helper()
	r.WaitDurable(t, lsn)
	return r.status(t)
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	return daemontest.HTTPGet(t, url)
}

func slotConfirmed(t *testing.T, url, slot string) wal.LSN {
	t.Helper()
	l, err := daemontest.QueryLSN(url, "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", slot)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRunCopiesStreamsAndStopsCleanly(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE accounts (id bigint PRIMARY KEY, owner text, balance numeric(12,2))",
		"INSERT INTO accounts SELECT g, 'owner-' || g, g * 1.5 FROM generate_series(1, 2000) g",
		"CREATE TABLE audit (at timestamptz, note text)", // no key: not followed
	)
	cfg := testConfig(t, url, "public.accounts")
	var logs syncBuilder
	r := start(t, cfg, &logs)

	st := r.waitDurable(t, marker(t, url, "UPDATE accounts SET owner = owner WHERE id = 2"))
	if len(st.Tables) != 1 || st.Tables[0].Name != "public.accounts" || st.Tables[0].State != "ready" || st.Tables[0].Rows != 2000 {
		t.Fatalf("after the copy: %+v", st.Tables)
	}
	// Ready once connected to the slot (the copy alone is not enough);
	// until then 503 with a reason, never another answer.
	var code int
	var body string
	daemontest.Eventually(t, "readyz 200", 0, func() bool {
		code, body = httpGet(t, r.addr+"/readyz")
		if code != 200 && (code != http.StatusServiceUnavailable || !strings.Contains(body, "reason")) {
			t.Fatalf("readyz %d %s", code, body)
		}
		return code == 200
	}, func() string { return fmt.Sprintf("readyz %d %s", code, body) })
	if code, body := httpGet(t, r.addr+"/healthz"); code != 200 {
		t.Errorf("healthz %d %s", code, body)
	}

	execSQL(t, url,
		"UPDATE accounts SET balance = balance + 1 WHERE id % 7 = 0",
		"DELETE FROM accounts WHERE id BETWEEN 100 AND 150",
		"INSERT INTO accounts VALUES (5000, NULL, 0), (5001, '', 1)",
		"UPDATE accounts SET id = 6000 WHERE id = 1",
	)
	for i := 0; i < 20; i++ {
		execSQL(t, url, fmt.Sprintf("UPDATE accounts SET owner = 'tx-%d' WHERE id = %d", i, 200+i))
	}
	st = r.waitDurable(t, marker(t, url, "UPDATE accounts SET owner = owner WHERE id = 2"))
	if st.Commits < 25 {
		t.Errorf("commits applied %d, want ≥ 25", st.Commits)
	}
	_, metrics := httpGet(t, r.addr+"/metrics")
	for _, want := range []string{`sidecar_rows_applied_total{kind="update"}`, `sidecar_rows_applied_total{kind="delete"} 51`, "sidecar_durable_lsn", `sidecar_phase{phase="streaming"} 1`, "sidecar_badger_"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if !regexp.MustCompile(`(?m)^sidecar_commit_sync_seconds_count [1-9]`).MatchString(metrics) {
		t.Errorf("/metrics: no commit sync observed")
	}

	if err := r.stop(); err != nil {
		t.Fatalf("clean stop: %v\n%s", err, logs.String())
	}
	// A stopped daemon holds nothing open in data_dir: the heap page
	// file's descriptor was left to the garbage collector before session
	// 12 (a process embedding the daemon held it, a mount stayed busy).
	if open := openUnder(t, cfg.DataDir); len(open) > 0 {
		t.Errorf("after Run returned, still open under data_dir: %v", open)
	}
	durable, got := mirrortest.MirrorRows(t, cfg.DataDir, "public.accounts")
	want := mirrortest.PGRows(t, url, "accounts")
	if !slices.Equal(got, want) {
		t.Fatalf("mirror has %d rows, PostgreSQL %d; they differ", len(got), len(want))
	}
	if c := slotConfirmed(t, url, cfg.Slot); c != durable {
		t.Errorf("slot confirmed_flush_lsn %s != durable %s after a clean stop", c, durable)
	}

	// Restart: resumes from the durable LSN, applies what happened while down.
	execSQL(t, url, "DELETE FROM accounts WHERE id > 1900", "INSERT INTO accounts VALUES (7000, 'late', 7)")
	r2 := start(t, cfg, &logs)
	r2.waitDurable(t, marker(t, url, "UPDATE accounts SET owner = owner WHERE id = 2"))
	if err := r2.stop(); err != nil {
		t.Fatal(err)
	}
	_, got = mirrortest.MirrorRows(t, cfg.DataDir, "public.accounts")
	if want := mirrortest.PGRows(t, url, "accounts"); !slices.Equal(got, want) {
		t.Fatalf("after restart: mirror %d rows, PostgreSQL %d; they differ", len(got), len(want))
	}
}

func TestRunRefusesTableWithoutKey(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE events (at timestamptz, payload text)")
	cfg := testConfig(t, url, "public.events")
	err := Run(context.Background(), Options{Config: cfg})
	if err == nil || !strings.Contains(err.Error(), "events") || !strings.Contains(err.Error(), "preflight failed") {
		t.Fatalf("want a preflight error naming the table, got %v", err)
	}
	if _, statErr := os.Stat(cfg.DataDir); statErr == nil {
		t.Error("a refused start created the data directory")
	}
}

func TestRunPortClashFailsAtStart(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE a (id int PRIMARY KEY)")
	cfg := testConfig(t, url, "a")
	r := start(t, cfg, io.Discard)
	cfg2 := testConfig(t, url, "a")
	cfg2.Listen = strings.TrimPrefix(r.addr, "http://")
	cfg2.Slot = "other"
	err := Run(context.Background(), Options{Config: cfg2})
	if err == nil || !strings.Contains(err.Error(), "listen on") {
		t.Fatalf("want a listen error, got %v", err)
	}
}

// A schema change PostgreSQL sends no row changes for (ADD COLUMN with a
// default rewrites nothing in the stream) must end with the table copied
// again while the daemon keeps streaming, and equal to PostgreSQL.
func TestRunResyncsAfterSchemaChange(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE items (id int PRIMARY KEY, name text)",
		"INSERT INTO items SELECT g, 'n' || g FROM generate_series(1, 300) g",
	)
	cfg := testConfig(t, url, "public.items")
	var logs syncBuilder
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE items SET name = 'first' WHERE id = 1"))

	execSQL(t, url,
		"ALTER TABLE items ADD COLUMN score int NOT NULL DEFAULT 7",
		"UPDATE items SET score = 8 WHERE id <= 10", // the first change with the new Relation
		"INSERT INTO items VALUES (1000, 'late', 9)",
	)
	// The resync runs in the background; wait until the table is ready
	// again and a marker past everything is durable.
	var st Status
	daemontest.Eventually(t, "resync done, the table ready", 0, func() bool {
		st = r.waitDurable(t, marker(t, url, "UPDATE items SET name = name WHERE id = 2"))
		return len(st.Tables) == 1 && st.Tables[0].State == "ready" && strings.Contains(logs.String(), "resync done")
	}, func() string { return fmt.Sprintf("no resync: %+v\n%s", st.Tables, logs.String()) })
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	_, got := mirrortest.MirrorRows(t, cfg.DataDir, "public.items")
	if want := mirrortest.PGRows(t, url, "items"); !slices.Equal(got, want) {
		t.Fatalf("after the resync: mirror %d rows, PostgreSQL %d; they differ (first mirror row %q, first PG row %q)", len(got), len(want), first(got), first(want))
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// A PostgreSQL restart: the reconnect errors are logged once (rate
// limited), then "replication recovered" with their count, and streaming
// goes on.
func TestRunSurvivesPostgresRestartWithQuietLog(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE k (id int PRIMARY KEY, v int)", "INSERT INTO k VALUES (1, 0)")
	cfg := testConfig(t, url, "public.k")
	var logs syncBuilder
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE k SET v = 1"))
	if err := pg.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.waitDurable(t, marker(t, url, "UPDATE k SET v = 2"))
	daemontest.Eventually(t, "the recovery line", 0, func() bool {
		return strings.Contains(logs.String(), "replication recovered")
	}, func() string { return "no recovery line:\n" + logs.String() })
	if n := strings.Count(logs.String(), "replication connection failed; retrying"); n != 1 {
		t.Errorf("%d reconnect error lines, want 1 (rate limited):\n%s", n, logs.String())
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
}

// syncBuilder is a buffer safe for the daemon's log goroutines.
type syncBuilder = daemontest.Buffer

// WAL that the mirror does not follow (another table, another database)
// is not lag: an idle, caught-up sidecar reports lag 0 s and stays ready
// however old its last applied commit is.
func TestIdleSidecarIsNotLagging(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE followed (id int PRIMARY KEY)", "CREATE TABLE other (id serial PRIMARY KEY, pad text)")
	cfg := testConfig(t, url, "public.followed")
	r := start(t, cfg, io.Discard)
	r.waitDurable(t, marker(t, url, "INSERT INTO followed VALUES (1)")) // may land in the copy
	if st := r.waitDurable(t, marker(t, url, "INSERT INTO followed VALUES (2)")); st.LastCommit == nil {
		t.Fatalf("no streamed commit: %+v", st)
	}
	// 6 s of writes the sidecar does not follow: the last applied commit
	// gets 6 s old.
	for end := time.Now().Add(6 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		execSQL(t, url, "INSERT INTO other (pad) SELECT repeat('x', 1000) FROM generate_series(1, 20)")
	}
	// Caught up means the durable LSN passed the server's WAL of the
	// previous monitor poll (every 2 s), which needs the stream's
	// keepalives to move it past the unfollowed WAL: on a loaded machine
	// that can take longer than two polls, so wait for it. A sidecar that
	// counts the age of its last commit as lag never gets there: its lag
	// is over 6 s and grows.
	var st Status
	if daemontest.Poll(0, func() bool { st = r.status(t); return st.LagSeconds <= 1 }) != nil {
		t.Errorf("idle sidecar reports lag %.1f s (lag_bytes %d) for %s after the last write", st.LagSeconds, st.LagBytes, daemontest.Ceiling)
	}
	if code, body := httpGet(t, r.addr+"/readyz"); code != 200 {
		t.Errorf("idle sidecar not ready: %d %s", code, body)
	}
}

// verify.interval runs verification in the daemon: its result reaches
// /metrics (sidecar_verify_result) and /api/status.
func TestPeriodicVerify(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE v (id int PRIMARY KEY, x text)", "INSERT INTO v SELECT g, 'x' || g FROM generate_series(1, 100) g")
	cfg := testConfig(t, url, "public.v")
	// Each run is bounded by the interval (verify.Periodic): at 1 s a
	// loaded machine (load ~50) timed every run out and the test failed
	// with no result in 30 s. 5 s a run, and runs until a generous
	// ceiling.
	cfg.Verify.Interval = 5 * time.Second
	r := start(t, cfg, io.Discard)
	r.waitDurable(t, marker(t, url, "UPDATE v SET x = 'y' WHERE id = 1"))
	var st Status
	daemontest.Eventually(t, "a periodic verification result", 3*time.Minute, func() bool {
		st = r.status(t)
		_, m := httpGet(t, r.addr+"/metrics")
		return st.Verify != nil && st.Verify.Result == "equal" && strings.Contains(m, `sidecar_verify_result{table="public.v"} 1`)
	}, func() string { return fmt.Sprintf("no periodic verification result: %+v", st.Verify) })
}
