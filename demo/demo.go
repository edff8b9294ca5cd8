// Package demo is `sidecar demo`: a guided tour on a throwaway PostgreSQL.
// It starts a local cluster (internal/pgtest), creates and fills a sample
// table, runs the daemon against it in this process, makes a few changes,
// and prints what the sidecar recorded. Everything it started is stopped
// and removed when it returns, also on Ctrl-C.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// Options configure a demo run.
type Options struct {
	// Out receives the narrative.
	Out io.Writer
	// Log receives the daemon's log (nil discards it).
	Log io.Writer
	// Rows is the size of the sample table (default 10,000).
	Rows int
	// KeepDir keeps the data directory and prints its path.
	KeepDir bool
	// CLI runs one `sidecar` command line in this process and returns its
	// exit status (cmd/sidecar passes its own entry point), so the tour
	// shows the real commands and their real output. Required.
	CLI func(ctx context.Context, stdout, stderr io.Writer, args ...string) int
}

// step prints one numbered heading.
type tour struct {
	out io.Writer
	n   int
}

func (t *tour) step(format string, args ...any) {
	t.n++
	fmt.Fprintf(t.out, "\n== %d. %s\n", t.n, fmt.Sprintf(format, args...))
}

func (t *tour) say(format string, args ...any) { fmt.Fprintf(t.out, "   "+format+"\n", args...) }

