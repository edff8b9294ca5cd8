package torture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// pg is the suite's own cluster: restarting it disturbs no other package.
// Small logical_decoding_work_mem streams the big transactions.
var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	if os.Getenv(childConfigEnv) != "" {
		os.Exit(runChild()) // the re-executed power-cut child
	}
	os.Exit(pgtest.RunMain(m, pgtest.Options{Settings: map[string]string{
		"logical_decoding_work_mem": "64kB",
		"wal_sender_timeout":        "10s",
	}}, func(c *pgtest.Cluster) { pg = c }))
}

// Hostile names: a schema with a quote and a dot, a table with a
// non-ASCII letter, a space, a semicolon and a comment, a column with a
// space and a quote.
const (
	hostileSchema = `we"ird.sch`
	hostileTable  = `Tä b;le--x`
	hostileColumn = `v al"`
)

// hostileValues go through copy and stream as text.
var hostileValues = []string{`'`, `"`, `\`, `\\N`, `;DROP TABLE x;--`, "line\nbreak", "tab\tand\r", "ünïcødé ✓ 🎉", "", "NULL", " spaces ", `{"json": [1]}`, "<b>&amp;</b>", strings.Repeat("toast ", 600)}

// figures is what a run counts, for the log and the report.
type figures struct {
	seed                          uint64
	txns, rollbacks, bigTxns      atomic.Int64
	faults                        map[string]int
	recovered                     int
	badRequests, badAnswers       int
	rowsCompared, versionsChecked int
	verifyResult                  string
	lastCounter                   int64
	diffLines                     int
	workloadErrors                atomic.Int64
	recovery                      []time.Duration // per fault: until a new commit was durable
	resyncRetries                 int             // resync attempts that failed on a connection error and were retried
	checksPassed                  int             // rounds of liveChecker checks passed after a fault
	liveVersions                  int             // counter versions the liveChecker rounds checked
}

// faultKinds are TestTorture's faults; the first four are the restarts
// and connection cuts the issue wants 10 of 10 of in the long mode.
var faultKinds = []string{"tcp cut", "walsender terminated", "postgres restarted (fast)", "postgres restarted (immediate)", "resync of the hostile table", "gc"}

// faultSchedule is the order of the faults: perKind of each kind
// (resyncs and GCs at least one, at most perKind/2), shuffled by rng.
func faultSchedule(rng *rand.Rand, kinds []string, perKind int) []string {
	var out []string
	for _, k := range kinds {
		n := perKind
		if k == "resync of the hostile table" || k == "gc" {
			n = max(1, perKind/2)
		}
		for range n {
			out = append(out, k)
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestTorture runs the fault mix under the workload: every kind once in
// the short mode (CI), 10 of each restart and connection cut (and 5
// resyncs and GCs) with -torture.long; TORTURE_FAULTS=N draws N faults
// at random instead. After each fault the sidecar must recover without a
// restart (a new commit becomes durable), then, the workload paused, the
// checks run through the API (liveChecker: verify equal, every table
// equal to PostgreSQL row by row, the counter consecutive since the last
// check); at the end the stopped mirror is checked offline as well.
func TestTorture(t *testing.T) {
	seed := tortureSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	kinds := faultKinds
	if os.Getenv("TORTURE_KINDS") != "" {
		kinds = strings.Split(os.Getenv("TORTURE_KINDS"), ",")
		for _, k := range kinds {
			if !slices.Contains(faultKinds, k) {
				t.Fatalf("TORTURE_KINDS: unknown fault %q (known: %s)", k, strings.Join(faultKinds, ", "))
			}
		}
	}
	perKind := 1
	if *long {
		perKind = 10
	}
	schedule := faultSchedule(rng, kinds, perKind)
	if s := os.Getenv("TORTURE_FAULTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 1000 {
			t.Fatalf("TORTURE_FAULTS=%q: want 0-1000", s)
		}
		schedule = nil
		for range n {
			schedule = append(schedule, kinds[rng.IntN(len(kinds))])
		}
	}
	faults := len(schedule)
	t.Logf("torture seed %d (replay: -seed=%d or TORTURE_SEED=%d), %d faults", seed, seed, seed, faults)
	fig := &figures{seed: seed, faults: map[string]int{}}
	begin := time.Now()

	url, hostile, col, key := hostileDB(t)
	px := newProxy(t, url)
	cfg := torturedConfig(t, px.url, key)
	var logs daemontest.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	d, err := daemontest.TryStart(daemontest.Options{PG: url, StopWithin: 90 * time.Second, Run: func(ctx context.Context, ready func(string)) error {
		err := daemon.Run(ctx, daemon.Options{Config: cfg, Logger: logger, OnReady: ready,
			Mirror: func(o *mirror.Options) { o.StrictChecks = true }})
		fmt.Fprintf(&logs, "torture: daemon.Run returned: %v\n", err) // in the tail a failure prints
		return err
	}})
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.Tail())
	}
	defer d.Stop()
	stopDaemon, api := d.Stop, d.API
	waitDurable(t, api, marker(t, url), logs.Tail) // may be in the copy
	waitDurable(t, api, marker(t, url), logs.Tail) // a version
	checker := &liveChecker{t: t, api: api, url: url, tables: []string{key, "public.counter"}, fig: fig}
	if bad := checker.check(); len(bad) > 0 { // the copy; it sets where the counter check starts
		t.Fatalf("seed %d: checks after the copy:\n%s", seed, strings.Join(bad, "\n"))
	}

	// The workload: every transaction bumps the counter once.
	wl := startLoad(url, hostile, col, rand.New(rand.NewPCG(seed+1, seed)), fig)
	defer wl.pause()

	for i, kind := range schedule {
		time.Sleep(time.Duration(200+rng.IntN(800)) * time.Millisecond)
		switch kind {
		case "tcp cut":
			px.cutAll()
		case "walsender terminated":
			terminateWalsender(t, url, cfg.Slot)
		case "postgres restarted (fast)":
			if err := pg.Restart(context.Background()); err != nil {
				t.Fatalf("fault %d: %v", i, err)
			}
		case "postgres restarted (immediate)":
			if err := pg.RestartImmediate(context.Background()); err != nil {
				t.Fatalf("fault %d: %v", i, err)
			}
		case "resync of the hostile table":
			b, _ := json.Marshal(map[string][]string{"tables": {key}})
			if code, body := call("POST", api+"/api/resync", string(b)); code != http.StatusAccepted {
				t.Fatalf("fault %d: resync: %d %s", i, code, body)
			}
		case "gc":
			// 503: readers busy, try later; anything else is a failure.
			if code, body := call("POST", api+"/api/gc", ""); code != 200 && code != 503 {
				t.Fatalf("fault %d: gc: %d %s", i, code, body)
			}
		}
		fig.faults[kind]++
		// Recovered without a restart of the sidecar: a new commit
		// becomes durable.
		t0 := time.Now()
		waitDurable(t, api, marker(t, url), logs.Tail)
		fig.recovered++
		fig.recovery = append(fig.recovery, time.Since(t0))
		if i == faults/2 {
			badInput(t, api, key, fig)
		}
		// The checks, with both sides holding still.
		wl.pause()
		waitReady(t, api, url, logs.Tail) // a resync still running finishes first
		if bad := checker.check(); len(bad) > 0 {
			t.Fatalf("seed %d: checks after fault %d (%s):\n%s\n%s", seed, i, kind, strings.Join(bad, "\n"), logs.Tail())
		}
		fig.checksPassed++
		wl.resume()
	}
	if faults == 0 {
		badInput(t, api, key, fig)
	}
	t.Logf("faults done after %v", time.Since(begin))
	wl.pause()
	waitReady(t, api, url, logs.Tail) // a resync still running finishes first
	t.Logf("workload stopped and applied after %v", time.Since(begin))
	fig.diffLines = diffThroughAPI(t, api, key)
	fig.verifyResult = verifyThroughAPI(t, api)
	if fig.verifyResult != "equal" {
		t.Errorf("verify: %s", fig.verifyResult)
	}
	t.Logf("diff and verify done after %v", time.Since(begin))
	if err := stopDaemon(); err != nil {
		t.Fatalf("daemon: %v\n%s", err, logs.Tail())
	}
	t.Logf("daemon stopped after %v", time.Since(begin))

	for _, tbl := range []string{key, "public.counter"} {
		_, got := mirrortest.MirrorRows(t, cfg.DataDir, tbl)
		want := mirrortest.PGRows(t, url, tbl)
		if !slices.Equal(got, want) {
			t.Errorf("seed %d: %s: mirror %d rows, PostgreSQL %d; they differ", seed, tbl, len(got), len(want))
		}
		fig.rowsCompared += len(want)
	}
	samples := 100 // TORTURE_FULL=1 reads every version (slow: ~0.1 s each)
	if os.Getenv("TORTURE_FULL") == "1" {
		samples = 0
	}
	n, last, err := mirrortest.CounterVersionsSampled(t, cfg.DataDir, "public.counter", 1, samples)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	fig.versionsChecked, fig.lastCounter = n, last
	if n < 5 {
		t.Errorf("seed %d: only %d versions touched the counter", seed, n)
	}
	for _, bad := range []string{"goroutine ", "panic:", "SIGBUS", "xxx-secret"} {
		if strings.Contains(logs.String(), bad) {
			t.Errorf("the daemon's log holds %q", bad)
		}
	}
	fig.resyncRetries = strings.Count(logs.String(), "resync failed; its changes stay held")
	t.Logf("checks done after %v", time.Since(begin))
	report(t, fig, faults)
}

// hostileDB makes a database with the hostile table (2000 rows) and the
// counter, and returns its URL, the table's and column's SQL names and
// the table's mirror key.
func hostileDB(t *testing.T) (url, hostile, col, key string) {
	t.Helper()
	url = pg.NewDB(t)
	hostile = pgx.Identifier{hostileSchema, hostileTable}.Sanitize()
	col = pgx.Identifier{hostileColumn}.Sanitize()
	exec(t, url,
		`CREATE SCHEMA `+pgx.Identifier{hostileSchema}.Sanitize(),
		`CREATE TABLE `+hostile+` (id int8 PRIMARY KEY, `+col+` text, n numeric)`,
		`CREATE TABLE counter (id int PRIMARY KEY, n bigint NOT NULL)`,
		`INSERT INTO counter VALUES (1, 0)`,
		fmt.Sprintf(`INSERT INTO %s SELECT g, 'seed ' || g, g / 7.0 FROM generate_series(1, 2000) g`, hostile),
	)
	tn, err := config.ParseTable(fmt.Sprintf(`"%s"."%s"`, strings.ReplaceAll(hostileSchema, `"`, `""`), hostileTable))
	if err != nil {
		t.Fatal(err)
	}
	return url, hostile, col, tn.String() // the mirror's key and the SQL name
}

