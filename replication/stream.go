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
	"github.com/jackc/pgx/v5/pgproto3"
)

// StreamConfig configures a [Streamer].
type StreamConfig struct {
	ConnString  string
	Slot        string
	Publication string
	Sink        Sink
	// System is the identity stored with the mirror; when set, every
	// connection checks it and a mismatch stops the stream with
	// [ErrSystemChanged].
	System SystemIdentity
	// CopiedAt drops changes already contained in re-copied tables; nil
	// drops nothing.
	CopiedAt *CopiedAt
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
}

// StreamStats is a snapshot of a Streamer's positions, for status output
// and metrics.
type StreamStats struct {
	Connected bool
	// Received is the end LSN of the last commit received (reported as write).
	Received LSN
	// Flushed is the last flush position sent to the server.
	Flushed LSN
	// Committed is the end LSN of the last transaction handed to the sink.
	Committed LSN
	// ServerWALEnd is the server's WAL end from the last keepalive.
	ServerWALEnd LSN
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
	lastCommitted LSN

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
		Connected: s.connected.Load(), Received: LSN(s.received.Load()), Flushed: LSN(s.flushed.Load()),
		Committed: LSN(s.committed.Load()), ServerWALEnd: LSN(s.serverWALEnd.Load()),
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
// slot ([ErrSlotLost]), another cluster or timeline ([ErrSystemChanged]),
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
		progressed, err := s.session(ctx, spool)
		s.connected.Store(false)
		if ctx.Err() != nil {
			return nil
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

// queue carries items from the reader to the apply loop, bounded in count
// (the channel) and in bytes (budget).
type queue struct {
	ch      chan item
	bytes   atomic.Int64
	budget  int64
	drained chan struct{} // signalled when bytes go down
}

func (q *queue) release(n int64) {
	q.bytes.Add(-n)
	select {
	case q.drained <- struct{}{}:
	default:
	}
}

// item is one message passed from the reader to the apply loop: decoded,
// or raw when it belongs in the spool.
type item struct {
	m   wireMsg
	raw []byte // set for in-stream changes, kept undecoded for the spool
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
			"proto_version '2'",
			"publication_names " + quoteLiteral(QuoteIdent(s.cfg.Publication)),
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

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := &queue{ch: make(chan item, s.cfg.QueueSize), budget: s.cfg.QueueBytes, drained: make(chan struct{}, 1)}
	r := &walReader{s: s, conn: conn, interval: interval, q: q,
		openStreams: map[uint32]struct{}{}, acked: start, lastCommitEnd: start}
	var wg sync.WaitGroup
	var readErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(q.ch)
		readErr = r.run(sctx)
	}()
	a := &applier{s: s, spool: spool, rels: map[uint32]*Relation{}, typeNames: typeNames}
	applyErr := a.run(sctx, q)
	cancel()
	wg.Wait()
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

// walReader owns the connection: it receives, decodes, answers keepalives and
// sends status updates, and never waits on the sink for longer than it
// takes to send a status update.
type walReader struct {
	s        *Streamer
	conn     *pgconn.PgConn
	interval time.Duration
	q        *queue

	inStream      bool
	inTxn         bool                // between Begin and Commit
	openStreams   map[uint32]struct{} // streamed transactions not yet committed or aborted
	lastCommitEnd LSN                 // end LSN of the last commit received
	walEnd        LSN                 // from the last keepalive
	acked         LSN                 // last flush sent: never goes backwards
	lastStatus    time.Time
}

// pollEvery is how often the reader looks at the durable LSN (to report
// progress promptly) when nothing arrives.
const pollEvery = 200 * time.Millisecond

// minStatusGap rate-limits status updates sent because the durable LSN
// moved (at tens of thousands of commits per second, one per commit would
// be pure overhead).
const minStatusGap = 50 * time.Millisecond

func (r *walReader) run(ctx context.Context) error {
	tick := time.NewTicker(min(pollEvery, r.interval))
	defer tick.Stop()
	if err := r.sendStatus(ctx); err != nil {
		return err
	}
	var deadline time.Time
	for {
		if err := r.maybeStatus(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A read deadline, renewed only once it has passed, wakes the
		// loop for status updates and cancellation; a per-receive context
		// would cost a timer per message. pgconn keeps the connection and
		// any partly read message across a timeout.
		if now := time.Now(); !now.Before(deadline) {
			deadline = now.Add(min(pollEvery, r.interval))
			if err := r.conn.Conn().SetReadDeadline(deadline); err != nil {
				return fmt.Errorf("set read deadline: %w", err)
			}
		}
		msg, err := r.conn.ReceiveMessage(context.Background())
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if pgconn.Timeout(err) {
				continue
			}
			return fmt.Errorf("receive: %w", err)
		}
		switch msg := msg.(type) {
		case *pgproto3.CopyData:
			if err := r.handle(ctx, msg.Data, tick); err != nil {
				return err
			}
		case *pgproto3.ErrorResponse:
			return r.s.classifyStartError(pgconn.ErrorResponseToPgError(msg))
		case *pgproto3.CopyDone:
			return errors.New("server ended the replication stream (CopyDone)")
		default:
			// Notices and parameter status messages carry nothing for us.
		}
	}
}

func (r *walReader) handle(ctx context.Context, data []byte, tick *time.Ticker) error {
	if len(data) == 0 {
		return fatal(errors.New("empty CopyData message"))
	}
	switch data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
		if err != nil {
			return fatal(fmt.Errorf("parse keepalive: %w", err))
		}
		r.s.keepalivesSeen.Add(1)
		r.walEnd = max(r.walEnd, LSN(ka.ServerWALEnd))
		r.s.serverWALEnd.Store(uint64(r.walEnd))
		if ka.ReplyRequested {
			return r.sendStatus(ctx)
		}
		return nil
	case pglogrepl.XLogDataByteID:
		xld, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return fatal(fmt.Errorf("parse XLogData: %w", err))
		}
		if len(xld.WALData) == 0 {
			return fatal(errors.New("XLogData without a message"))
		}
		// The receive buffer is reused: own the bytes. Values of the
		// decoded message alias this copy, nothing else.
		buf := append([]byte(nil), xld.WALData...)
		var it item
		if r.inStream && isStreamable(buf[0]) {
			it.raw = buf
		} else {
			m, err := decodeMessage(buf, false)
			if err != nil {
				return fatal(fmt.Errorf("at %s: %w", LSN(xld.WALStart), err))
			}
			r.track(m)
			it.m = m
		}
		return r.push(ctx, it, tick)
	default:
		return fatal(fmt.Errorf("unknown replication message %q", data[0]))
	}
}

