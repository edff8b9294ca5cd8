// Package client is how a command other than `run` reaches the mirror:
// through the running daemon's HTTP API when one answers at the configured
// address, or by opening the data directory itself when no daemon runs:
// read-only (shared, any number at once, never in a starting daemon's way)
// for commands that read, as the single writer for those that change it.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/store"
)

// ErrNoMirror means neither a daemon nor a mirror in the data directory
// could be found.
var ErrNoMirror = errors.New("no mirror")

// Conn is one of: a client of the running daemon (Daemon != nil), or the
// data directory opened by this process (Local != nil).
type Conn struct {
	Daemon *Daemon
	Local  *Local
}

// Local is the data directory opened in this process.
type Local struct {
	DB     *store.DB
	Mirror *mirror.Mirror
}

// ErrNotReady means no daemon answers yet, and the data directory cannot
// be read without one: a daemon holds it while it starts (its API is not
// bound yet), or the last daemon stopped without closing it and only the
// next start recovers it.
var ErrNotReady = errors.New("daemon not ready")

// Connect reaches the daemon at cfg.Listen, or opens cfg.DataDir as the
// single writer when no daemon answers: for commands that change the
// mirror (tag, branch, merge, revert, resync, gc). The caller must Close
// the Conn.
func Connect(ctx context.Context, cfg *config.Config, log *slog.Logger) (*Conn, error) {
	return connect(ctx, cfg, log, false)
}

// ConnectReadOnly is Connect for commands that only read (status, log,
// diff, get, scan, verify): with no daemon it opens cfg.DataDir read-only
// (store.Options.ReadOnly), so it never creates or writes the directory,
// never holds the writer's lock, and a daemon starting meanwhile waits for
// it instead of failing. A daemon starting or a directory left open by a
// killed daemon gives an error wrapping ErrNotReady.
func ConnectReadOnly(ctx context.Context, cfg *config.Config, log *slog.Logger) (*Conn, error) {
	return connect(ctx, cfg, log, true)
}

func connect(ctx context.Context, cfg *config.Config, log *slog.Logger, readOnly bool) (*Conn, error) {
	token, err := cfg.API.BearerToken()
	if err != nil {
		return nil, err
	}
	d := NewDaemon(cfg.Listen, token)
	if d.alive(ctx) {
		return &Conn{Daemon: d}, nil
	}
	if _, err := os.Stat(cfg.DataDir); os.IsNotExist(err) {
		return nil, fmt.Errorf("%w: no daemon answers at %s and data_dir %s does not exist (start `sidecar run`)", ErrNoMirror, cfg.Listen, cfg.DataDir)
	}
	db, err := store.Open(store.Options{Dir: cfg.DataDir, Logger: log, ReadOnly: readOnly})
	switch {
	case err == nil:
	case errors.Is(err, store.ErrLocked) && readOnly:
		return nil, fmt.Errorf("%w: a daemon holds the data directory %s but its API at %s does not answer yet (starting; if this lasts, check `listen` and api.token): %w", ErrNotReady, cfg.DataDir, cfg.Listen, err)
	case errors.Is(err, store.ErrLocked):
		return nil, fmt.Errorf("the data directory %s is in use by a running daemon, but its API at %s does not answer (check `listen` and api.token): %w", cfg.DataDir, cfg.Listen, err)
	case errors.Is(err, store.ErrNeedsRecovery):
		return nil, fmt.Errorf("%w: no daemon answers at %s, and the data directory %s was left open by a daemon that stopped without closing it; `sidecar run` recovers it when it starts: %w", ErrNotReady, cfg.Listen, cfg.DataDir, err)
	case errors.Is(err, store.ErrNoDir):
		return nil, fmt.Errorf("%w: data_dir %s holds no mirror yet and no daemon answers at %s (start `sidecar run`): %w", ErrNoMirror, cfg.DataDir, cfg.Listen, err)
	default:
		return nil, err
	}
	// An offline command's opening of the mirror is no news to its user:
	// its INFO lines ("mirror opened") go to DEBUG; warnings stay.
	mlog := log
	if mlog != nil {
		mlog = slog.New(infoAsDebug{log.Handler()})
	}
	m, err := mirror.Open(ctx, mirror.Options{DB: db, Logger: mlog})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open the mirror in %s: %w", cfg.DataDir, err)
	}
	if m.Durable() == 0 && len(m.Tables()) == 0 {
		m.Close(ctx)
		db.Close()
		return nil, fmt.Errorf("%w: data_dir %s holds no mirror yet and no daemon answers at %s (start `sidecar run`)", ErrNoMirror, cfg.DataDir, cfg.Listen)
	}
	return &Conn{Local: &Local{DB: db, Mirror: m}}, nil
}

