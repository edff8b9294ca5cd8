// Package daemontest is the one test rig for a sidecar daemon following a
// throwaway cluster (internal/pgtest): start it with options, run SQL on
// the followed database, commit a marker and wait until the daemon has it
// (durable, at HEAD, on the SQL port), read its status, stop it cleanly —
// or, as a child process, kill it with SIGKILL.
//
// Every wait polls a condition up to a generous ceiling (Ceiling unless
// told otherwise) and fails naming what it waited for and the last state
// it saw; nothing sleeps for a fixed time in the hope that something has
// happened by then.
//
// The package does not import package daemon, so that daemon's own
// (internal) tests can use it: the caller hands Start the function that
// runs the daemon (daemon.Run with the ready callback set), and status
// answers decode into the caller's type through StatusInto.
package daemontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/wal"
)

// Ceiling is how long a wait polls before it fails. It is far above what
// any wait takes on an idle machine: a CI machine under load is slow, not
// broken.
const Ceiling = 2 * time.Minute

// Exec runs each statement on a connection of its own to url, failing
// the test on the first error.
func Exec(t testing.TB, url string, sqls ...string) {
	t.Helper()
	if err := TryExec(url, sqls...); err != nil {
		t.Fatal(err)
	}
}

// TryExec is Exec returning the error (connection errors included), for
// workloads that run across a restart of the server.
func TryExec(url string, sqls ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), Ceiling)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	for _, s := range sqls {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// InsertLSN is the server's WAL insert position. A marker waits past the
// insert position taken before its commit, not pg_current_wal_lsn(): the
// write position can trail the slot's consistent point, which would make
// the copy alone look past the marker; and waiting for the write position
// itself would wait forever when WAL without a followed commit (an
// aborted transaction) comes last.
func InsertLSN(t testing.TB, url string) wal.LSN {
	t.Helper()
	l, err := QueryLSN(url, "SELECT pg_current_wal_insert_lsn()::text")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// QueryLSN runs a query answering one LSN as text (pg_lsn::text); a NULL
// answer (a slot that has confirmed nothing yet) is 0.
func QueryLSN(url, sql string, args ...any) (wal.LSN, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Ceiling)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	var s *string
	if err := conn.QueryRow(ctx, sql, args...).Scan(&s); err != nil {
		return 0, fmt.Errorf("%s: %w", sql, err)
	}
	if s == nil {
		return 0, nil
	}
	return wal.ParseLSN(*s)
}

// Eventually polls cond (quickly at first, then every half second) until
// it holds, failing the test after within (Ceiling when 0). state, if
// set, describes what was last seen, for the failure message.
func Eventually(t testing.TB, what string, within time.Duration, cond func() bool, state ...func() string) {
	t.Helper()
	if err := Poll(within, cond); err != nil {
		msg := fmt.Sprintf("%s: not within %s", what, orCeiling(within))
		for _, s := range state {
			msg += "\n" + s()
		}
		t.Fatal(msg)
	}
}

// Poll is Eventually's loop without a test: nil once cond holds, an error
// after within (Ceiling when 0).
func Poll(within time.Duration, cond func() bool) error {
	within = orCeiling(within)
	deadline := time.Now().Add(within)
	pause := 10 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("condition not met within %s", within)
		}
		time.Sleep(pause)
		pause = min(pause*2, 500*time.Millisecond)
	}
	return nil
}

func orCeiling(d time.Duration) time.Duration {
	if d <= 0 {
		return Ceiling
	}
	return d
}

// Config writes a sidecar.yaml in a fresh temporary directory (its data
// directory beside it) following tables of the database at url, the API
// and the SQL port on free loopback ports, plus extra YAML lines (top-level keys; a line
// setting data_dir or listen replaces that default), and loads it as
// `sidecar run` would, without the environment.
func Config(t testing.TB, url string, tables []string, extra ...string) *config.Config {
	t.Helper()
	return ConfigIn(t, t.TempDir(), url, tables, extra...)
}

