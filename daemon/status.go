// The status report: what `sidecar status`, GET /api/status and /readyz
// answer, for a running daemon and for a stopped one.

package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/metrics"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/remote"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/verify"
	"github.com/sidecar-dev/sidecar/wal"
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
	// Remote is the upload to object storage (remote.upload).
	Remote *remote.Status `json:"remote,omitempty"`
	// Head is the in-memory HEAD's loading (absent: not started yet).
	Head *HeadStatus `json:"head,omitempty"`
	// Memory is the memory budget, its parts and their use (absent for
	// a stopped daemon).
	Memory *MemoryStatus `json:"memory,omitempty"`
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
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
	// Bytes is the COPY text received so far.
	Bytes int64 `json:"bytes"`
	// EstimatedRows is the planner's estimate (pg_class.reltuples in the
	// copy's snapshot) the ETA counts down from; 0 when never analyzed.
	EstimatedRows int64   `json:"estimated_rows"`
	RowsPerSec    float64 `json:"rows_per_second"`
	RangesDone    int     `json:"ranges_done"`
	Ranges        int     `json:"ranges"`
	Done          bool    `json:"done"`
	ETASeconds    float64 `json:"eta_seconds,omitempty"`
}

// TableStatus is one followed table.
type TableStatus struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	Rows     uint64 `json:"rows"`
	CopiedAt string `json:"copied_at_lsn,omitempty"`
	// HeldUntil: a resync's copy is built and held until the stream
	// reaches this LSN (the copy's), where it lands; the state stays
	// resync_needed meanwhile.
	HeldUntil string `json:"copy_held_until_lsn,omitempty"`
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
	s := d.streamer()
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
	st.Copy = d.copyStatusLocked()
	d.mu.Unlock()
	slices.SortFunc(st.Copy, func(a, b CopyStatus) int { return strings.Compare(a.Table, b.Table) })
	slices.SortFunc(st.NotFollowed, func(a, b NotFollowed) int { return strings.Compare(a.Table, b.Table) })
	if s != nil {
		ss := s.Stats()
		st.Connected = ss.Connected
		st.ReceivedLSN = ss.Received.String()
		st.Reconnects = ss.Reconnects
	}
	st.Remote = d.remoteStatus()
	if d.head != nil {
		st.Head = d.head.status()
	}
	st.Memory = d.memoryStatus()
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
			if d.isDropped(t.Name) {
				ts.State = "dropped" // in PostgreSQL; its history stays readable
			}
			if t.CopiedAt > 0 {
				ts.CopiedAt = t.CopiedAt.String()
			}
			if t.HeldUntil > 0 {
				ts.HeldUntil = t.HeldUntil.String()
			}
			st.Tables = append(st.Tables, ts)
		}
	}
	if w := wal.LSN(d.serverWAL.Load()); w > 0 {
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
	s := d.streamer()
	d.mu.Unlock()
	durable := d.m.Durable()
	prev := wal.LSN(d.prevServerWAL.Load())
	caughtUp := prev > 0 && durable >= prev
	if s != nil && prev > 0 {
		ss := s.Stats()
		// Nothing received is unapplied (transactions with no change
		// for the sink count as applied once settled, as the status
		// sender counts them) and the slot is acknowledged past the
		// server's WAL of the previous poll.
		applied := durable >= ss.Committed && max(durable, ss.Settled) >= ss.Received
		caughtUp = caughtUp || (applied && ss.Flushed >= prev)
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
	s := d.streamer()
	d.mu.Unlock()
	if s == nil || !s.Stats().Connected {
		return false, "not connected to PostgreSQL"
	}
	if lag := d.lagSeconds(); lag > d.cfg.Ready.MaxLag.Seconds() {
		return false, fmt.Sprintf("lag %.1fs exceeds ready.max_lag %s", lag, d.cfg.Ready.MaxLag)
	}
	return true, ""
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

// copyStatusLocked is the copy progress of every table, unsorted. d.mu
// must be held.
func (d *daemon) copyStatusLocked() []CopyStatus {
	var out []CopyStatus
	for _, p := range d.progress {
		cs := CopyStatus{Table: p.Table, Rows: p.Rows, Bytes: p.Bytes, EstimatedRows: p.EstimatedRows, RangesDone: p.RangesDone, Ranges: p.Ranges, Done: p.Done}
		if sec := p.Elapsed.Seconds(); sec > 0 {
			cs.RowsPerSec = float64(p.Rows) / sec
			if left, ok := d.lastETA(p.Table); ok && !p.Done {
				cs.ETASeconds = left.Seconds()
			}
		}
		out = append(out, cs)
	}
	return out
}
