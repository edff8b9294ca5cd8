package bench

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/client"
	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// sidecarRun is one in-process `sidecar run` (daemon.Run) against the
// publisher. The caller must call stop.
type sidecarRun struct {
	cfg     *config.Config
	cancel  context.CancelFunc
	done    chan error // daemon.Run's result
	addr    string
	cl      *client.Daemon
	started time.Time // when Run was called
	ready   time.Time // when its listener was bound
}

// sidecarConfig writes and loads the configuration of a sidecar following
// t and marker into dataDir with its own slot.
func sidecarConfig(scratch, pubURL, slot, dataDir string) (*config.Config, error) {
	return sidecarConfigLimit(scratch, pubURL, slot, dataDir, "")
}

// sidecarConfigLimit is sidecarConfig with memory.limit set to limit
// (none when empty). The SQL port is off: no benchmark here reads it, and
// its default 7433 would collide with another sidecar or a parallel run.
func sidecarConfigLimit(scratch, pubURL, slot, dataDir, limit string) (*config.Config, error) {
	return sidecarConfigSQL(scratch, pubURL, slot, dataDir, limit, "")
}

// sidecarConfigSQL is sidecarConfigLimit with the SQL port listening on
// sqlAddr ("": off).
func sidecarConfigSQL(scratch, pubURL, slot, dataDir, limit, sqlAddr string) (*config.Config, error) {
	file := filepath.Join(scratch, slot+".yaml")
	body := fmt.Sprintf("postgres:\n  url: %s\npublication: %s\nslot: %s\ntables: [%s, %s]\ndata_dir: %s\nlisten: 127.0.0.1:0\nsql:\n  listen: %q\n",
		pubURL, replPub, slot, replTable, replMarker, dataDir, sqlAddr)
	if limit != "" {
		body += "memory:\n  limit: " + limit + "\n"
	}
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("write sidecar config: %w", err)
	}
	cfg, err := config.Load(config.LoadOptions{File: file, Environ: []string{}})
	if err != nil {
		return nil, fmt.Errorf("load sidecar config: %w", err)
	}
	return cfg, nil
}

// startSidecar runs the daemon in a goroutine and returns once its HTTP
// listener is bound. Its log goes to logPath.
func startSidecar(ctx context.Context, cfg *config.Config, logPath string) (*sidecarRun, error) {
	return startSidecarWith(ctx, cfg, logPath, nil)
}

// startSidecarWith is startSidecar with the daemon's options adjusted by
// opts (nil: none).
func startSidecarWith(ctx context.Context, cfg *config.Config, logPath string, opts func(*daemon.Options)) (*sidecarRun, error) {
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sidecar log: %w", err)
	}
	rctx, cancel := context.WithCancel(ctx)
	s := &sidecarRun{cfg: cfg, cancel: cancel, done: make(chan error, 1), started: time.Now()}
	readyc := make(chan string, 1)
	go func() {
		defer lf.Close()
		do := daemon.Options{
			Config:  cfg,
			Logger:  slog.New(slog.NewTextHandler(lf, &slog.HandlerOptions{Level: slog.LevelInfo})),
			OnReady: func(addr string) { readyc <- addr },
		}
		if opts != nil {
			opts(&do)
		}
		s.done <- daemon.Run(rctx, do)
	}()
	select {
	case addr := <-readyc:
		s.ready = time.Now()
		s.addr = addr
		s.cl = client.NewDaemon(addr, "")
		return s, nil
	case err := <-s.done:
		cancel()
		return nil, fmt.Errorf("sidecar did not start (log %s): %w", logPath, err)
	case <-ctx.Done():
		cancel()
		<-s.done
		return nil, ctx.Err()
	}
}

// stop shuts the daemon down cleanly (flush, sync, slot advanced) and
// returns its error, if any.
func (s *sidecarRun) stop() error {
	s.cancel()
	if err := <-s.done; err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("sidecar stopped with: %w", err)
	}
	return nil
}

// failed returns the daemon's error if it has already exited.
func (s *sidecarRun) failed() error {
	select {
	case err := <-s.done:
		s.done <- err // keep it for stop
		if err == nil {
			err = errors.New("exited")
		}
		return fmt.Errorf("sidecar: %w", err)
	default:
		return nil
	}
}

func (s *sidecarRun) status(ctx context.Context) (daemon.Status, error) {
	var st daemon.Status
	if err := s.cl.GetJSON(ctx, "/api/status", nil, &st); err != nil {
		return st, fmt.Errorf("sidecar status: %w", err)
	}
	return st, nil
}

// waitCopied polls the status until the daemon streams with every table
// ready, and returns when it saw that.
func (s *sidecarRun) waitCopied(ctx context.Context, timeout time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		if err := s.failed(); err != nil {
			return time.Time{}, err
		}
		st, err := s.status(ctx)
		if err == nil && st.Phase == "streaming" && len(st.Tables) == 2 {
			ok := true
			for _, t := range st.Tables {
				ok = ok && t.State == "ready"
			}
			if ok {
				return time.Now(), nil
			}
		}
		if err := sleepCtx(ctx, 5*time.Millisecond); err != nil {
			return time.Time{}, fmt.Errorf("sidecar copy not done: %w", err)
		}
	}
}