// Close releases the data directory (local) or does nothing (daemon).
func (c *Conn) Close() error {
	if c.Local == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := c.Local.Mirror.Close(ctx)
	if cerr := c.Local.DB.Close(); err == nil {
		err = cerr
	}
	return err
}

// Daemon is a client of the daemon's JSON API.
type Daemon struct {
	base  string
	token string
	hc    *http.Client
}

// NewDaemon returns a client for the daemon listening on addr (host:port;
// an unspecified host is reached on loopback).
func NewDaemon(addr, token string) *Daemon {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && (host == "" || host == "0.0.0.0" || host == "::") {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	return &Daemon{base: "http://" + addr, token: token, hc: &http.Client{}}
}

// Base is the daemon's URL.
func (d *Daemon) Base() string { return d.base }

func (d *Daemon) alive(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// APIError is an error response of the API.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("daemon: %s (HTTP %d)", e.Message, e.Status)
}

// GetJSON GETs path with query and decodes the JSON response into out.
func (d *Daemon) GetJSON(ctx context.Context, path string, query url.Values, out any) error {
	resp, err := d.do(ctx, http.MethodGet, path, query, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("daemon %s: decode response: %w", path, err)
	}
	return nil
}

// PostJSON POSTs body as JSON and decodes the JSON response into out (nil
// discards it).
func (d *Daemon) PostJSON(ctx context.Context, path string, body, out any) error {
	resp, err := d.do(ctx, http.MethodPost, path, nil, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("daemon %s: decode response: %w", path, err)
	}
	return nil
}

// StreamJSON GETs path and calls fn for each JSON line of the response, as
// it arrives. An error object sent mid-stream ({"error": ...}) ends the
// stream with that error.
func (d *Daemon) StreamJSON(ctx context.Context, path string, query url.Values, fn func(json.RawMessage) error) error {
	return d.stream(ctx, http.MethodGet, path, query, nil, fn)
}

// PostStreamJSON POSTs body as JSON and reads the response as StreamJSON
// does (merge and revert stream their events).
func (d *Daemon) PostStreamJSON(ctx context.Context, path string, body any, fn func(json.RawMessage) error) error {
	return d.stream(ctx, http.MethodPost, path, nil, body, fn)
}

func (d *Daemon) stream(ctx context.Context, method, path string, query url.Values, body any, fn func(json.RawMessage) error) error {
	resp, err := d.do(ctx, method, path, query, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte(`{"error":`)) {
			var e struct{ Error string }
			if json.Unmarshal(line, &e) == nil && e.Error != "" {
				return &APIError{Status: resp.StatusCode, Message: e.Error}
			}
		}
		if err := fn(json.RawMessage(line)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("daemon %s: %w", path, err)
	}
	return nil
}

func (d *Daemon) do(ctx context.Context, method, path string, query url.Values, body any) (*http.Response, error) {
	u := d.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if d.token != "" {
		req.Header.Set("Authorization", "Bearer "+d.token)
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("daemon %s: %w", d.base, err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		var e struct{ Error string }
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		return nil, &APIError{Status: resp.StatusCode, Message: e.Error}
	}
	return resp, nil
}

// infoAsDebug is a slog handler that logs INFO records at DEBUG: the
// daemon's startup news, quiet when a one-shot command opens the mirror.
type infoAsDebug struct{ h slog.Handler }

func (q infoAsDebug) Enabled(ctx context.Context, l slog.Level) bool {
	if l == slog.LevelInfo {
		l = slog.LevelDebug
	}
	return q.h.Enabled(ctx, l)
}

func (q infoAsDebug) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo {
		r.Level = slog.LevelDebug
	}
	return q.h.Handle(ctx, r)
}

func (q infoAsDebug) WithAttrs(as []slog.Attr) slog.Handler { return infoAsDebug{q.h.WithAttrs(as)} }
func (q infoAsDebug) WithGroup(n string) slog.Handler       { return infoAsDebug{q.h.WithGroup(n)} }
