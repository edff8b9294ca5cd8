// The Streamer: its configuration, the reconnect loop and one replication
// session (connect, identify, check the slot, START_REPLICATION, then the
// reader, the status sender and the applier on their own goroutines).

package replication

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/wal"
)

// StreamConfig configures a [Streamer].
type StreamConfig struct {
	ConnString  string
	Slot        string
	Publication string
	Sink        wal.Sink
	// System is the identity stored with the mirror; when set, every
	// connection checks it and a mismatch stops the stream with
	// [wal.ErrSystemChanged].
	System wal.SystemIdentity
	// CopiedAt drops changes already contained in re-copied tables; nil
	// drops nothing.
	CopiedAt *wal.CopiedAt
	// Spool holds streamed in-progress transactions; nil means a
	// [DiskSpool] under SpoolDir (the system temporary directory when "").
	Spool    Spool
	SpoolDir string
	// StatusInterval is the longest time between two standby status
	// updates (default 10 s); it is lowered to a quarter of the server's
	// wal_sender_timeout.
	StatusInterval time.Duration
	// MinBackoff and MaxBackoff bound the capped exponential delay between
	// reconnects (defaults 250 ms and 30 s).
	MinBackoff, MaxBackoff time.Duration
	// OnError, if set, sees every error that ends a connection and is
	// retried, with the delay before the next attempt. Fatal errors are
	// returned by Run instead.
	OnError func(err error, retryIn time.Duration)
	// QueueSize is the number of decoded messages buffered between the
	// socket reader and the sink (default 4096), and QueueBytes their
	// total size (default 64 MiB), whichever is reached first: memory
	// stays bounded whatever the row size.
	QueueSize  int
	QueueBytes int64
	Logger     *slog.Logger
	// FlushLimit, if set, caps the flush LSN reported to the server below
	// the sink's durable LSN (remote.sync_ack: the remote-durable LSN).
	FlushLimit func() wal.LSN

	// readerStall, when set (tests), runs in the reader before each
	// message: a read path that holds the reader up.
	readerStall func()
}

// StreamStats is a snapshot of a Streamer's positions, for status output
// and metrics.
type StreamStats struct {
	Connected bool
	// Received is the end LSN of the last commit received (reported as write).
	Received wal.LSN
	// Flushed is the last flush position sent to the server.
	Flushed wal.LSN
	// Committed is the end LSN of the last transaction handed to the sink.
	Committed wal.LSN
	// Settled is the end LSN of the last received transaction that needed
	// no apply (no change for the sink: PostgreSQL 14's pgoutput sends
	// BEGIN/COMMIT for transactions on unpublished tables too).
	Settled wal.LSN
	// ServerWALEnd is the server's WAL end from the last keepalive.
	ServerWALEnd wal.LSN
	// Reconnects counts reconnections; FailingFor the connection errors
	// since replication last started (0 while healthy).
	Reconnects     int64
	FailingFor     int64
	StatusSent     int64
	KeepalivesSeen int64
}

// Streamer follows the slot and feeds the sink. Create one with
// [NewStreamer] and call Run once.
type Streamer struct {
	cfg StreamConfig
	log *slog.Logger

	// lastCommitted is the end LSN of the last transaction handed to the
	// sink in this process. With Durable it bounds what is skipped after
	// a reconnect: a transaction delivered but not yet durable is not
	// delivered twice. Only the apply goroutine touches it.
	lastCommitted wal.LSN

	connected      atomic.Bool
	received       atomic.Uint64
	flushed        atomic.Uint64
	committed      atomic.Uint64
	settled        atomic.Uint64 // end LSN of the last transaction with nothing to deliver
	serverWALEnd   atomic.Uint64
	reconnects     atomic.Int64
	failures       atomic.Int64 // connection errors since replication last started
	statusSent     atomic.Int64
	keepalivesSeen atomic.Int64

	restart restartState // restart.go
}