// track follows transaction boundaries, for the idle acknowledgement.
func (r *walReader) track(m wireMsg) {
	switch m.typ {
	case 'B':
		r.inTxn = true
	case 'C':
		r.inTxn = false
		r.lastCommitEnd = max(r.lastCommitEnd, m.endLSN)
	case 'S':
		r.inStream = true
		r.openStreams[m.xid] = struct{}{}
	case 'E':
		r.inStream = false
	case 'c':
		delete(r.openStreams, m.xid)
		r.lastCommitEnd = max(r.lastCommitEnd, m.endLSN)
	case 'A':
		if m.xid == m.subxid {
			delete(r.openStreams, m.xid)
		}
	}
	r.s.received.Store(uint64(r.lastCommitEnd))
}

// push hands an item to the apply loop, sending status updates while the
// apply loop is busy so the walsender never times out.
func (r *walReader) push(ctx context.Context, it item, tick *time.Ticker) error {
	size := int64(len(it.raw) + it.m.size)
	for {
		if r.q.bytes.Load() > r.q.budget {
			// Over the byte budget: wait for the apply loop to drain,
			// still answering the server.
			select {
			case <-r.q.drained:
			case <-tick.C:
				if err := r.maybeStatus(ctx); err != nil {
					return err
				}
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		select {
		case r.q.ch <- it:
			r.q.bytes.Add(size)
			return nil
		case <-tick.C:
			if err := r.maybeStatus(ctx); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// maybeStatus sends a status update when the interval has passed or the
// acknowledgeable position moved.
func (r *walReader) maybeStatus(ctx context.Context) error {
	since := time.Since(r.lastStatus)
	if since >= r.interval || (since >= minStatusGap && r.flushable() > r.acked) {
		return r.sendStatus(ctx)
	}
	return nil
}

// flushable is what may be reported as flushed: the sink's durable LSN,
// or, when nothing received is unapplied (no open transaction or stream,
// every received commit durable), the server's WAL end from the last
// keepalive, so that an idle slot does not pin WAL.
func (r *walReader) flushable() LSN {
	durable := r.s.cfg.Sink.Durable()
	flush := durable
	caughtUp := durable >= LSN(r.s.committed.Load()) && max(durable, LSN(r.s.settled.Load())) >= r.lastCommitEnd
	if !r.inTxn && len(r.openStreams) == 0 && caughtUp && r.walEnd > flush {
		flush = r.walEnd
	}
	return max(flush, r.acked)
}

// sendStatus sends write = received, flush = apply = flushable, all three
// explicit (pglogrepl would copy write into a zero flush).
func (r *walReader) sendStatus(ctx context.Context) error {
	flush := r.flushable()
	write := max(r.lastCommitEnd, flush)
	if flush == 0 {
		write = 0
	}
	err := pglogrepl.SendStandbyStatusUpdate(ctx, r.conn, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: pglogrepl.LSN(write),
		WALFlushPosition: pglogrepl.LSN(flush),
		WALApplyPosition: pglogrepl.LSN(flush),
		ClientTime:       time.Now(),
		ReplyRequested:   false,
	})
	if err != nil {
		return fmt.Errorf("send standby status: %w", err)
	}
	r.acked = flush
	r.lastStatus = time.Now()
	r.s.flushed.Store(uint64(flush))
	r.s.statusSent.Add(1)
	return nil
}

// applier turns messages into sink calls. It runs on the session's
// goroutine; the relation cache is per connection (the server sends every
// relation again on a new connection).
//
// Begin is sent lazily, with the first change: a transaction with nothing
// to deliver (every change filtered by CopiedAt, or a streamed transaction
// that touched only unpublished tables: PostgreSQL streams those too) never
// reaches the sink; its end LSN is recorded as settled instead, so the
// idle acknowledgement still moves past it.
type applier struct {
	s         *Streamer
	spool     Spool
	rels      map[uint32]*Relation
	typeNames map[uint32]string

	cur       *TxnInfo // the transaction being delivered
	begun     bool     // Begin was sent for cur
	skipping  bool     // inside a non-streamed transaction that is already durable
	streamXid uint32   // top-level xid of the current stream block
}

// sinkErr marks errors from the sink: fatal.
func sinkErr(what string, err error) error {
	return fatal(fmt.Errorf("sink %s: %w", what, err))
}

func (a *applier) run(ctx context.Context, q *queue) (err error) {
	defer func() {
		if a.cur != nil && a.begun {
			// The connection ended inside a transaction: it will be sent
			// again from its Begin.
			info := *a.cur
			if aerr := a.s.cfg.Sink.Abort(context.WithoutCancel(ctx), info); aerr != nil && err == nil {
				err = sinkErr("abort", aerr)
			}
		}
		a.cur, a.begun = nil, false
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case it, ok := <-q.ch:
			if !ok {
				return nil
			}
			q.release(int64(len(it.raw) + it.m.size))
			if it.raw != nil {
				sub, err := streamXid(it.raw)
				if err != nil {
					return fatal(err)
				}
				if err := a.spool.Append(a.streamXid, sub, it.raw); err != nil {
					return fatal(fmt.Errorf("spool: %w", err))
				}
				continue
			}
			if err := a.apply(ctx, &it.m); err != nil {
				return err
			}
		}
	}
}

// skipBelow: a transaction whose commit record starts below this is
// already durable or already delivered. (CommitLSN < b is EndLSN <= b
// for b a record boundary, which durable and end LSNs are.)
func (a *applier) skipBelow() LSN {
	return max(a.s.cfg.Sink.Durable(), a.s.lastCommitted)
}

func (a *applier) apply(ctx context.Context, m *wireMsg) error {
	switch m.typ {
	case 'B':
		if a.cur != nil || a.skipping {
			return fatal(errors.New("protocol: Begin inside a transaction"))
		}
		if m.lsn < a.skipBelow() {
			a.skipping = true
			return nil
		}
		a.cur = &TxnInfo{Xid: m.xid, CommitLSN: m.lsn, CommitTime: m.time}
	case 'C':
		if a.skipping {
			a.skipping = false
			return nil
		}
		if a.cur == nil {
			return fatal(errors.New("protocol: Commit outside a transaction"))
		}
		a.cur.CommitLSN, a.cur.EndLSN, a.cur.CommitTime = m.lsn, m.endLSN, m.time
		return a.commit(ctx)
	case 'S':
		a.streamXid = m.xid
	case 'E', 'O':
	case 'A':
		if err := a.spool.Abort(m.xid, m.subxid); err != nil {
			return fatal(fmt.Errorf("spool: %w", err))
		}
	case 'c':
		return a.streamCommit(ctx, m)
	case 'I', 'U', 'D', 'T':
		if a.cur == nil && !a.skipping {
			return fatal(fmt.Errorf("protocol: change %q outside a transaction", m.typ))
		}
		return a.message(ctx, m, a.skipping)
	default:
		return a.message(ctx, m, a.skipping)
	}
	return nil
}

// commit ends a.cur: Commit if it was begun, settled otherwise.
func (a *applier) commit(ctx context.Context) error {
	info := *a.cur
	begun := a.begun
	a.cur, a.begun = nil, false
	if !begun {
		a.s.settled.Store(max(a.s.settled.Load(), uint64(info.EndLSN)))
		return nil
	}
	if err := a.s.cfg.Sink.Commit(ctx, info); err != nil {
		return sinkErr("commit", err)
	}
	a.s.lastCommitted = max(a.s.lastCommitted, info.EndLSN)
	a.s.committed.Store(uint64(a.s.lastCommitted))
	return nil
}

// streamCommit replays a streamed transaction from the spool.
func (a *applier) streamCommit(ctx context.Context, m *wireMsg) error {
	if a.cur != nil || a.skipping {
		return fatal(errors.New("protocol: Stream Commit inside a transaction"))
	}
	skip := m.lsn < a.skipBelow()
	a.cur = &TxnInfo{Xid: m.xid, CommitLSN: m.lsn, EndLSN: m.endLSN, CommitTime: m.time, Streamed: true}
	// Even a skipped transaction's Relation and Type messages are
	// replayed: the server now counts them as sent.
	err := a.spool.Replay(m.xid, func(raw []byte) error {
		msg, err := decodeMessage(append([]byte(nil), raw...), true)
		if err != nil {
			return fatal(fmt.Errorf("spooled message of xid %d: %w", m.xid, err))
		}
		return a.message(ctx, &msg, skip)
	})
	if err != nil {
		var f fatalError
		if !errors.As(err, &f) {
			err = fatal(fmt.Errorf("spool replay of xid %d: %w", m.xid, err))
		}
		return err
	}
	if skip {
		a.cur, a.begun = nil, false
		return nil
	}
	return a.commit(ctx)
}

// message handles Relation, Type and change messages of a.cur. skip drops
// changes (the transaction is already durable) but still records schema.
func (a *applier) message(ctx context.Context, m *wireMsg, skip bool) error {
	sink := a.s.cfg.Sink
	switch m.typ {
	case 'Y':
		a.typeNames[m.typOID] = m.typName
		return nil
	case 'R':
		rel := m.rel
		for i := range rel.Columns {
			rel.Columns[i].TypeName = a.typeName(rel.Columns[i].TypeOID)
		}
		a.rels[rel.OID] = rel
		if err := sink.Relation(ctx, rel); err != nil {
			return sinkErr("relation", err)
		}
		return nil
	case 'M':
		if m.flags&1 == 0 || skip {
			return nil // non-transactional messages belong to no transaction
		}
		if a.cur == nil {
			return fatal(errors.New("protocol: transactional message outside a transaction"))
		}
		return a.change(ctx, &Change{Kind: Message, Prefix: m.prefix, Content: m.content})
	}
	if skip {
		return nil
	}
	commit := a.cur.CommitLSN
	if m.typ == 'T' {
		c := &Change{Kind: Truncate, Cascade: m.flags&1 != 0, RestartIdentity: m.flags&2 != 0}
		for _, id := range m.relIDs {
			rel, err := a.rel(id)
			if err != nil {
				return err
			}
			if !a.s.cfg.CopiedAt.Skip(rel.QualifiedName(), commit) {
				c.Truncated = append(c.Truncated, rel)
			}
		}
		if len(c.Truncated) == 0 {
			return nil
		}
		return a.change(ctx, c)
	}
	rel, err := a.rel(m.relID)
	if err != nil {
		return err
	}
	if a.s.cfg.CopiedAt.Skip(rel.QualifiedName(), commit) {
		return nil
	}
	c := &Change{Relation: rel, New: m.new, Old: m.old}
	switch m.oldKind {
	case 'K':
		c.OldKind = OldKey
		// Columns outside the identity are sent as 'n' in a key tuple:
		// "not sent", not NULL (identity columns are never NULL).
		for i := range c.Old {
			if c.Old[i].Kind == Null {
				c.Old[i].Kind = Unchanged
			}
		}
	case 'O':
		c.OldKind = OldRow
	}
	switch m.typ {
	case 'I':
		c.Kind = Insert
	case 'U':
		c.Kind = Update
	case 'D':
		c.Kind = Delete
	default:
		return fatal(fmt.Errorf("protocol: unexpected message %q in a transaction", m.typ))
	}
	for _, tup := range [][]Value{c.New, c.Old} {
		if tup != nil && len(tup) != len(rel.Columns) {
			return fatal(fmt.Errorf("protocol: %s on %s has %d columns, its Relation has %d", c.Kind, rel.QualifiedName(), len(tup), len(rel.Columns)))
		}
	}
	return a.change(ctx, c)
}

// change delivers c, sending the transaction's Begin first if needed.
func (a *applier) change(ctx context.Context, c *Change) error {
	if !a.begun {
		if err := a.s.cfg.Sink.Begin(ctx, *a.cur); err != nil {
			return sinkErr("begin", err)
		}
		a.begun = true
	}
	if err := a.s.cfg.Sink.Change(ctx, c); err != nil {
		return sinkErr("change", err)
	}
	return nil
}

func (a *applier) rel(id uint32) (*Relation, error) {
	rel := a.rels[id]
	if rel == nil {
		return nil, fatal(fmt.Errorf("protocol: change for relation %d before its Relation message", id))
	}
	return rel, nil
}

// typeName names a column type as the copy does (pg_type.typname,
// schema-qualified outside pg_catalog): from a Type message or the
// catalog's built-in types.
func (a *applier) typeName(oid uint32) string {
	return a.typeNames[oid]
}

// builtinTypeNames reads the names of pg_catalog's types.
func builtinTypeNames(ctx context.Context, conn *pgconn.PgConn) (map[uint32]string, error) {
	rows, _, err := simpleQuery(ctx, conn, `SELECT oid::text, typname::text FROM pg_catalog.pg_type
		WHERE typnamespace = 'pg_catalog'::regnamespace`)
	if err != nil {
		return nil, fmt.Errorf("read built-in type names: %w", err)
	}
	m := make(map[uint32]string, len(rows))
	for _, r := range rows {
		oid, err := strconv.ParseUint(r[0], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("read built-in type names: %w", err)
		}
		m[uint32(oid)] = r[1]
	}
	return m, nil
}