// Run runs the tour. It returns nil when every step worked.
func Run(ctx context.Context, opts Options) (err error) {
	if opts.Rows <= 0 {
		opts.Rows = 10_000
	}
	if opts.CLI == nil {
		return errors.New("demo: Options.CLI is required")
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	logger := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelInfo}))
	t := &tour{out: opts.Out}

	t.step("Starting a throwaway PostgreSQL (wal_level=logical)")
	cluster, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		return fmt.Errorf("start PostgreSQL: %w", err)
	}
	defer func() {
		if serr := cluster.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	url, err := cluster.CreateDB(ctx, "demo")
	if err != nil {
		return err
	}
	v := cluster.ServerVersion()
	t.say("PostgreSQL %d.%d on 127.0.0.1:%d, database demo", v/10000, v%10000, cluster.Port())

	t.step("Creating public.accounts with %d rows", opts.Rows)
	if err := sql(ctx, url,
		"CREATE TABLE accounts (id bigint PRIMARY KEY, owner text NOT NULL, balance numeric(12,2) NOT NULL, note text)",
		fmt.Sprintf("INSERT INTO accounts SELECT g, 'owner-' || g, (g * 37 %% 10000) / 10.0, NULL FROM generate_series(1, %d) g", opts.Rows),
	); err != nil {
		return err
	}

	dir, err := os.MkdirTemp("", "sidecar-demo-")
	if err != nil {
		return err
	}
	if opts.KeepDir {
		defer t.say("data directory kept: %s", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	cfg, cfgFile, err := demoConfig(dir, url)
	if err != nil {
		return err
	}

	t.step("Starting the sidecar (preflight, publication, slot, initial copy, streaming)")
	dctx, stopDaemon := context.WithCancel(ctx)
	defer stopDaemon()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(dctx, daemon.Options{Config: cfg, Logger: logger, OnReady: func(a string) { ready <- a }})
	}()
	select {
	case cfg.Listen = <-ready:
	case err := <-done:
		return fmt.Errorf("sidecar: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
	api := client.NewDaemon(cfg.Listen, "")
	st, err := waitStreaming(ctx, api, done)
	if err != nil {
		return err
	}
	for _, tb := range st.Tables {
		t.say("%s: %s, %d rows copied at LSN %s", tb.Name, tb.State, tb.Rows, tb.CopiedAt)
	}
	t.say("HTTP API, /metrics, /healthz, /readyz on http://%s", cfg.Listen)

	t.step("Making changes in PostgreSQL, one transaction each")
	changes := []struct{ what, sql string }{
		{"pay interest to accounts 1-10", "UPDATE accounts SET balance = balance * 1.01 WHERE id <= 10"},
		{"close accounts 20-24", "DELETE FROM accounts WHERE id BETWEEN 20 AND 24"},
		{"open account 100001", "INSERT INTO accounts VALUES (100001, 'new-owner', 50.00, 'welcome')"},
		{"rename owner of account 7", "UPDATE accounts SET owner = 'Zoë ''the bold''' WHERE id = 7"},
	}
	// write runs each statement as its own transaction, then waits until
	// the mirror has made the last one durable (its commit ends after the
	// WAL position read just before it).
	write := func(show func(string), stmts ...string) (daemon.Status, error) {
		var last wal.LSN
		for _, q := range stmts {
			lsn, err := walLSN(ctx, url)
			if err != nil {
				return daemon.Status{}, err
			}
			if err := sql(ctx, url, q); err != nil {
				return daemon.Status{}, err
			}
			last = lsn
			if show != nil {
				show(q)
			}
		}
		return poll(ctx, api, done, func(s daemon.Status) bool {
			d, _ := wal.ParseLSN(s.DurableLSN)
			return d > last
		})
	}
	before, err := walLSN(ctx, url)
	if err != nil {
		return err
	}
	what := map[string]string{}
	var stmts []string
	for _, c := range changes {
		what[c.sql] = c.what
		stmts = append(stmts, c.sql)
	}
	st, err = write(func(q string) { t.say("%-32s %s", what[q], q) }, stmts...)
	if err != nil {
		return err
	}

	t.step("What the sidecar reports (sidecar status)")
	t.say("phase %s, durable LSN %s, lag %d bytes, %d commits applied", st.Phase, st.DurableLSN, st.LagBytes, st.Commits)

	// The CLI talks to the running daemon through its API.
	cli := func(args ...string) (stdout, stderr string, code int) {
		var out, errOut strings.Builder
		args = append(args, "--config", cfgFile, "--listen", cfg.Listen)
		code = opts.CLI(ctx, &out, &errOut, args...)
		return out.String(), errOut.String(), code
	}
	show := func(args ...string) (string, int, error) {
		stdout, stderr, code := cli(args...)
		out := stdout + stderr
		fmt.Fprintf(t.out, "   $ sidecar %s\n", strings.Join(args, " "))
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			fmt.Fprintf(t.out, "     %s\n", l)
		}
		if code == 2 {
			return out, code, fmt.Errorf("sidecar %s: exit 2: %s", strings.Join(args, " "), out)
		}
		return out, code, nil
	}
	say := func(q string) { t.say("%s", q) }

	t.step("Tagging this version before a risky cleanup")
	if _, _, err := show("tag", "before-cleanup"); err != nil {
		return err
	}

	t.step("A bad cleanup deletes far too much, and the application keeps writing")
	if _, err := write(nil, "DELETE FROM accounts WHERE balance < 100"); err != nil {
		return err
	}
	t.say("DELETE FROM accounts WHERE balance < 100          -- meant: < 1.00")
	if _, _, err := show("tag", "after-cleanup"); err != nil {
		return err
	}
	mid := opts.Rows / 2
	later := []string{
		fmt.Sprintf("UPDATE accounts SET balance = balance + 5 WHERE id BETWEEN %d AND %d AND balance >= 100", mid, mid+5),
		"INSERT INTO accounts VALUES (3, 'reopened', 75.00, 'new account on a deleted id')",
	}
	if _, err := write(say, later...); err != nil {
		return err
	}

	t.step("What the cleanup did (sidecar diff)")
	if _, _, err := show("diff", "before-cleanup", "after-cleanup", "--stat"); err != nil {
		return err
	}
	if _, _, err := show("diff", "before-cleanup", "after-cleanup", "--limit", "3"); err != nil {
		return err
	}

	t.step("Reading the version before the cleanup over SQL (any PostgreSQL client)")
	host, port, _ := net.SplitHostPort(cfg.SQL.Listen)
	for _, q := range []string{"SELECT count(*) FROM accounts AS OF 'before-cleanup'", "SELECT count(*) FROM accounts"} {
		n, err := sqlCount(ctx, cfg.SQL.Listen, q)
		if err != nil {
			t.say("the SQL front end did not answer: %v", err)
			break
		}
		t.say("$ psql -h %s -p %s -c \"%s\"     -> %d", host, port, q, n)
	}

	t.step("Undoing it, keeping every later write (sidecar revert)")
	sqlPatch, report, code := cli("revert", "before-cleanup", "after-cleanup")
	if code == 2 {
		return fmt.Errorf("sidecar revert: %s", report)
	}
	conflicts := strings.Split(strings.TrimSpace(report), "\n")
	t.say("$ sidecar revert before-cleanup after-cleanup > undo.sql     (exit %d)", code)
	lines := strings.Split(strings.TrimSpace(sqlPatch), "\n")
	if len(lines) > 6 {
		lines = append(lines[:4:4], fmt.Sprintf("... %d more lines ...", len(lines)-5), lines[len(lines)-1])
	}
	for _, l := range lines {
		t.say("  %s", l)
	}
	for _, l := range conflicts {
		t.say("  %s", l)
	}
	if _, err := write(nil, sqlPatch); err != nil {
		return fmt.Errorf("apply undo.sql: %w", err)
	}
	t.say("$ psql -f undo.sql     (applied to PostgreSQL)")
	if _, _, err := show("diff", "before-cleanup", "HEAD", "--stat"); err != nil {
		return err
	}
	t.say("what still differs from before the cleanup: the later writes, and the reopened account 3")

	t.step("Proving the mirror equals PostgreSQL at one exact LSN (sidecar verify)")
	if _, code, err := show("verify"); err != nil || code != 0 {
		return fmt.Errorf("sidecar verify: exit %d: %v", code, err)
	}

	t.step("Drift: a change the stream never carries is found, named, and repaired")
	drift := []string{
		"ALTER PUBLICATION sidecar DROP TABLE accounts",
		"UPDATE accounts SET balance = 0 WHERE id = 42",
		"ALTER PUBLICATION sidecar ADD TABLE accounts",
	}
	if err := sql(ctx, url, drift...); err != nil {
		return err
	}
	for _, q := range drift {
		t.say("%s", q)
	}
	if _, code, err := show("verify"); err != nil || code != 1 {
		return fmt.Errorf("sidecar verify after drift: exit %d (want 1): %v", code, err)
	}
	if _, _, err := show("resync", "public.accounts"); err != nil {
		return err
	}
	if _, code, err := show("verify"); err != nil || code != 0 {
		return fmt.Errorf("sidecar verify after resync: exit %d: %v", code, err)
	}

	t.step("Stopping the sidecar (SIGTERM does the same: sync, acknowledge, exit 0)")
	stopDaemon()
	if err := <-done; err != nil {
		return fmt.Errorf("sidecar stop: %w", err)
	}
	t.say("stopped cleanly")

	t.step("The versions it recorded (every commit is one)")
	if err := printVersions(ctx, t, cfg, before); err != nil {
		return err
	}
	fmt.Fprintf(t.out, "\nDone. Try it on your own database: edit examples/sidecar.yaml, then\n  sidecar check --config examples/sidecar.yaml\n  sidecar run --config examples/sidecar.yaml\n")
	return nil
}

func demoConfig(dir, url string) (*config.Config, string, error) {
	file := filepath.Join(dir, "sidecar.yaml")
	sqlAddr, err := freeLoopbackAddr()
	if err != nil {
		return nil, "", err
	}
	body := fmt.Sprintf("postgres:\n  url: %s\ntables: [public.accounts]\ndata_dir: %s\nlisten: 127.0.0.1:0\nsql:\n  listen: %s\n",
		url, filepath.Join(dir, "data"), sqlAddr)
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		return nil, "", err
	}
	cfg, err := config.Load(config.LoadOptions{File: file, Environ: []string{}})
	return cfg, file, err
}

// freeLoopbackAddr returns a loopback address whose port was free a moment
// ago, for the demo's SQL listener (another sidecar may hold 7433).
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// sqlCount runs a count(*) query against the sidecar's SQL front end.
func sqlCount(ctx context.Context, addr, query string) (int64, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://demo@%s:%s/app?sslmode=disable", host, port))
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	var n int64
	err = conn.QueryRow(ctx, query).Scan(&n)
	return n, err
}

func sql(ctx context.Context, url string, stmts ...string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func walLSN(ctx context.Context, url string) (wal.LSN, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	var s string
	if err := conn.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
		return 0, err
	}
	return wal.ParseLSN(s)
}

func waitStreaming(ctx context.Context, api *client.Daemon, done <-chan error) (daemon.Status, error) {
	return poll(ctx, api, done, func(st daemon.Status) bool { return st.Phase == "streaming" && st.Connected })
}

func poll(ctx context.Context, api *client.Daemon, done <-chan error, ok func(daemon.Status) bool) (daemon.Status, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var st daemon.Status
		if err := api.GetJSON(ctx, "/api/status", nil, &st); err == nil && ok(st) {
			return st, nil
		}
		select {
		case err := <-done:
			return st, fmt.Errorf("sidecar stopped: %v", err)
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return st, errors.New("the sidecar did not get there within 2 minutes")
		}
	}
}

