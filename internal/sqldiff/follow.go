package sqldiff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/wal"
)

// FollowOptions configure Follow.
type FollowOptions struct {
	PGURL  string   // the database to follow
	Tables []string // schema-qualified tables to follow
	Dir    string   // the data directory's parent (scratch)
	// StatementTimeout is the SQL port's sql.statement_timeout.
	StatementTimeout time.Duration
	// MemoryLimit is the daemon's memory.limit (empty: auto).
	MemoryLimit string
	// Ready bounds the wait for the copy to finish.
	Ready  time.Duration
	Logger *slog.Logger
	// WarmHead also waits until the in-memory HEAD holds the marker's
	// version (reads are served from its typed pages, not the trees):
	// what a benchmark of steady-state reads needs. A HEAD that failed to
	// load is an error then.
	WarmHead bool
}

// Sidecar is a daemon run in process that follows one database and
// serves its SQL port.
type Sidecar struct {
	SQLURL  string // postgres:// URL of the SQL port
	APIAddr string // the HTTP API's address
	// NotFollowed lists the tables the daemon declined, with its reason.
	NotFollowed []string
	cancel      context.CancelFunc
	done        chan error
	// beforeMarkerLSN runs between the marker's commit and the read of
	// the insert LSN (a test's unrelated WAL; nil otherwise).
	beforeMarkerLSN func()
}

// markerTable is the table Follow writes to learn that the sidecar has
// applied everything before it.
const markerTable = "sqldiff_marker"

// Follow creates a marker table in the database, starts a daemon
// following tables (and the marker) with its SQL port on a free loopback
// port, and returns once the copy is done and a change to the marker
// committed after it is durable. Stop ends the daemon.
func Follow(ctx context.Context, o FollowOptions) (*Sidecar, error) {
	if o.Ready <= 0 {
		o.Ready = 10 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if err := execAll(ctx, o.PGURL, "CREATE TABLE IF NOT EXISTS "+markerTable+" (id int PRIMARY KEY, n int)",
		"INSERT INTO "+markerTable+" VALUES (1, 0) ON CONFLICT DO NOTHING"); err != nil {
		return nil, fmt.Errorf("marker table: %w", err)
	}
	sqlAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(o.Dir, "sidecar-follow-")
	if err != nil {
		return nil, fmt.Errorf("scratch directory: %w", err)
	}
	tables := append([]string{"public." + markerTable}, o.Tables...)
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = fmt.Sprintf("%q", t)
	}
	file := filepath.Join(dir, "sidecar.yaml")
	// A slot and publication of its own: a daemon that failed leaves its
	// slot behind, and the next attempt must not take it for its own.
	name := "sqldiff_" + strings.ReplaceAll(strings.TrimPrefix(filepath.Base(dir), "sidecar-follow-"), "-", "_")
	body := fmt.Sprintf("postgres:\n  url: %q\ntables: [%s]\ndata_dir: %q\nslot: %s\npublication: %s\nlisten: 127.0.0.1:0\nsql:\n  listen: %q\n  max_connections: 20\n  statement_timeout: %s\n",
		o.PGURL, strings.Join(quoted, ", "), filepath.Join(dir, "data"), name, name, sqlAddr, o.StatementTimeout)
	if o.MemoryLimit != "" {
		body += fmt.Sprintf("memory:\n  limit: %q\n", o.MemoryLimit)
	}
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("write config: %w", err)
	}
	cfg, err := config.Load(config.LoadOptions{File: file, Environ: []string{}})
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	dctx, cancel := context.WithCancel(context.Background())
	s := &Sidecar{cancel: cancel, done: make(chan error, 1), SQLURL: "postgres://sqldiff@" + sqlAddr + "/sqldiff?sslmode=disable"}
	ready := make(chan string, 1)
	go func() {
		s.done <- daemon.Run(dctx, daemon.Options{Config: cfg, Logger: o.Logger, OnReady: func(a string) { ready <- a }})
	}()
	wctx, wcancel := context.WithTimeout(ctx, o.Ready)
	defer wcancel()
	select {
	case s.APIAddr = <-ready:
	case err := <-s.done:
		cancel()
		return nil, fmt.Errorf("daemon ended before it was ready: %w", err)
	case <-wctx.Done():
		s.Stop()
		return nil, fmt.Errorf("daemon not ready within %s", o.Ready)
	}
	if err := s.waitMarker(wctx, o.PGURL, o.WarmHead); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitMarker commits a change to the marker table and waits until the