func torturedConfig(t *testing.T, pgURL, key string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "sidecar.yaml")
	body := fmt.Sprintf("postgres:\n  url: %s\ntables: ['%s', public.counter]\ndata_dir: %s\nlisten: 127.0.0.1:0\nsql:\n  listen: \"\"\nstorage:\n  min_free: 64MiB\n",
		pgURL, key, filepath.Join(dir, "data"))
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{File: file, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// queryRow runs one query on a connection of its own.
func queryRow(url, sql string, args []any, dest ...any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.QueryRow(ctx, sql, args...).Scan(dest...)
}

func exec(t *testing.T, url string, sqls ...string) {
	t.Helper()
	daemontest.Exec(t, url, sqls...)
}

// marker bumps the counter (as every transaction does) and returns the
// WAL insert position before it; retried across a restart.
func marker(t *testing.T, url string) wal.LSN {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		lsn, err := tryMarker(url)
		if err == nil {
			return lsn
		}
		if time.Now().After(deadline) {
			t.Fatalf("marker: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tryMarker(url string) (wal.LSN, error) {
	lsn, err := daemontest.QueryLSN(url, "SELECT pg_current_wal_insert_lsn()::text")
	if err != nil {
		return 0, err
	}
	return lsn, daemontest.TryExec(url, "UPDATE counter SET n = n + 1 WHERE id = 1")
}

// status reads the daemon's durable LSN and phase (ok false: no answer).
func status(api string) (durable wal.LSN, phase string, ok bool) {
	st, err := daemontest.ReadStatus(api, "")
	if err != nil {
		return 0, "", false
	}
	d, err := wal.ParseLSN(st.DurableLSN)
	return d, st.Phase, err == nil
}

// waitDurable waits until the daemon's durable LSN is past lsn; on
// failure it prints the log's tail and where the in-process daemon's
// goroutines wait.
func waitDurable(t *testing.T, api string, lsn wal.LSN, logs func() string) {
	t.Helper()
	daemontest.Eventually(t, fmt.Sprintf("durable LSN past %s", lsn), 0, func() bool {
		d, phase, ok := status(api)
		return ok && d > lsn && phase == "streaming"
	}, logs, func() string {
		var stacks strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1) // the daemon runs in-process: where it waits
		return "goroutines:\n" + stacks.String()
	})
}

// waitReady waits until every table is ready (no resync pending or
// running) and a marker after that is durable.
func waitReady(t *testing.T, api, url string, logs func() string) {
	t.Helper()
	var last string
	daemontest.Eventually(t, "every table ready", 0, func() bool {
		waitDurable(t, api, marker(t, url), logs)
		var st daemontest.Status
		code, body := call("GET", api+"/api/status", "")
		last = string(body)
		if code != 200 || json.Unmarshal(body, &st) != nil {
			return false
		}
		ready := len(st.Tables) > 0
		for _, ts := range st.Tables {
			ready = ready && ts.State == "ready"
		}
		return ready
	}, func() string { return last + "\n" + logs() })
	waitDurable(t, api, marker(t, url), logs)
}

// workload commits transactions until ctx ends; each bumps the counter
// and changes hostile rows; some roll back, some are big (streamed).
func workload(ctx context.Context, url, hostile, col string, rng *rand.Rand, fig *figures) {
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for ctx.Err() == nil {
		if conn == nil {
			c, err := pgx.Connect(ctx, url)
			if err != nil {
				fig.workloadErrors.Add(1)
				time.Sleep(100 * time.Millisecond)
				continue
			}
			conn = c
		}
		err := oneTxn(ctx, conn, hostile, col, rng, fig)
		if err != nil && ctx.Err() == nil {
			fig.workloadErrors.Add(1)
			conn.Close(context.Background())
			conn = nil
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func oneTxn(ctx context.Context, conn *pgx.Conn, hostile, col string, rng *rand.Rand, fig *figures) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1"); err != nil {
		return err
	}
	big := rng.IntN(40) == 0
	if big {
		if _, err := tx.Exec(ctx, fmt.Sprintf("UPDATE %s SET n = n + 1 WHERE id %% 3 = $1", hostile), rng.IntN(3)); err != nil {
			return err
		}
	}
	for range 1 + rng.IntN(4) {
		id := 1 + rng.IntN(2500)
		switch rng.IntN(4) {
		case 0:
			if _, err := tx.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE id = $1", hostile), id); err != nil {
				return err
			}
		default:
			v := hostileValues[rng.IntN(len(hostileValues))]
			if _, err := tx.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id, %s, n) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET %s = excluded.%s, n = excluded.n",
				hostile, col, col, col), id, v, fmt.Sprintf("%d.%03d", rng.IntN(1e6), rng.IntN(1000))); err != nil {
				return err
			}
		}
	}
	if rng.IntN(10) == 0 {
		fig.rollbacks.Add(1)
		return tx.Rollback(ctx)
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	fig.txns.Add(1)
	if big {
		fig.bigTxns.Add(1)
	}
	return nil
}

