package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-isatty"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/metrics"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/server"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/verify"
)

// Status is what `sidecar status` and GET /api/status report. Its JSON
// shape is a documented contract (README, "HTTP API").
type Status struct {
	Phase       string        `json:"phase"` // starting, copying, streaming, resyncing, stopping
	Connected   bool          `json:"connected"`
	Slot        SlotStatus    `json:"slot"`
	ReceivedLSN string        `json:"received_lsn"`
	DurableLSN  string        `json:"durable_lsn"`
	ServerLSN   string        `json:"server_lsn,omitempty"`
	LagBytes    int64         `json:"lag_bytes"`
	LagSeconds  float64       `json:"lag_seconds"`
	LastCommit  *time.Time    `json:"last_commit_time,omitempty"`
	Copy        []CopyStatus  `json:"copy,omitempty"`
	Tables      []TableStatus `json:"tables"`
	NotFollowed []NotFollowed `json:"not_followed,omitempty"`
	LastError   string        `json:"last_error,omitempty"`
	Reconnects  int64         `json:"reconnects"`
	Commits     int64         `json:"commits_applied"`
	// Verify is the last periodic verification (verify.interval > 0).
	Verify *verify.Last `json:"verify,omitempty"`
	// History is what retention keeps and the last garbage collection.
	History *HistoryStatus `json:"history,omitempty"`
}

// HistoryStatus is what retention keeps and the last collection.
type HistoryStatus struct {
	Retain string `json:"retain"` // history.retain; "0s": every version
	// OldestRetainedLSN is the oldest version kept from retention's
	// horizon on (absent: nothing expired yet); tagged versions below it
	// are kept too.
	OldestRetainedLSN string    `json:"oldest_retained_lsn,omitempty"`
	LastGC            *GCStatus `json:"last_gc,omitempty"`
}

// GCStatus is one garbage collection.
type GCStatus struct {
	At              time.Time `json:"at"`
	ExpiredVersions int       `json:"expired_versions"`
	LiveNodes       int       `json:"live_nodes"`
	DeletedNodes    int64     `json:"deleted_nodes"`
	BytesBefore     int64     `json:"bytes_before"`
	BytesAfter      int64     `json:"bytes_after"`
	Seconds         float64   `json:"seconds"`
	Error           string    `json:"error,omitempty"`
}

// SlotStatus is the slot's row in pg_replication_slots, as last polled.
type SlotStatus struct {
	Name           string `json:"name"`
	WALStatus      string `json:"wal_status,omitempty"`
	ConfirmedFlush string `json:"confirmed_flush_lsn,omitempty"`
	Active         bool   `json:"active"`
}

// CopyStatus is one table's copy progress.
type CopyStatus struct {
	Table      string  `json:"table"`
	Rows       int64   `json:"rows"`
	RowsPerSec float64 `json:"rows_per_second"`
	RangesDone int     `json:"ranges_done"`
	Ranges     int     `json:"ranges"`
	Done       bool    `json:"done"`
	ETASeconds float64 `json:"eta_seconds,omitempty"`
}

// TableStatus is one followed table.
type TableStatus struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	Rows     uint64 `json:"rows"`
	CopiedAt string `json:"copied_at_lsn,omitempty"`
}

// NotFollowed is a table the configuration names (or "*" found) that is not
// followed, and why.
type NotFollowed struct {
	Table  string `json:"table"`
	Reason string `json:"reason"`
}

