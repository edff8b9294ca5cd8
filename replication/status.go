// The status sender: standby status updates (the write, flush and apply
// positions the slot is acknowledged to) from their own goroutine.

package replication

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/wal"
)

// pollEvery is how often the status sender looks at the durable LSN (to
// report progress promptly) when nothing wakes it.
const pollEvery = 200 * time.Millisecond

// minStatusGap rate-limits status updates sent because the durable LSN
// moved (at tens of thousands of commits per second, one per commit would
// be pure overhead).
const minStatusGap = 50 * time.Millisecond

// statusSender owns the connection's writes while streaming: standby
// status updates at least every interval, soon after the durable LSN
// moves, and at once when a keepalive asks for a reply. It runs on its
// own goroutine and waits on nothing but its timer, the reader's wake-ups
// and the socket write, so neither the apply loop nor the reader can hold
// a status back. (The reader only reads the socket; pgconn's unbuffered
// CopyData send writes the net.Conn directly, without the reader's lock.)
// What it reads is atomic (the sink's durable LSN, the stream's
// positions) or guarded by mu, which the reader holds only to copy its
// state. Settling an idle slot ([wal.Settler]: a durable file write, a
// remote manifest) is I/O that can take seconds under load, so it runs on
// the sender's own settler goroutine; a status names only what was
// settled already (issue 21 item 8: the walsender timed out under load).
type statusSender struct {
	s        *Streamer
	conn     *pgconn.PgConn
	interval time.Duration
	wake     chan struct{}

	mu       sync.Mutex
	reader   readerState // guarded by mu
	replyNow bool        // guarded by mu

	acked      wal.LSN // last flush sent: never goes backwards
	lastStatus time.Time

	// settleWant is the highest LSN asked to be settled, settledTo the
	// highest one the sink settled (the settler goroutine's).
	settleWant atomic.Uint64
	settledTo  atomic.Uint64
	settleWake chan struct{}
}

func newStatusSender(s *Streamer, conn *pgconn.PgConn, interval time.Duration, start wal.LSN) *statusSender {
	return &statusSender{s: s, conn: conn, interval: interval, wake: make(chan struct{}, 1), settleWake: make(chan struct{}, 1),
		reader: readerState{quiet: true, lastCommitEnd: start}, acked: start}
}

// run sends a first status at once, then as due, until ctx ends (nil) or
// a send fails. It returns at once then, whatever the settler is doing:
// the session (the settler's owner) learns of a lost connection without
// waiting for a blocked Settle.
func (t *statusSender) run(ctx context.Context) error {
	tick := time.NewTicker(min(pollEvery, t.interval))
	defer tick.Stop()
	if err := t.send(ctx, t.flushable()); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		case <-t.wake:
		}
		if err := t.maybeSend(ctx); err != nil {
			return err
		}
	}
}

// maybeSend sends a status update when asked for one, when the interval
// has passed, or when the acknowledgeable position moved.
func (t *statusSender) maybeSend(ctx context.Context) error {
	t.mu.Lock()
	reply := t.replyNow
	t.replyNow = false
	t.mu.Unlock()
	since := time.Since(t.lastStatus)
	if !reply && since < t.interval && since < minStatusGap {
		return nil
	}
	// One flushable per decision: on an idle slot it settles (a write of
	// settled-lsn), and the status sent must name what was settled.
	flush := t.flushable()
	if reply || since >= t.interval || flush > t.acked {
		return t.send(ctx, flush)
	}
	return nil
}

// flushable is what may be reported as flushed: the sink's durable LSN,
// or, when nothing received is unapplied (no open transaction or stream,
// every received commit durable), the server's WAL end from the last
// keepalive, so that an idle slot does not pin WAL.
func (t *statusSender) flushable() wal.LSN {
	t.mu.Lock()
	rs := t.reader
	t.mu.Unlock()
	durable := t.s.cfg.Sink.Durable()
	if lim := t.s.cfg.FlushLimit; lim != nil {
		durable = min(durable, lim())
	}
	flush := durable
	caughtUp := durable >= wal.LSN(t.s.committed.Load()) && max(durable, wal.LSN(t.s.settled.Load())) >= rs.lastCommitEnd
	_, settler := t.s.cfg.Sink.(wal.Settler)
	if rs.quiet && caughtUp && rs.walEnd > flush {
		if !settler {
			flush = rs.walEnd
		} else {
			t.requestSettle(rs.walEnd)
		}
	}
	if settler {
		// Settled: nothing received up to it is left for the sink.
		flush = max(flush, wal.LSN(t.settledTo.Load()))
	}
	return max(flush, t.acked)
}

// requestSettle asks the settler goroutine to settle lsn.
func (t *statusSender) requestSettle(lsn wal.LSN) {
	for {
		cur := t.settleWant.Load()
		if uint64(lsn) <= cur || t.settleWant.CompareAndSwap(cur, uint64(lsn)) {
			break
		}
	}
	select {
	case t.settleWake <- struct{}{}:
	default:
	}
}

// settle runs the sink's Settle for what requestSettle asked, off the
// status goroutine, until ctx ends (the session runs it on a goroutine of
// its own, for a sink that is a [wal.Settler]); a success wakes the sender
// to report it. A refusal (remote.sync_ack: not in the manifest yet) is
// asked again by the sender's next look.
func (t *statusSender) settle(ctx context.Context) {
	st, ok := t.s.cfg.Sink.(wal.Settler)
	if !ok {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.settleWake:
		}
		if t.settleOnce(st) {
			select {
			case t.wake <- struct{}{}:
			default:
			}
		}
	}
}

// settleOnce settles what was asked last, if it is not settled yet, and
// reports whether it moved the settled LSN.
func (t *statusSender) settleOnce(st wal.Settler) bool {
	want := t.settleWant.Load()
	if want <= t.settledTo.Load() {
		return false
	}
	if err := st.Settle(wal.LSN(want)); err != nil {
		return false
	}
	t.settledTo.Store(want)
	return true
}

// send sends write = received, flush = apply = flush (what flushable
// returned), all three explicit (pglogrepl would copy write into a zero
// flush).
func (t *statusSender) send(ctx context.Context, flush wal.LSN) error {
	t.mu.Lock()
	received := t.reader.lastCommitEnd
	t.mu.Unlock()
	write := max(received, flush)
	if flush == 0 {
		write = 0
	}
	// A write the server does not take within the interval would not
	// save the connection anyway; bounding it keeps the session's end
	// (which waits for this goroutine) bounded too.
	if err := t.conn.Conn().SetWriteDeadline(time.Now().Add(max(t.interval, time.Second))); err != nil {
		return fmt.Errorf("send standby status: %w", err)
	}
	err := pglogrepl.SendStandbyStatusUpdate(ctx, t.conn, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: pglogrepl.LSN(write),
		WALFlushPosition: pglogrepl.LSN(flush),
		WALApplyPosition: pglogrepl.LSN(flush),
		ClientTime:       time.Now(),
		ReplyRequested:   false,
	})
	if err != nil {
		return fmt.Errorf("send standby status: %w", err)
	}
	t.acked = flush
	t.lastStatus = time.Now()
	t.s.flushed.Store(uint64(flush))
	t.s.statusSent.Add(1)
	return nil
}