func terminateWalsender(t *testing.T, url, slot string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(),
		"SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL", slot); err != nil {
		t.Fatal(err)
	}
}

// call makes one request and returns its status and body ("" body: none),
// read up to 4 MiB.
func call(method, url, body string) (int, []byte) {
	return callUpTo(method, url, body, 4<<20)
}

// callUpTo is call reading up to limit bytes of the answer.
func callUpTo(method, url, body string, limit int64) (int, []byte) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return 0, []byte(err.Error())
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, limit))
	return resp.StatusCode, b
}

// badInput sends malformed requests and bad refs: every answer must be a
// 4xx with a short JSON error and no stack trace.
func badInput(t *testing.T, api, key string, fig *figures) {
	t.Helper()
	q := url.QueryEscape
	long := strings.Repeat("z", 200)
	huge := `{"name":"` + strings.Repeat("h", 2<<20) + `"}`
	type req struct{ method, path, body string }
	var reqs []req
	for _, ref := range []string{"../../x", "HEAD~99999999999999999999", "HEAD~-1", "HEAD^^^^x", "0/ZZZ", "0/", long, "\x00", "nope", "'; DROP TABLE counter; --"} {
		reqs = append(reqs,
			req{"GET", "/api/diff?from=" + q(ref) + "&to=HEAD", ""},
			req{"GET", "/api/diff?from=HEAD&to=" + q(ref), ""},
			req{"GET", "/api/scan?table=" + q(key) + "&as_of=" + q(ref), ""},
			req{"GET", "/api/get?table=public.counter&pk=1&as_of=" + q(ref), ""},
			req{"GET", "/api/resolve?ref=" + q(ref), ""},
		)
	}
	for _, name := range []string{"../../x", "HEAD", "0/1234", long, "", "a b", "x..y", "-x"} {
		b, _ := json.Marshal(map[string]string{"name": name})
		reqs = append(reqs, req{"POST", "/api/tag", string(b)}, req{"POST", "/api/branch", string(b)})
	}
	for _, tbl := range []string{`"unterminated`, "a.b.c", "public.nope", `x"y`, long, ""} {
		reqs = append(reqs,
			req{"GET", "/api/scan?table=" + q(tbl), ""},
			req{"GET", "/api/get?table=" + q(tbl) + "&pk=1", ""},
			req{"GET", "/api/diff?from=HEAD~1&to=HEAD&table=" + q(tbl), ""})
		if tbl != "" { // an empty table is "every table" to log and resync
			reqs = append(reqs, req{"GET", "/api/log?table=" + q(tbl), ""})
			b, _ := json.Marshal(map[string][]string{"tables": {tbl}})
			reqs = append(reqs, req{"POST", "/api/resync", string(b)})
		}
	}
	reqs = append(reqs,
		req{"POST", "/api/tag", huge}, req{"POST", "/api/resync", huge}, req{"POST", "/api/merge", huge},
		req{"POST", "/api/tag", `{"name":1}`}, req{"POST", "/api/tag", `[]`}, req{"POST", "/api/tag", `{`},
		req{"POST", "/api/tag", `{"name":"ok1","nmae":"x"}`}, req{"POST", "/api/tag", `{"name":"a1"} {"name":"b1"}`},
		req{"POST", "/api/resync", `{"table":["public.counter"]}`}, req{"POST", "/api/resync", `not json`},
		req{"POST", "/api/merge", `{}`}, req{"POST", "/api/merge", `{"zzz":1}`}, req{"POST", "/api/revert", `{}`},
		req{"POST", "/api/verify", `{"tables":["public.nope"]}`}, req{"POST", "/api/verify", `{"tabels":[]}`},
		req{"GET", "/api/get?table=public.counter", ""}, req{"GET", "/api/get?table=public.counter&pk=x", ""},
		req{"GET", "/api/scan?table=public.counter&limit=abc", ""}, req{"GET", "/api/scan?table=public.counter&limit=-5", ""},
		req{"GET", "/api/log?n=-1", ""}, req{"GET", "/api/log?n=abc", ""},
		req{"GET", "/api/diff?from=HEAD&to=HEAD&stat=maybe", ""}, req{"GET", "/api/diff", ""},
		req{"GET", "/api/diff?from=HEAD~1&to=HEAD&where=" + q("id = 1; DROP TABLE x"), ""},
		req{"DELETE", "/api/log", ""}, req{"PUT", "/api/tag", "{}"}, req{"GET", "/api/resync", ""}, req{"PATCH", "/api/status", ""},
		req{"GET", "/api/../../etc/passwd", ""}, req{"GET", "/api/" + long, ""},
	)
	for _, r := range reqs {
		code, body := call(r.method, api+r.path, r.body)
		fig.badRequests++
		var e struct{ Error string }
		bad := ""
		switch {
		case code < 400 || code >= 500:
			bad = fmt.Sprintf("status %d", code)
		case json.Unmarshal(body, &e) != nil || e.Error == "":
			bad = "not a JSON error"
		case len(body) > 8<<10:
			bad = fmt.Sprintf("a %d-byte answer", len(body))
		case bytes.Contains(body, []byte("goroutine ")) || bytes.Contains(body, []byte("panic")):
			bad = "a stack trace"
		}
		if bad != "" {
			fig.badAnswers++
			t.Errorf("%s %.120s (body %d bytes): %s: %.300s", r.method, r.path, len(r.body), bad, body)
		}
	}
}