func (d *daemon) status() Status {
	st := Status{Phase: d.getPhase(), Slot: SlotStatus{Name: d.cfg.Slot}, Tables: []TableStatus{}}
	d.mu.Lock()
	s := d.streamer
	st.LastError = d.lastErr
	if d.slotInfo.Exists {
		st.Slot.WALStatus = d.slotInfo.WALStatus
		st.Slot.ConfirmedFlush = d.slotInfo.ConfirmedFlush.String()
		st.Slot.Active = d.slotInfo.Active
	}
	if d.m != nil {
		st.History = &HistoryStatus{Retain: d.cfg.History.Retain.String(), LastGC: d.lastGC}
		if h, _ := d.m.Horizon(); h != 0 {
			st.History.OldestRetainedLSN = h.String()
		}
	}
	for t, why := range d.notFollow {
		st.NotFollowed = append(st.NotFollowed, NotFollowed{Table: t, Reason: why})
	}
	for _, p := range d.progress {
		cs := CopyStatus{Table: p.Table, Rows: p.Rows, RangesDone: p.RangesDone, Ranges: p.Ranges, Done: p.Done}
		if sec := p.Elapsed.Seconds(); sec > 0 {
			cs.RowsPerSec = float64(p.Rows) / sec
			if p.RangesDone > 0 && !p.Done {
				cs.ETASeconds = sec * float64(p.Ranges-p.RangesDone) / float64(p.RangesDone)
			}
		}
		st.Copy = append(st.Copy, cs)
	}
	d.mu.Unlock()
	slices.SortFunc(st.Copy, func(a, b CopyStatus) int { return strings.Compare(a.Table, b.Table) })
	slices.SortFunc(st.NotFollowed, func(a, b NotFollowed) int { return strings.Compare(a.Table, b.Table) })
	if s != nil {
		ss := s.Stats()
		st.Connected = ss.Connected
		st.ReceivedLSN = ss.Received.String()
		st.Reconnects = ss.Reconnects
	}
	if d.m != nil {
		st.DurableLSN = d.m.Durable().String()
		head := d.m.Head()
		if !head.CommitTime.IsZero() {
			t := head.CommitTime
			st.LastCommit = &t
		}
		st.Commits = d.m.Stats().Commits
		for _, t := range d.m.Tables() {
			ts := TableStatus{Name: t.Name, State: t.State.String(), Rows: t.Rows}
			if t.CopiedAt > 0 {
				ts.CopiedAt = t.CopiedAt.String()
			}
			st.Tables = append(st.Tables, ts)
		}
	}
	if w := replication.LSN(d.serverWAL.Load()); w > 0 {
		st.ServerLSN = w.String()
	}
	if d.verifier != nil {
		st.Verify = d.verifier.Last()
	}
	st.LagBytes = d.lagBytes.Load()
	st.LagSeconds = d.lagSeconds()
	return st
}

// lagSeconds is how stale the mirror is: 0 when caught up, otherwise now
// minus the commit time of the last applied transaction. Caught up means
// everything received is durable and the slot has been acknowledged up to
// where the server's WAL was one poll ago (the streamer acknowledges the
// keepalive's WAL end once idle, so WAL of unpublished tables or other
// databases does not count as lag).
func (d *daemon) lagSeconds() float64 {
	if d.m == nil {
		return 0
	}
	d.mu.Lock()
	s := d.streamer
	d.mu.Unlock()
	durable := d.m.Durable()
	prev := replication.LSN(d.prevServerWAL.Load())
	caughtUp := prev > 0 && durable >= prev
	if s != nil && prev > 0 {
		ss := s.Stats()
		caughtUp = caughtUp || (durable >= ss.Received && ss.Flushed >= prev)
	}
	if caughtUp {
		return 0
	}
	head := d.m.Head()
	if head.CommitTime.IsZero() {
		return 0
	}
	return max(0, time.Since(head.CommitTime).Seconds())
}

// ready answers /readyz: connected, not copying, lag under ready.max_lag.
func (d *daemon) ready(context.Context) (bool, string) {
	phase := d.getPhase()
	if phase != "streaming" {
		return false, "phase is " + phase
	}
	d.mu.Lock()
	s := d.streamer
	d.mu.Unlock()
	if s == nil || !s.Stats().Connected {
		return false, "not connected to PostgreSQL"
	}
	if lag := d.lagSeconds(); lag > d.cfg.Ready.MaxLag.Seconds() {
		return false, fmt.Sprintf("lag %.1fs exceeds ready.max_lag %s", lag, d.cfg.Ready.MaxLag)
	}
	return true, ""
}

func (d *daemon) routes(srv *server.Server) {
	srv.HandleAPI("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		server.WriteJSON(w, http.StatusOK, d.status())
	})
	server.RegisterHistory(srv, d.hist)
	srv.HandleAPI("POST /api/resync", d.handleResync)
	srv.HandleAPI("POST /api/gc", d.handleGC)
}

