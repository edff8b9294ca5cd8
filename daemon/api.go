// The HTTP API's routes, its write endpoints (POST /api/gc, POST
// /api/resync) and the requests behind them, which `sidecar gc` and
// `sidecar resync` share.

package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/server"
)

func (d *daemon) routes(srv *server.Server) {
	srv.HandleAPI("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		server.WriteJSON(w, http.StatusOK, d.status())
	})
	server.RegisterHistory(srv, d.hist)
	server.RegisterQuery(srv, d.hist)
	srv.HandleAPI("POST /api/resync", d.handleResync)
	srv.HandleAPI("POST /api/gc", d.handleGC)
}

// handleGC runs a collection now, history.retain applied: POST /api/gc
// (no body) answers refs.GCStats, what `sidecar gc` prints.
func (d *daemon) handleGC(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	st, err := d.hist.GC(r.Context(), d.gcRequest())
	d.recordGC(st, err, time.Since(start))
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, history.ErrReadersBusy) || errors.Is(err, mirror.ErrCopyBuilding) {
			status = http.StatusServiceUnavailable // try again once the reads or the copy's build end
		}
		server.WriteError(w, status, fmt.Errorf("gc: %w", err))
		return
	}
	server.WriteJSON(w, http.StatusOK, st)
}

// recordGC publishes a collection in metrics and status.
func (d *daemon) recordGC(st refs.GCStats, err error, took time.Duration) {
	g := &GCStatus{At: time.Now().UTC(), ExpiredVersions: st.Expired.Versions, LiveNodes: st.Live, DeletedNodes: st.Deleted,
		BytesBefore: st.BytesBefore, BytesAfter: st.BytesAfter, Seconds: took.Seconds()}
	if err != nil {
		g.Error = err.Error()
		d.met.GCRuns.WithLabelValues("error").Inc()
	} else {
		d.met.GCRuns.WithLabelValues("ok").Inc()
		d.met.GCDeletedNodes.Add(float64(st.Deleted))
		d.met.GCExpiredVersions.Add(float64(st.Expired.Versions))
		d.met.GCLiveNodes.Set(float64(st.Live))
		d.met.DataDirBytes.Set(float64(st.BytesAfter))
	}
	h, _ := d.m.Horizon()
	d.met.HistoryHorizonLSN.Set(float64(h))
	d.mu.Lock()
	d.lastGC = g
	d.mu.Unlock()
}

// gcRequest is a collection with history.retain applied as of now.
func (d *daemon) gcRequest() history.GCRequest {
	return GCRequest(d.cfg, time.Now())
}

// GCRequest is the collection `sidecar gc` and the daemon run: versions
// older than history.retain before now expire (none when it is 0), the
// data directory's size is reported and the value log compacted.
func GCRequest(cfg *config.Config, now time.Time) history.GCRequest {
	req := history.GCRequest{Dir: cfg.DataDir, ValueLogGC: true, CompactMinDeleted: history.OnlineCompactMinDeleted}
	if cfg.History.Retain > 0 {
		req.ExpireBefore = now.Add(-cfg.History.Retain)
	}
	return req
}

// ResyncRequest is the body of POST /api/resync; no tables means all.
type ResyncRequest struct {
	Tables []string `json:"tables"`
}

// handleResync marks tables for a copy at a new exact LSN; the follow loop
// runs it within a second while streaming goes on (their changes are held
// meanwhile). Answers 202 with the tables marked.
func (d *daemon) handleResync(w http.ResponseWriter, r *http.Request) {
	var req ResyncRequest
	if err := server.DecodeJSON(r, &req); err != nil {
		server.WriteError(w, server.StatusOf(err, http.StatusBadRequest), fmt.Errorf("resync: %w", err))
		return
	}
	tables, err := MarkResync(r.Context(), d.m, req.Tables)
	if err != nil {
		status := http.StatusInternalServerError
		switch {
		case errors.Is(err, mirror.ErrUnknownTable):
			status = http.StatusNotFound
		case errors.Is(err, config.ErrBadTableName):
			status = http.StatusBadRequest
		}
		server.WriteError(w, status, err)
		return
	}
	server.WriteJSON(w, http.StatusAccepted, ResyncRequest{Tables: tables})
}

// MarkResync puts tables (all when none are named) in state
// resync_needed, so they are copied again at a new exact LSN: by the
// running daemon within a second, or by the next `sidecar run`. Names are
// the mirror's keys as status lists them, or names as configuration takes
// them (a bare name is in public, unquoted parts fold to lower case).
func MarkResync(ctx context.Context, m *mirror.Mirror, names []string) ([]string, error) {
	known := map[string]bool{}
	var all []string
	for _, t := range m.Tables() {
		known[t.Name] = true
		all = append(all, t.Name)
	}
	if len(names) == 0 {
		names = all
	}
	var out []string
	for _, n := range names {
		name := n // a key as status lists it, even one a parse would not give back
		if !known[name] {
			t, err := config.ParseTable(n)
			if err != nil {
				return nil, fmt.Errorf("resync %s: %w", server.Quote(n), err)
			}
			name = t.String() // canonical, as the mirror keys tables
		}
		if !known[name] {
			return nil, fmt.Errorf("resync %s: %w (followed: %s)", server.Quote(n), mirror.ErrUnknownTable, strings.Join(all, ", "))
		}
		if err := m.MarkResync(ctx, name, "requested by sidecar resync"); err != nil {
			return nil, fmt.Errorf("resync %s: %w", name, err)
		}
		out = append(out, name)
	}
	return out, nil
}