// ConfigIn is Config with the directory chosen.
func ConfigIn(t testing.TB, dir, url string, tables []string, extra ...string) *config.Config {
	t.Helper()
	file := filepath.Join(dir, "sidecar.yaml")
	body := fmt.Sprintf("postgres:\n  url: %s\ntables: [%s]\n", url, strings.Join(tables, ", "))
	defaults := [][2]string{{"data_dir", filepath.Join(dir, "data")}, {"listen", "127.0.0.1:0"}}
	for _, kv := range defaults {
		if !slices.ContainsFunc(extra, func(e string) bool { return strings.HasPrefix(e, kv[0]+":") }) {
			body += kv[0] + ": " + kv[1] + "\n"
		}
	}
	// The SQL port: never the default 127.0.0.1:7433, which tests run in
	// parallel (and a developer's own sidecar) would fight over — a free
	// port unless the test set sql.listen itself.
	sqlBlock := false
	for _, e := range extra {
		e = strings.TrimRight(e, "\n")
		if strings.HasPrefix(e, "sql:") {
			sqlBlock = true
			if !strings.Contains(e, "\n  listen:") {
				e += "\n  listen: 127.0.0.1:0"
			}
		}
		body += e + "\n"
	}
	if !sqlBlock {
		body += "sql:\n  listen: 127.0.0.1:0\n"
	}
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{File: file, Environ: []string{}})
	if err != nil {
		t.Fatalf("load %s: %v\n%s", file, err, body)
	}
	return cfg
}

// RunFunc runs a daemon until ctx ends, calling ready with the API's
// address once it listens: daemon.Run with Options.OnReady = ready.
type RunFunc func(ctx context.Context, ready func(addr string)) error

// Options start a daemon in this process.
type Options struct {
	// PG is the URL of the followed database (Marker commits there).
	PG string
	// Run runs the daemon.
	Run RunFunc
	// ReadyWithin and StopWithin bound the start and the stop, WaitWithin
	// the daemon's waits (WaitDurable, Marker, WaitHead); Ceiling when 0.
	ReadyWithin, StopWithin, WaitWithin time.Duration
	// Token is the daemon's api.token, sent by the rig's own requests
	// (status polls, Get); "" when the API has none.
	Token string
}

// Status is the part of GET /api/status the rig's waits read; StatusInto
// decodes the whole answer into the caller's type.
type Status struct {
	Phase      string `json:"phase"`
	DurableLSN string `json:"durable_lsn"`
	LastError  string `json:"last_error,omitempty"`
	Tables     []struct {
		Name  string `json:"name"`
		State string `json:"state"`
	} `json:"tables"`
	Head *struct {
		Phase string `json:"phase"`
		LSN   string `json:"lsn"`
	} `json:"head,omitempty"`
}

// Durable is the durable LSN (0 when absent or unparsable).
func (s Status) Durable() wal.LSN {
	l, _ := wal.ParseLSN(s.DurableLSN)
	return l
}

// Daemon is a daemon started in this process, stopped when the test ends.
type Daemon struct {
	PG   string // the followed database
	Addr string // the API's host:port
	API  string // "http://" + Addr

	token   string
	cancel  context.CancelFunc
	done    chan error
	within  time.Duration // a stop
	waits   time.Duration // a wait on a condition
	stopped bool
	ended   bool // the run returned before Stop
	err     error
}

// Start runs a daemon and waits until its API listens; a daemon that
// ends before that fails the test with its error.
func Start(t testing.TB, opts Options) *Daemon {
	t.Helper()
	d, err := TryStart(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Stop() })
	return d
}