// NewStreamer validates cfg.
func NewStreamer(cfg StreamConfig) (*Streamer, error) {
	if err := ValidateSlotName(cfg.Slot); err != nil {
		return nil, err
	}
	if err := ValidatePublicationName(cfg.Publication); err != nil {
		return nil, err
	}
	if cfg.Sink == nil {
		return nil, errors.New("stream: no sink")
	}
	if cfg.StatusInterval <= 0 {
		cfg.StatusInterval = 10 * time.Second
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 250 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(30*time.Second, cfg.MinBackoff)
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 4096
	}
	if cfg.QueueBytes <= 0 {
		cfg.QueueBytes = 64 << 20
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Streamer{cfg: cfg, log: log.With("slot", cfg.Slot)}, nil
}

// Stats returns the current positions. Safe for concurrent use.
func (s *Streamer) Stats() StreamStats {
	return StreamStats{
		Connected: s.connected.Load(), Received: wal.LSN(s.received.Load()), Flushed: wal.LSN(s.flushed.Load()),
		Committed: wal.LSN(s.committed.Load()), Settled: wal.LSN(s.settled.Load()), ServerWALEnd: wal.LSN(s.serverWALEnd.Load()),
		Reconnects: s.reconnects.Load(), FailingFor: s.failures.Load(), StatusSent: s.statusSent.Load(), KeepalivesSeen: s.keepalivesSeen.Load(),
	}
}

// fatalError marks errors that reconnecting cannot fix.
type fatalError struct{ err error }

func (f fatalError) Error() string { return f.err.Error() }

func (f fatalError) Unwrap() error { return f.err }

func fatal(err error) error {
	if err == nil {
		return nil
	}
	return fatalError{err}
}

// Run streams until ctx ends (it then returns nil) or a fatal error: a lost
// slot ([ErrSlotLost]), another cluster or timeline ([wal.ErrSystemChanged]),
// a missing publication, an undecodable message, or an error from the
// sink. Connection errors are retried with capped exponential backoff and
// reported to OnError; PostgreSQL restarts are survived. Every goroutine
// Run starts has ended when it returns.
func (s *Streamer) Run(ctx context.Context) error {
	spool := s.cfg.Spool
	if spool == nil {
		ds, err := NewDiskSpool(s.cfg.SpoolDir)
		if err != nil {
			return fmt.Errorf("stream: %w", err)
		}
		defer ds.Close()
		spool = ds
	}
	backoff := s.cfg.MinBackoff
	for {
		sctx, done := s.restart.begin(ctx) // restart.go
		progressed, err := s.session(sctx, spool)
		restarted := s.restart.end(done)
		s.connected.Store(false)
		if ctx.Err() != nil {
			return nil
		}
		if restarted {
			s.log.Info("replication connection restarted on request; reconnecting")
			s.reconnects.Add(1)
			continue
		}
		var f fatalError
		if errors.As(err, &f) {
			return fmt.Errorf("stream slot %q: %w", s.cfg.Slot, f.err)
		}
		if progressed {
			backoff = s.cfg.MinBackoff
		}
		s.failures.Add(1)
		if s.cfg.OnError != nil {
			// The caller reports (and rate-limits) retried errors.
			s.cfg.OnError(err, backoff)
			s.log.Debug("replication connection ended; reconnecting", "err", err, "retry_in", backoff)
		} else {
			s.log.Warn("replication connection ended; reconnecting", "err", err, "retry_in", backoff)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		backoff = min(2*backoff, s.cfg.MaxBackoff)
		s.reconnects.Add(1)
	}
}

// session runs one replication connection. progressed reports whether
// replication started (so the backoff can be reset).
func (s *Streamer) session(ctx context.Context, spool Spool) (progressed bool, err error) {
	conn, err := ConnectReplication(ctx, s.cfg.ConnString)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "28") || pgErr.Code == "3D000" || pgErr.Code == "42501") {
			// Bad credentials, no such database, no REPLICATION privilege:
			// configuration, not a passing outage.
			return false, fatal(err)
		}
		return false, err
	}
	defer closeConn(conn)
	sys, err := IdentifySystem(ctx, conn)
	if err != nil {
		return false, err
	}
	if err := sys.Check(s.cfg.System); err != nil {
		return false, fatal(err)
	}
	slot, err := SlotStatus(ctx, conn, s.cfg.Slot)
	if err != nil {
		return false, err
	}
	if err := checkSlotUsable(slot); err != nil {
		return false, fatal(err)
	}
	// pgoutput announces non-built-in types with Type messages; the names
	// of built-in ones come from the catalog, as the copy's do.
	typeNames, err := builtinTypeNames(ctx, conn)
	if err != nil {
		return false, err
	}
	interval, err := s.statusInterval(ctx, conn)
	if err != nil {
		return false, err
	}
	start := s.cfg.Sink.Durable()
	if start == 0 {
		// 0/0 would mean "wherever the slot is", which silently skips
		// whatever the slot acknowledged but the mirror does not have.
		return false, fatal(errors.New("the sink reports durable LSN 0/0: store the slot's consistent point (ExportedSnapshot.LSN) with the copied tables before streaming"))
	}
	s.log.Info("starting replication", "from", start, "slot_confirmed_flush", slot.ConfirmedFlush,
		"slot_restart_lsn", slot.RestartLSN, "wal_status", slot.WALStatus, "status_interval", interval)
	if start > slot.ConfirmedFlush && slot.ConfirmedFlush != 0 {
		// The server would skip what lies between; that is only right if
		// it is durable, which is what Durable says. Log it loudly anyway.
		s.log.Warn("resuming ahead of the slot's confirmed_flush_lsn", "from", start, "confirmed_flush", slot.ConfirmedFlush)
	}
	err = pglogrepl.StartReplication(ctx, conn, s.cfg.Slot, pglogrepl.LSN(start), pglogrepl.StartReplicationOptions{
		PluginArgs: []string{
			"proto_version '" + strconv.Itoa(ProtocolVersion) + "'",
			"publication_names " + quoteLiteral(wal.QuoteIdent(s.cfg.Publication)),
			"messages 'true'",
			"streaming 'true'",
		},
	})
	if err != nil {
		return false, s.classifyStartError(err)
	}
	s.connected.Store(true)
	if n := s.failures.Swap(0); n > 0 {
		s.log.Info("replication recovered", "after_errors", n, "from", start)
	}
	// Partial streams of the previous connection are sent again from
	// their first segment.
	if err := spool.Reset(); err != nil {
		return true, fatal(err)
	}
	pending := pendingSink(s.cfg.Sink) // pending.go: nil when the sink has none
	if pending != nil {
		pending.StreamReset()
		defer pending.StreamReset() // what this connection applied ahead is sent again
	}

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := &queue{ch: make(chan item, s.cfg.QueueSize), budget: s.cfg.QueueBytes, drained: make(chan struct{}, 1)}
	st := newStatusSender(s, conn, interval, start)
	r := &walReader{s: s, conn: conn, q: q, st: st,
		openStreams: map[uint32]struct{}{}, lastCommitEnd: start, stall: s.cfg.readerStall}
	var wg sync.WaitGroup
	var readErr, statusErr error
	wg.Add(3)
	go func() {
		defer wg.Done()
		st.settle(sctx)
	}()
	go func() {
		defer wg.Done()
		defer close(q.ch)
		readErr = r.run(sctx)
	}()
	go func() {
		defer wg.Done()
		if statusErr = st.run(sctx); statusErr != nil {
			// The connection is gone: say so now (the apply loop may be
			// busy for a while yet) and end the reader and the apply loop.
			s.connected.Store(false)
			s.log.Warn("replication connection lost: a standby status could not be sent; ending the session", "err", statusErr)
			cancel()
		}
	}()
	a := &applier{s: s, spool: spool, rels: map[uint32]*wal.Relation{}, typeNames: typeNames, pending: pending}
	applyErr := a.run(sctx, q)
	cancel()
	wg.Wait()
	if statusErr != nil && applyErr == nil && ctx.Err() == nil {
		readErr = statusErr
	}
	if ctx.Err() != nil && applyErr == nil && errors.Is(readErr, context.Canceled) {
		// A shutdown: say goodbye so the slot is free when Run returns.
		if err := endStream(conn); err != nil {
			s.log.Debug("could not end the replication stream cleanly; closing the connection", "err", err)
		}
	}
	if applyErr != nil {
		return true, applyErr
	}
	if readErr == nil {
		readErr = errors.New("replication stream ended")
	}
	return true, readErr
}

