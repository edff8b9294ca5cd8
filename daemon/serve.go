package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/remote"
	"github.com/sidecar-dev/sidecar/server"
	"github.com/sidecar-dev/sidecar/store"
)

// ServeOptions configure Serve.
type ServeOptions struct {
	// Config gives data_dir (the follower's own copy), listen, api.* and
	// remote.endpoint/region/credentials; postgres.* is never used.
	Config *config.Config
	// Refresh is how often the manifest is read again (default 10 s).
	Refresh time.Duration
	Logger  *slog.Logger
	// OnReady, if set, is called with the API address the first time it
	// serves.
	OnReady func(addr string)
}

// Serve is `sidecar serve --remote`: a read-only follower of a remote
// history, with no PostgreSQL connection. It keeps data_dir level with the
// manifest (remote.Apply: new packs, then new segments; state in
// remote-follow.json) and serves log, diff, get, scan, agg and the rest of
// the read API from it. When a refresh finds a new manifest the API stops
// (requests in flight finish: server.ServeUntil), the directory is brought
// forward and the API starts again on the same listener (connections made
// meanwhile wait in its backlog), so a read always sees one manifest.
// It never writes the remote.
func Serve(ctx context.Context, o ServeOptions) error {
	cfg := o.Config
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Refresh <= 0 {
		o.Refresh = 10 * time.Second
	}
	log := o.Logger
	c, err := RemoteClient(cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("data_dir %s: %w", cfg.DataDir, err)
	}
	statePath := filepath.Join(cfg.DataDir, remote.FollowStateFile)
	st, err := remote.LoadFollowState(statePath)
	if err != nil {
		return err
	}
	if st.URL != "" && st.URL != c.Location().String() {
		return fmt.Errorf("data_dir %s follows %s, not %s: give the follower a data_dir of its own", cfg.DataDir, st.URL, c.Location())
	}
	token, err := cfg.API.BearerToken()
	if err != nil {
		return err
	}
	// One listener for every refresh (server.Options.Listener): the port
	// stays ours while the API is stopped.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	first := true
	for {
		m, etag, err := remote.ReadManifest(ctx, c)
		switch {
		case err != nil && first:
			return err
		case err != nil:
			log.Warn("reading the remote manifest failed; serving the last one", "err", err)
		case etag != st.ETag:
			rs, err := syncFollower(ctx, c, cfg, m, etag, &st, statePath)
			if err != nil {
				if first {
					return err
				}
				log.Warn("bringing the follower forward failed; serving the last manifest", "err", err)
			} else {
				log.Info("follower brought forward", "remote", c.Location().String(), "durable_lsn", rs.Durable, "segments", rs.Segments, "packs", rs.Packs, "bytes", rs.BytesFetched, "took", rs.Took)
			}
		}
		next, err := serveOnce(ctx, o, c, ln, addr, token, st.ETag, first)
		first = false
		if err != nil {
			if ctx.Err() != nil {
				// Stopped (SIGTERM) while between manifests: opening the
				// mirror saw the cancel. A shutdown, not a failure (it
				// exited 1, TestRemoteFollowerServe, 1 run in 30).
				return nil
			}
			return err
		}
		addr = next
		if ctx.Err() != nil {
			return nil
		}
	}
}

// syncFollower applies the manifest to data_dir and records the state.
func syncFollower(ctx context.Context, c *remote.Client, cfg *config.Config, m *remote.Manifest, etag string, st *remote.FollowState, statePath string) (remote.RestoreStats, error) {
	db, err := store.Open(store.Options{Dir: cfg.DataDir, MinFree: cfg.Storage.MinFreeBytes()})
	if err != nil {
		return remote.RestoreStats{}, err
	}
	if st.URL == "" {
		// Never applied here: the directory must not hold another mirror.
		holds, err := remote.HoldsMirror(db)
		if err == nil && holds {
			err = fmt.Errorf("data_dir %s holds a mirror that is not a follower's copy of %s: give the follower an empty data_dir of its own", cfg.DataDir, c.Location())
		}
		if err != nil {
			db.Close()
			return remote.RestoreStats{}, err
		}
	}
	next := *st
	next.Packs = map[string]bool{}
	for k, v := range st.Packs {
		next.Packs[k] = v
	}
	rs, err := remote.Apply(ctx, c, db, m, etag, &next)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return rs, fmt.Errorf("follow %s: %w", c.Location(), err)
	}
	if err := remote.SaveFollowState(statePath, next); err != nil {
		return rs, fmt.Errorf("follow %s: record the state: %w", c.Location(), err)
	}
	*st = next
	return rs, nil
}

// refreshGrace is how long a follower's refresh waits for the reads in
// flight on the manifest it leaves before it cuts them.
const refreshGrace = time.Minute

// serveOnce serves data_dir read-only until ctx ends or the manifest's
// ETag is no longer etag; it returns the address it listened on.
func serveOnce(ctx context.Context, o ServeOptions, c *remote.Client, ln net.Listener, addr, token, etag string, first bool) (string, error) {
	cfg, log := o.Config, o.Logger
	db, err := store.Open(store.Options{Dir: cfg.DataDir, Logger: log, ReadOnly: true})
	if err != nil {
		return addr, fmt.Errorf("open the follower's data_dir %s: %w", cfg.DataDir, err)
	}
	defer db.Close()
	m, err := mirror.Open(ctx, mirror.Options{DB: db, Logger: log})
	if err != nil {
		return addr, fmt.Errorf("open the follower's mirror: %w", err)
	}
	defer m.Close(context.Background())
	hist := history.New(db, m)
	srv, err := server.Listen(server.Options{Listener: ln, Token: token, Logger: log})
	if err != nil {
		return addr, err
	}
	server.RegisterHistory(srv, hist)
	server.RegisterQuery(srv, hist)
	srv.HandleAPI("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		server.WriteJSON(w, http.StatusOK, Status{Phase: "following " + c.Location().String(), DurableLSN: m.Durable().String(), Tables: []TableStatus{}})
	})
	if first {
		if o.OnReady != nil {
			o.OnReady(srv.Addr())
		}
		log.Info("sidecar ready", "listen", srv.Addr(), "mode", "read-only follower", "remote", c.Location().String(), "durable_lsn", m.Durable())
	} else {
		log.Debug("follower API serving again", "listen", srv.Addr(), "durable_lsn", m.Durable())
	}
	// Closing refresh stops the API without ending the reads in flight:
	// they finish on this manifest (ServeUntil), then it is closed. A
	// read has refreshGrace to finish (a 2.5 MB diff streamed at load 57
	// took more than the shutdown's 5 s); the API answers again once the
	// refresh is done.
	refresh := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- srv.ServeUntil(ctx, refresh, refreshGrace) }() // owned here: waited for below
	tick := time.NewTicker(o.Refresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
		case err := <-done:
			return srv.Addr(), err
		case <-tick.C:
			_, now, err := remote.ReadManifest(ctx, c)
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					log.Warn("reading the remote manifest failed; serving the last one", "err", err)
				}
				continue
			}
			if now == etag {
				continue
			}
		}
		if ctx.Err() == nil {
			close(refresh)
		}
		err := <-done
		// Reads still running past the shutdown's grace were cancelled
		// and their connections closed; the mirror and store they read
		// are closed when this returns, so wait for them to return.
		wctx, cancel := context.WithTimeout(context.Background(), refreshGrace)
		defer cancel()
		if werr := srv.WaitHandlers(wctx); werr != nil && err == nil {
			err = werr
		}
		return srv.Addr(), err
	}
}