// waitMarker polls the status every pollEvery until the mirror's head
// (last applied commit) has a commit time at or after since, the start of
// the marker's transaction as PostgreSQL's now() gave it: with no other
// writer running, that commit is the marker's (or a later one). It
// returns when it saw it and the received LSN then (the marker's end LSN
// or later).
//
// Reads at HEAD through the API would see the marker row itself, but the
// daemon does not serve the history routes (server.RegisterHistory is not
// wired into daemon.Run at this revision); the checks read the row
// offline.
func (s *sidecarRun) waitMarker(ctx context.Context, since time.Time, timeout time.Duration) (time.Time, wal.LSN, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lastErr error
	for {
		if err := s.failed(); err != nil {
			return time.Time{}, 0, err
		}
		st, err := s.status(ctx)
		if err == nil && st.LastCommit != nil && !st.LastCommit.Before(since) {
			seen := time.Now()
			lsn, _ := wal.ParseLSN(st.ReceivedLSN)
			return seen, lsn, nil
		}
		if err != nil {
			lastErr = err
		}
		if err := sleepCtx(ctx, pollEvery); err != nil {
			return time.Time{}, 0, fmt.Errorf("sidecar never applied the commit started at %s (last error: %v): %w", since.Format(time.RFC3339Nano), lastErr, err)
		}
	}
}

// waitDurable polls the status until the durable LSN reaches lsn.
func (s *sidecarRun) waitDurable(ctx context.Context, lsn wal.LSN, timeout time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		st, err := s.status(ctx)
		if err == nil {
			if d, perr := wal.ParseLSN(st.DurableLSN); perr == nil && d >= lsn {
				return time.Now(), nil
			}
		}
		if err := sleepCtx(ctx, pollEvery); err != nil {
			return time.Time{}, fmt.Errorf("sidecar durable LSN never reached %s: %w", lsn, err)
		}
	}
}

// offlineChecksum opens a stopped sidecar's data directory and reads t
// at HEAD through the history service (the read path of `sidecar scan`),
// checksumming it the way tableChecksum does PostgreSQL's copy: every row
// read, not the tree's digests. It also returns the marker row's tag.
func offlineChecksum(ctx context.Context, dataDir string) (_ Checksum, marker string, err error) {
	db, err := store.Open(store.Options{Dir: dataDir})
	if err != nil {
		return Checksum{}, "", fmt.Errorf("open %s: %w", dataDir, err)
	}
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	m, err := mirror.Open(ctx, mirror.Options{DB: db})
	if err != nil {
		return Checksum{}, "", fmt.Errorf("open mirror in %s: %w", dataDir, err)
	}
	defer func() {
		if cerr := m.Close(ctx); cerr != nil && err == nil {
			err = cerr
		}
	}()
	svc := history.New(db, m)
	res, err := svc.Get(ctx, history.ReadRequest{Table: replMarker, PK: []string{"1"}})
	if err != nil {
		return Checksum{}, "", fmt.Errorf("mirror marker: %w", err)
	}
	if len(res.Rows) == 1 {
		if v, ok := res.Rows[0].Get("tag"); ok && v != nil {
			marker = *v
		}
	}
	cs := newChecksummer()
	var idx [4]int
	var line []byte
	err = svc.Scan(ctx, history.ReadRequest{Table: replTable}, func(h history.ReadHeader) error {
		for i, w := range []string{"id", "k", "v", "score"} {
			idx[i] = -1
			for j, c := range h.Columns {
				if c.Name == w {
					idx[i] = j
				}
			}
			if idx[i] < 0 {
				return fmt.Errorf("no column %s", w)
			}
		}
		return nil
	}, func(r *history.Row) error {
		var f [4]string
		for i, j := range idx {
			if j >= len(r.Values) || r.Values[j] == nil {
				return fmt.Errorf("row %v: NULL or missing column", r.Values)
			}
			f[i] = *r.Values[j]
		}
		score, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return fmt.Errorf("score %q: %w", f[3], err)
		}
		line = append(line[:0], f[0]...)
		line = append(line, ':')
		line = append(line, strings.TrimPrefix(f[1], `\x`)...)
		line = append(line, ':')
		line = append(line, f[2]...)
		line = append(line, ':')
		line = append(line, f[3]...)
		cs.add(line, score)
		return nil
	})
	if err != nil {
		return Checksum{}, "", fmt.Errorf("mirror scan: %w", err)
	}
	return cs.result(), marker, nil
}

// badgerCounters are Badger's process-wide write counters (expvar): the
// sidecar is the only Badger user of this process while a cell runs.
type badgerCounters struct {
	User       int64 `json:"write_bytes_user"`       // entries handed to Badger
	Vlog       int64 `json:"write_bytes_vlog"`       // value-log bytes
	L0         int64 `json:"write_bytes_l0"`         // memtable flushes
	Compaction int64 `json:"write_bytes_compaction"` // all levels
}

func readBadgerCounters() badgerCounters {
	intVar := func(name string) int64 {
		if v, ok := expvar.Get(name).(*expvar.Int); ok {
			return v.Value()
		}
		return 0
	}
	c := badgerCounters{
		User: intVar("badger_write_bytes_user"),
		Vlog: intVar("badger_write_bytes_vlog"),
		L0:   intVar("badger_write_bytes_l0"),
	}
	if m, ok := expvar.Get("badger_write_bytes_compaction").(*expvar.Map); ok {
		m.Do(func(kv expvar.KeyValue) {
			if v, ok := kv.Value.(*expvar.Int); ok {
				c.Compaction += v.Value()
			}
		})
	}
	return c
}

// Handed is what the sidecar gave Badger to write: write_bytes_user
// counts a value of at least the value threshold as its 12-byte pointer
// only, and such values (Prolly nodes) are counted by write_bytes_vlog.
func (c badgerCounters) Handed() int64 { return c.User + c.Vlog }

func (c badgerCounters) sub(o badgerCounters) badgerCounters {
	return badgerCounters{User: c.User - o.User, Vlog: c.Vlog - o.Vlog, L0: c.L0 - o.L0, Compaction: c.Compaction - o.Compaction}
}