// TryStart is Start returning the error; the caller stops the daemon.
func TryStart(opts Options) (*Daemon, error) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	d := &Daemon{PG: opts.PG, token: opts.Token, cancel: cancel, done: make(chan error, 1), within: orCeiling(opts.StopWithin), waits: orCeiling(opts.WaitWithin)}
	go func() {
		d.done <- opts.Run(ctx, func(a string) {
			select {
			case ready <- a:
			default:
			}
		})
	}()
	select {
	case d.Addr = <-ready:
		d.API = "http://" + d.Addr
		return d, nil
	case err := <-d.done:
		cancel()
		d.stopped, d.err = true, err
		return nil, fmt.Errorf("daemon ended before ready: %v", err)
	case <-time.After(orCeiling(opts.ReadyWithin)):
		cancel()
		select {
		case <-d.done:
		case <-time.After(d.within):
		}
		return nil, fmt.Errorf("daemon not ready within %s", orCeiling(opts.ReadyWithin))
	}
}

// Stop cancels the daemon's context (as SIGTERM does) and returns what
// its run returned; a second Stop returns the same.
func (d *Daemon) Stop() error {
	if d.stopped {
		return d.err
	}
	d.stopped = true
	d.cancel()
	select {
	case d.err = <-d.done:
	case <-time.After(d.within):
		d.err = fmt.Errorf("daemon did not stop within %s", d.within)
	}
	return d.err
}

// Get fetches path from the API and returns the status code and body.
func (d *Daemon) Get(t testing.TB, path string) (int, string) {
	t.Helper()
	code, body, err := get(d.API+path, d.token)
	if err != nil {
		t.Fatal(err)
	}
	return code, body
}

// HTTPGet fetches url and returns the status code and body.
func HTTPGet(t testing.TB, url string) (int, string) {
	t.Helper()
	code, body, err := get(url, "")
	if err != nil {
		t.Fatal(err)
	}
	return code, body
}

// get fetches url, sending token as the bearer token when set.
func get(url, token string) (int, string, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// StatusInto decodes GET /api/status into v.
func (d *Daemon) StatusInto(t testing.TB, v any) {
	t.Helper()
	if err := statusInto(d.API, d.token, v); err != nil {
		t.Fatal(err)
	}
}

// ReadStatus reads GET /api/status of the daemon (a child process's
// too) serving its API at api: an error when it does not answer 200.
func ReadStatus(api, token string) (Status, error) {
	var st Status
	err := statusInto(api, token, &st)
	return st, err
}

func statusInto(api, token string, v any) error {
	code, body, err := get(api+"/api/status", token)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("GET /api/status: %d %s", code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		return fmt.Errorf("GET /api/status: %w: %s", err, body)
	}
	return nil
}

// Status reads the parts of the status the waits use.
func (d *Daemon) Status(t testing.TB) Status {
	t.Helper()
	var st Status
	d.StatusInto(t, &st)
	return st
}

// WaitDurable waits until the daemon streams with its durable LSN past
// lsn, and returns that status.
func (d *Daemon) WaitDurable(t testing.TB, lsn wal.LSN) Status {
	t.Helper()
	if err := d.Ended(); err != nil {
		t.Fatalf("durable LSN past %s: the daemon ended: %v", lsn, err)
	}
	var st Status
	var last string
	Eventually(t, fmt.Sprintf("durable LSN past %s", lsn), d.waits, func() bool {
		if d.Ended() != nil {
			return true // reported below
		}
		st = Status{}
		if err := statusInto(d.API, d.token, &st); err != nil {
			last = err.Error()
			return false
		}
		last = fmt.Sprintf("%+v", st)
		return st.Phase == "streaming" && st.Durable() > lsn
	}, func() string { return "last status: " + last }, Goroutines)
	if err := d.Ended(); err != nil {
		t.Fatalf("durable LSN past %s: the daemon ended: %v", lsn, err)
	}
	return st
}

// Goroutines is this process's goroutines grouped by stack (the daemon
// Start runs is one of them): a wait on an in-process daemon that fails
// says where it stood, so that a stuck apply or a lock held across a
// wait shows in the failure instead of being guessed at.
func Goroutines() string {
	var b strings.Builder
	b.WriteString("goroutines of the test process (the in-process daemon's among them):\n")
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		fmt.Fprintf(&b, "(goroutine profile: %v)", err)
	}
	return b.String()
}