func printVersions(ctx context.Context, t *tour, cfg *config.Config, after wal.LSN) error {
	db, err := store.Open(store.Options{Dir: cfg.DataDir})
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := mirror.Open(ctx, mirror.Options{DB: db})
	if err != nil {
		return err
	}
	defer m.Close(ctx)
	versions, err := m.Versions(after, m.Durable(), 0)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(t.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "   LSN\tcommit time\txid\trows changed")
	for _, v := range versions {
		var parts []string
		for _, tc := range v.Tables {
			parts = append(parts, fmt.Sprintf("%s %d", tc.Table, tc.Rows))
		}
		fmt.Fprintf(tw, "   %s\t%s\t%d\t%s\n", v.EndLSN, v.CommitTime.UTC().Format("15:04:05.000"), v.Xid, strings.Join(parts, ", "))
	}
	tw.Flush()
	if head, err := m.TreeAt(ctx, "public.accounts", m.Durable()); err == nil {
		if n, err := head.Count(ctx); err == nil {
			t.say("")
			t.say("public.accounts at HEAD: %d rows", n)
		}
	}
	// Time travel: account 7's owner before and after its rename.
	if len(versions) >= 1 {
		first, last := versions[0], versions[len(versions)-1]
		old, _, err := m.Get(ctx, "public.accounts", []string{"7"}, first.EndLSN)
		if err != nil {
			return err
		}
		cur, _, err := m.Get(ctx, "public.accounts", []string{"7"}, last.EndLSN)
		if err != nil {
			return err
		}
		t.say("account 7 as of %s: %s", first.EndLSN, rowText(old))
		t.say("account 7 as of %s: %s", last.EndLSN, rowText(cur))
	}
	return nil
}