// handleGC runs a collection now, history.retain applied: POST /api/gc
// (no body) answers snapshot.GCStats, what `sidecar gc` prints.
func (d *daemon) handleGC(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	st, err := d.hist.GC(r.Context(), d.gcRequest())
	d.recordGC(st, err, time.Since(start))
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, history.ErrReadersBusy) {
			status = http.StatusServiceUnavailable // try again once the reads end
		}
		server.WriteError(w, status, fmt.Errorf("gc: %w", err))
		return
	}
	server.WriteJSON(w, http.StatusOK, st)
}

// recordGC publishes a collection in metrics and status.
func (d *daemon) recordGC(st snapshot.GCStats, err error, took time.Duration) {
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
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		server.WriteError(w, http.StatusBadRequest, fmt.Errorf("resync: bad request body: %w", err))
		return
	}
	tables, err := MarkResync(r.Context(), d.m, req.Tables)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, errUnknownTable) {
			status = http.StatusNotFound
		}
		server.WriteError(w, status, err)
		return
	}
	server.WriteJSON(w, http.StatusAccepted, ResyncRequest{Tables: tables})
}

var errUnknownTable = errors.New("not a followed table")

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
				return nil, err
			}
			name = t.String() // canonical, as the mirror keys tables
		}
		if !known[name] {
			return nil, fmt.Errorf("resync %s: %w (followed: %s)", n, errUnknownTable, strings.Join(all, ", "))
		}
		if err := m.MarkResync(ctx, name, "requested by sidecar resync"); err != nil {
			return nil, fmt.Errorf("resync %s: %w", name, err)
		}
		out = append(out, name)
	}
	return out, nil
}