// daemon streams and has made it durable; then the SQL port answers.
func (s *Sidecar) waitMarker(ctx context.Context, pgURL string, warmHead bool) error {
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	// The LSN waited for is read inside the marker's transaction, before
	// its commit: the commit ends past it, so applying the marker moves
	// the durable LSN past it, and every commit before the marker ends
	// before it. Read after the commit (as before), it could include WAL
	// written meanwhile by a transaction the stream does not deliver (a
	// closed session dropping its temporary tables, autovacuum): the
	// durable LSN, which only the mirror's commits move, then stopped at
	// the marker's commit just short of it and the wait hung with the
	// daemon caught up (join_hash.sql, twice in session 25: durable
	// 0/4EFD780, marker 0/4EFD8F8, slot confirmed past both).
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("marker: %w", err)
	}
	defer tx.Rollback(context.Background()) // after Commit: a no-op
	var n int64
	if err := tx.QueryRow(ctx, "UPDATE "+markerTable+" SET n = n + 1 RETURNING n").Scan(&n); err != nil {
		return fmt.Errorf("marker: %w", err)
	}
	if s.beforeMarkerLSN != nil {
		s.beforeMarkerLSN()
	}
	var lsnText string
	if err := tx.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsnText); err != nil {
		return fmt.Errorf("marker LSN: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("marker: %w", err)
	}
	marker, err := wal.ParseLSN(lsnText)
	if err != nil {
		return err
	}
	var last daemon.Status
	for {
		st, err := s.status(ctx)
		if err == nil {
			last = st
			if warmHead && st.Head != nil && st.Head.Phase == "failed" {
				return fmt.Errorf("the in-memory HEAD failed to load: %s", st.Head.Error)
			}
			d, err := wal.ParseLSN(st.DurableLSN)
			reached := err == nil && d >= marker
			if reached && st.Phase == "streaming" && (!warmHead || headHolds(st, marker)) {
				for _, nf := range st.NotFollowed {
					b, _ := json.Marshal(nf)
					s.NotFollowed = append(s.NotFollowed, string(b))
				}
				break
			}
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("daemon ended while catching up: %v (last status %+v)", err, last)
		case <-ctx.Done():
			return fmt.Errorf("durable LSN did not reach the marker %s: last status %+v", marker, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
	// The SQL port is bound before the pipeline starts; check it answers.
	for {
		c, err := pgx.Connect(ctx, s.SQLURL)
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("SQL port %s: %w", s.SQLURL, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// headHolds says whether the daemon's in-memory HEAD is loaded and at
// or past lsn.
func headHolds(st daemon.Status, lsn wal.LSN) bool {
	if st.Head == nil || st.Head.Phase != "ready" {
		return false
	}
	h, err := wal.ParseLSN(st.Head.LSN)
	return err == nil && h >= lsn
}

// status reads the daemon's /api/status.
func (s *Sidecar) status(ctx context.Context) (daemon.Status, error) {
	var st daemon.Status
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.APIAddr+"/api/status", nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// Stop ends the daemon and waits for it (up to two minutes).
func (s *Sidecar) Stop() error {
	s.cancel()
	select {
	case err := <-s.done:
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	case <-time.After(2 * time.Minute):
		return errors.New("daemon did not stop within 2 min")
	}
}

// freeAddr is a free loopback address (bound and released: a tiny race
// with other processes, as every "free port" helper has).
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("free port: %w", err)
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// execAll runs statements on a fresh connection to url, stopping at the
// first error.
func execAll(ctx context.Context, url string, stmts ...string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%.60s: %w", s, err)
		}
	}
	return nil
}

// Sessions opens (lazily) one session on PostgreSQL's database pgURL,
// with statement_timeout set to timeout, and one on the sidecar's SQL
// port (whose timeout is FollowOptions.StatementTimeout); close both.
func (s *Sidecar) Sessions(pgURL string, timeout time.Duration) (pg, sidecar *Session) {
	return &Session{URL: pgURL, Init: []string{fmt.Sprintf("SET statement_timeout = %d", timeout.Milliseconds())}}, &Session{URL: s.SQLURL}
}