// statusInterval is StatusInterval, shortened to a quarter of the
// server's wal_sender_timeout. A server that refuses the SHOW leaves
// StatusInterval; any other failure (the connection broke, ctx ended)
// ends the session: pgx is then closing the connection in the
// background, and writing START_REPLICATION to it anyway raced with that
// close (CI's race detector caught it on a shutdown).
func (s *Streamer) statusInterval(ctx context.Context, conn *pgconn.PgConn) (time.Duration, error) {
	interval := s.cfg.StatusInterval
	rows, _, err := simpleQuery(ctx, conn, "SHOW wal_sender_timeout")
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr):
		s.log.Warn("cannot read wal_sender_timeout; keeping the configured status interval", "err", err, "status_interval", interval)
		return interval, nil
	case err != nil:
		return 0, fmt.Errorf("show wal_sender_timeout: %w", err)
	}
	if len(rows) == 1 {
		if d, ok := parsePGDuration(rows[0][0]); ok && d > 0 {
			interval = min(interval, d/4)
		}
	}
	return interval, nil
}

// endStream ends a replication stream the reader has stopped reading:
// CopyDone, then the server's answer up to ReadyForQuery. The walsender
// releases the slot before it answers, so the slot is free for the next
// consumer (a restart, an offline verify's peek, --resync dropping it)
// once endStream returns; closing the connection alone leaves it active
// until the walsender notices, a moment later. Bounded by closeTimeout;
// changes the server still sends meanwhile are dropped (they were not
// applied, so they are sent again).
func endStream(conn *pgconn.PgConn) error {
	nc := conn.Conn()
	if err := nc.SetDeadline(time.Now().Add(closeTimeout)); err != nil {
		return fmt.Errorf("end stream: %w", err)
	}
	defer nc.SetDeadline(time.Time{})
	if _, err := pglogrepl.SendStandbyCopyDone(context.Background(), conn); err != nil {
		return fmt.Errorf("end stream: %w", err)
	}
	return nil
}

// classifyStartError turns START_REPLICATION failures that reconnecting
// cannot fix into fatal errors.
func (s *Streamer) classifyStartError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.Contains(pgErr.Message, "can no longer get changes") ||
			strings.Contains(pgErr.Message, "has been invalidated"):
			return fatal(&SlotLostError{Slot: s.cfg.Slot, Reason: pgErr.Message})
		case pgErr.Code == "42704": // undefined_object: slot or publication
			return fatal(fmt.Errorf("START_REPLICATION: %w", err))
		case pgErr.Code == "55006": // object_in_use: another consumer holds the slot
			return fmt.Errorf("START_REPLICATION: slot %q is in use by another process (a second sidecar?): %w", s.cfg.Slot, err)
		}
	}
	return fmt.Errorf("START_REPLICATION: %w", err)
}

// parsePGDuration parses a time GUC as SHOW prints it ("60s", "1min", "500ms").
func parsePGDuration(s string) (time.Duration, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil {
		return 0, false
	}
	unit := map[string]time.Duration{"": time.Millisecond, "ms": time.Millisecond, "s": time.Second,
		"min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := unit[strings.TrimSpace(s[i:])]
	return time.Duration(n) * u, ok
}