// diffThroughAPI diffs the hostile table over its last two versions and
// returns the number of lines.
func diffThroughAPI(t *testing.T, api, key string) int {
	t.Helper()
	code, body := call("GET", api+"/api/diff?from=HEAD~2&to=HEAD&table="+url.QueryEscape(key), "")
	if code != 200 {
		t.Fatalf("diff of %s: %d %.300s", key, code, body)
	}
	n := 0
	for line := range bytes.SplitSeq(bytes.TrimSpace(body), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m["error"] != nil {
			t.Fatalf("diff line %q: %v", line, err)
		}
		n++
	}
	return n
}

func verifyThroughAPI(t *testing.T, api string) string {
	t.Helper()
	code, body := call("POST", api+"/api/verify", "{}")
	var rep struct {
		Result string `json:"result"`
	}
	if code != 200 || json.Unmarshal(body, &rep) != nil {
		t.Fatalf("verify: %d %.300s", code, body)
	}
	return rep.Result
}

// report logs the figures and writes them to TORTURE_REPORT when set.
func report(t *testing.T, fig *figures, faults int) {
	var b strings.Builder
	fmt.Fprintf(&b, "| figure | value |\n|---|---|\n")
	row := func(k string, v any) { fmt.Fprintf(&b, "| %s | %v |\n", k, v) }
	row("seed", fig.seed)
	row("faults injected", faults)
	for _, k := range slices.Sorted(maps.Keys(fig.faults)) {
		row("  "+k, fig.faults[k])
	}
	row("faults recovered without a sidecar restart", fig.recovered)
	row("  followed by the checks (verify, rows, counter), passed", fig.checksPassed)
	row("  counter versions those checks counted (consecutive)", fig.liveVersions)
	if len(fig.recovery) > 0 {
		rs := slices.Sorted(slices.Values(fig.recovery))
		row("  recovery (fault to a new durable commit): median / max", fmt.Sprintf("%.1f s / %.1f s", rs[len(rs)/2].Seconds(), rs[len(rs)-1].Seconds()))
	}
	row("resync attempts retried after a connection error", fig.resyncRetries)
	row("transactions committed by the workload (+ markers)", fig.txns.Load())
	row("  of them big (streamed)", fig.bigTxns.Load())
	row("transactions rolled back", fig.rollbacks.Load())
	row("workload errors (retried)", fig.workloadErrors.Load())
	row("rows compared with PostgreSQL", fig.rowsCompared)
	row("versions touching the counter, consecutive (sampled reads unless TORTURE_FULL=1)", fig.versionsChecked)
	row("final counter", fig.lastCounter)
	row("diff lines of the hostile table (HEAD~2..HEAD)", fig.diffLines)
	row("verify", fig.verifyResult)
	row("bad requests sent", fig.badRequests)
	row("bad answers (5xx, not JSON, stack trace, > 8 KiB)", fig.badAnswers)
	t.Log("\n" + b.String())
	if path := os.Getenv("TORTURE_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Errorf("TORTURE_REPORT: %v", err)
		}
	}
}

// proxy forwards TCP connections to PostgreSQL; cutAll closes every one
// open (a network cut the sidecar must survive).
type proxy struct {
	ln     net.Listener
	target string
	url    string

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func newProxy(t *testing.T, pgURL string) *proxy {
	t.Helper()
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: u.Host, conns: map[net.Conn]struct{}{}}
	u.Host = ln.Addr().String()
	p.url = u.String()
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(c, s)
		go p.pipe(s, c)
	}
}

func (p *proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

func (p *proxy) cutAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

func (p *proxy) close() {
	p.ln.Close()
	p.cutAll()
	p.wg.Wait()
}