// monitor polls the server's WAL position and the slot for lag and
// status, and keeps the metrics current.
func (d *daemon) monitor(ctx context.Context) error {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for {
		if conn == nil {
			c, err := replication.Connect(ctx, d.conn)
			if err == nil {
				conn = c
			}
		}
		if conn != nil {
			if err := d.pollServer(ctx, conn); err != nil {
				conn.Close(context.Background())
				conn = nil
			}
		}
		d.updateMetrics()
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

func (d *daemon) pollServer(ctx context.Context, conn *pgx.Conn) error {
	var wal, confirmed, walStatus *string
	var active *bool
	err := conn.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text, s.confirmed_flush_lsn::text, s.wal_status, s.active
		FROM (SELECT 1) AS one LEFT JOIN pg_replication_slots s ON s.slot_name = $1`, d.cfg.Slot).Scan(&wal, &confirmed, &walStatus, &active)
	if err != nil {
		return err
	}
	w, _ := replication.ParseLSN(deref(wal))
	d.prevServerWAL.Store(d.serverWAL.Swap(uint64(w)))
	// Lag in bytes: the server's position minus the slot's confirmed
	// position (WAL the server keeps and must still decode for us), or
	// minus the durable LSN when the slot is not there.
	behind := d.m.Durable()
	d.mu.Lock()
	d.slotInfo.Exists = walStatus != nil
	if walStatus != nil {
		d.slotInfo.WALStatus = *walStatus
		d.slotInfo.Active = active != nil && *active
		d.slotInfo.ConfirmedFlush, _ = replication.ParseLSN(deref(confirmed))
		behind = d.slotInfo.ConfirmedFlush
	}
	d.mu.Unlock()
	if w > behind && behind > 0 {
		d.lagBytes.Store(int64(w - behind))
	} else {
		d.lagBytes.Store(0)
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (d *daemon) updateMetrics() {
	d.met.LagBytes.Set(float64(d.lagBytes.Load()))
	d.met.LagSeconds.Set(d.lagSeconds())
	if d.m != nil {
		d.met.DurableLSN.Set(float64(d.m.Durable()))
	}
	d.mu.Lock()
	s := d.streamer
	d.mu.Unlock()
	if s == nil {
		return
	}
	ss := s.Stats()
	d.met.ReceivedLSN.Set(float64(ss.Received))
	if ss.Connected {
		d.met.Connected.Set(1)
		if n := d.errCount.Swap(0); n > 0 {
			d.log.Info("replication recovered", "after_errors", n)
		}
	} else {
		d.met.Connected.Set(0)
	}
}

// acknowledge moves the slot's confirmed position to exactly the durable
// LSN after the stream stopped, so a clean shutdown leaves nothing
// acknowledged that is not durable and nothing durable unacknowledged.
func (d *daemon) acknowledge(ctx context.Context) error {
	durable := d.m.Durable()
	if durable == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := replication.Connect(ctx, d.conn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for {
		var confirmed *string
		err := conn.QueryRow(ctx, `SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1`, d.cfg.Slot).Scan(&confirmed)
		if err != nil {
			return fmt.Errorf("read slot %q: %w", d.cfg.Slot, err)
		}
		if c, _ := replication.ParseLSN(deref(confirmed)); c >= durable {
			return nil
		}
		_, err = conn.Exec(ctx, `SELECT pg_replication_slot_advance($1, $2::text::pg_lsn)`, d.cfg.Slot, durable.String())
		if err == nil {
			d.log.Info("slot advanced to the durable LSN", "slot", d.cfg.Slot, "lsn", durable)
			return nil
		}
		// The walsender of the stream that just closed may still hold
		// the slot for a moment.
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "55006" {
			return fmt.Errorf("advance slot %q to %s: %w", d.cfg.Slot, durable, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("advance slot %q: still in use: %w", d.cfg.Slot, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// copyProgress records progress for status and metrics, and renders it:
// a line per table on a terminal, periodic log lines otherwise.
func (d *daemon) copyProgress(p replication.CopyProgress) {
	d.mu.Lock()
	if d.progress == nil {
		d.progress = map[string]replication.CopyProgress{}
	}
	prev, seen := d.progress[p.Table]
	d.progress[p.Table] = p
	done := 0
	for _, q := range d.progress {
		if q.Done {
			done++
		}
	}
	total := len(d.progress)
	d.mu.Unlock()
	d.met.CopyRows.WithLabelValues(p.Table).Set(float64(p.Rows))
	d.met.CopyTablesDone.Set(float64(done))
	d.met.CopyTables.Set(float64(max(total, len(d.tables))))

	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.Rows) / s
	}
	eta := ""
	if p.RangesDone > 0 && !p.Done {
		eta = (time.Duration(float64(p.Elapsed) * float64(p.Ranges-p.RangesDone) / float64(p.RangesDone))).Round(time.Second).String()
	}
	if w := d.opts.Progress; w != nil && isTerminal(w) {
		state := "copying"
		if p.Done {
			state = "done"
		}
		fmt.Fprintf(w, "\r%-40s %12d rows %10.0f rows/s  ranges %d/%d  %s %s\x1b[K", p.Table, p.Rows, rate, p.RangesDone, p.Ranges, state, eta)
		if p.Done {
			fmt.Fprintln(w)
		}
		return
	}
	if p.Done || !seen || p.Elapsed-prev.Elapsed >= d.opts.ProgressEvery || time.Duration(p.Elapsed)/d.opts.ProgressEvery != time.Duration(prev.Elapsed)/d.opts.ProgressEvery {
		d.log.Info("copy progress", "table", p.Table, "rows", p.Rows, "rows_per_s", int64(rate), "ranges_done", p.RangesDone, "ranges", p.Ranges, "done", p.Done, "eta", eta)
	}
}

func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && isatty.IsTerminal(f.Fd())
}

// OfflineStatus describes a mirror whose daemon is not running (phase
// "stopped"); the slot and the lag are read from PostgreSQL when it
// answers, otherwise LastError says why they are missing.
func OfflineStatus(ctx context.Context, cfg *config.Config, m *mirror.Mirror) Status {
	d := &daemon{cfg: cfg, conn: cfg.Postgres.ConnString(), m: m, met: metrics.New(), phase: "stopped"}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := replication.Connect(cctx, d.conn)
	if err == nil {
		err = d.pollServer(cctx, conn)
		conn.Close(context.Background())
	}
	if err != nil {
		d.lastErr = "cannot reach PostgreSQL: " + err.Error()
	}
	return d.status()
}