// Ended returns what the daemon's run returned when it has ended on its
// own (an error, or errEndedClean for a nil return), and nil while it
// runs or after Stop.
func (d *Daemon) Ended() error {
	if d.stopped && !d.ended {
		return nil
	}
	if !d.ended {
		select {
		case err := <-d.done:
			d.stopped, d.ended, d.err = true, true, err
		default:
			return nil
		}
	}
	if d.err == nil {
		return errEndedClean
	}
	return d.err
}

var errEndedClean = errors.New("ended without an error before it was stopped")

// WaitDurable waits until the daemon serving its API at api (a child
// process's too) streams with its durable LSN past lsn, up to within
// (Ceiling when 0), and returns that status. Unanswered polls (the daemon
// restarting) are retried.
func WaitDurable(t testing.TB, api string, lsn wal.LSN, within time.Duration) Status {
	t.Helper()
	return waitDurable(t, api, "", lsn, within)
}

func waitDurable(t testing.TB, api, token string, lsn wal.LSN, within time.Duration) Status {
	t.Helper()
	var st Status
	var last string
	Eventually(t, fmt.Sprintf("durable LSN past %s", lsn), within, func() bool {
		st = Status{}
		if err := statusInto(api, token, &st); err != nil {
			last = err.Error()
			return false
		}
		last = fmt.Sprintf("%+v", st)
		return st.Phase == "streaming" && st.Durable() > lsn
	}, func() string { return "last status: " + last })
	return st
}

// Marker commits sql (which must change a followed table) on the
// followed database and waits until the daemon has it durable; it
// returns the WAL insert position just before the commit (see InsertLSN).
//
// A marker committed while the initial copy runs is not enough: when it
// commits after the slot's consistent point, the durable LSN jumps to
// that point, past the marker's start, before the stream applies it.
// Commit a second marker then.
func (d *Daemon) Marker(t testing.TB, sql string) wal.LSN {
	t.Helper()
	before := InsertLSN(t, d.PG)
	Exec(t, d.PG, sql)
	d.WaitDurable(t, before)
	return before
}

// WaitHead waits until the daemon's in-memory HEAD is loaded and holds
// lsn or later (a marker's LSN: visible at HEAD).
func (d *Daemon) WaitHead(t testing.TB, lsn wal.LSN) {
	t.Helper()
	var last string
	Eventually(t, fmt.Sprintf("HEAD past %s", lsn), d.waits, func() bool {
		var st Status
		if err := statusInto(d.API, d.token, &st); err != nil || st.Head == nil {
			last = fmt.Sprint(err)
			return false
		}
		last = fmt.Sprintf("%+v", *st.Head)
		h, err := wal.ParseLSN(st.Head.LSN)
		return err == nil && h > lsn
	}, func() string { return "last HEAD status: " + last }, Goroutines)
}

// WaitSQL waits until query, run on the SQL port at url, answers want
// (one value as text): the marker is visible on the SQL port.
func WaitSQL(t testing.TB, url, query, want string) {
	t.Helper()
	var last string
	Eventually(t, fmt.Sprintf("%q answering %q on %s", query, want, url), 0, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			last = err.Error()
			return false
		}
		defer conn.Close(context.Background())
		var got string
		if err := conn.QueryRow(ctx, query).Scan(&got); err != nil {
			last = err.Error()
			return false
		}
		last = got
		return got == want
	}, func() string { return "last answer: " + last })
}

// Exited waits up to within for the daemon's run to return by itself (a
// fatal error, a full disk) and returns its error; ok is false when it
// still runs.
func (d *Daemon) Exited(within time.Duration) (err error, ok bool) {
	if d.stopped {
		return d.err, true
	}
	select {
	case d.err = <-d.done:
		d.stopped = true
		d.cancel()
		return d.err, true
	case <-time.After(within):
		return nil, false
	}
}
