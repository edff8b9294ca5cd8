// The reader: receives and decodes the stream and queues it for the
// applier, bounded in count and bytes.

package replication

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/wal"
)

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

// walReader reads the connection: it receives and decodes messages and
// queues them for the apply loop. It never writes: standby status
// updates, keepalive replies included, go out from the [statusSender]'s
// goroutine, so nothing the reader waits on (a full queue behind a
// stalled sink, a huge message, a read path holding the CPU) can delay
// them past wal_sender_timeout.
type walReader struct {
	s    *Streamer
	conn *pgconn.PgConn
	q    *queue
	st   *statusSender

	inStream      bool
	inTxn         bool                // between Begin and Commit
	openStreams   map[uint32]struct{} // streamed transactions not yet committed or aborted
	lastCommitEnd wal.LSN             // end LSN of the last commit received
	walEnd        wal.LSN             // from the last keepalive

	// stall, when set (tests), runs before each message is handled: a
	// reader held up on the read path.
	stall func()
}

// readerState is what the status sender needs of the reader, published
// at message boundaries so the two goroutines see one consistent state.
type readerState struct {
	quiet         bool // no open transaction or stream
	lastCommitEnd wal.LSN
	walEnd        wal.LSN
}

func (r *walReader) run(ctx context.Context) error {
	var deadline time.Time
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// A read deadline, renewed only once it has passed, wakes the
		// loop for cancellation; a per-receive context would cost a
		// timer per message. pgconn keeps the connection and any partly
		// read message across a timeout.
		if now := time.Now(); !now.Before(deadline) {
			deadline = now.Add(pollEvery)
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
		if r.stall != nil {
			r.stall()
		}
		switch msg := msg.(type) {
		case *pgproto3.CopyData:
			if err := r.handle(ctx, msg.Data); err != nil {
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

// publish hands the reader's state to the status sender and wakes it
// (replyNow: the server asked for a reply).
func (r *walReader) publish(replyNow bool) {
	r.st.mu.Lock()
	r.st.reader = readerState{quiet: !r.inTxn && len(r.openStreams) == 0, lastCommitEnd: r.lastCommitEnd, walEnd: r.walEnd}
	if replyNow {
		r.st.replyNow = true
	}
	r.st.mu.Unlock()
	select {
	case r.st.wake <- struct{}{}:
	default:
	}
}

func (r *walReader) handle(ctx context.Context, data []byte) error {
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
		r.walEnd = max(r.walEnd, wal.LSN(ka.ServerWALEnd))
		r.s.serverWALEnd.Store(uint64(r.walEnd))
		r.publish(ka.ReplyRequested)
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
				return fatal(fmt.Errorf("at %s: %w", wal.LSN(xld.WALStart), err))
			}
			r.track(m)
			it.m = m
		}
		if err := r.push(ctx, it); err != nil {
			return err
		}
		r.publish(false)
		return nil
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

// push hands an item to the apply loop, waiting while the queue is full
// (by count or bytes); the status sender answers the server meanwhile.
func (r *walReader) push(ctx context.Context, it item) error {
	size := int64(len(it.raw) + it.m.size)
	for r.q.bytes.Load() > r.q.budget {
		select {
		case <-r.q.drained:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	select {
	case r.q.ch <- it:
		r.q.bytes.Add(size)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
