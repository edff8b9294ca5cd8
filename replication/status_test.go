package replication

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestStatusWhileReaderStalls: the reader is held up (as by a read path
// that takes the CPU or a huge message) for longer than
// wal_sender_timeout (4s here) in the middle of a transaction. Status
// updates go out from their own goroutine meanwhile, so the walsender
// keeps the connection (issue 16 item 7: a full /api/scan once got the
// walsender terminated for 60 s without a reply).
func TestStatusWhileReaderStalls(t *testing.T) {
	if testing.Short() {
		t.Skip("stalls 6s")
	}
	h := newHarness(t, []string{"public.k"}, "CREATE TABLE k (id int PRIMARY KEY)")
	var once sync.Once
	stalled := make(chan struct{})
	var sentBefore int64
	h.start(func(c *StreamConfig) {
		c.readerStall = func() {
			once.Do(func() {
				sentBefore = h.st.Stats().StatusSent
				time.Sleep(6 * time.Second)
				close(stalled)
			})
		}
	})
	mustExec(t, h.conn, "INSERT INTO k SELECT generate_series(1, 100)")
	select {
	case <-stalled:
	case <-time.After(60 * time.Second):
		t.Fatal("the reader never received a message")
	}
	mustExec(t, h.conn, "INSERT INTO k VALUES (101)")
	h.sync()
	st := h.st.Stats()
	h.stop()
	if errs := h.errorsSeen(); len(errs) > 0 || st.Reconnects > 0 {
		t.Fatalf("connection dropped while the reader was stalled (%d reconnects): %v", st.Reconnects, errs)
	}
	if n := st.StatusSent - sentBefore; n < 4 {
		t.Fatalf("only %d status updates sent during and after a 6s reader stall", n)
	}
	h.checkTable("k", []string{"id"})
}

// stallSink is a memSink whose apply stalls (Change blocks while
// stallApply is set, until applyOpen is closed) and whose Settle (an
// idle slot's durable record, a file fsync in the daemon) blocks until
// settleOpen is closed: the disk and the apply path of a loaded host.
type stallSink struct {
	*memSink
	stallApply atomic.Bool
	applyOpen  chan struct{}
	settleOpen chan struct{}
	settles    atomic.Int64
	changes    atomic.Int64
}

func (s *stallSink) Change(ctx context.Context, c *wal.Change) error {
	s.changes.Add(1)
	if s.stallApply.Load() {
		<-s.applyOpen
	}
	return s.memSink.Change(ctx, c)
}

func (s *stallSink) Settle(wal.LSN) error {
	s.settles.Add(1)
	<-s.settleOpen
	return nil
}

// TestStatusUnderLoad: with every CPU busy (spinning goroutines), the
// sink's Settle blocked (a slow fsync of the settled LSN on an idle slot)
// and then the apply stalled in the middle of a transaction, standby
// statuses still reach the walsender at the interval: each stall lasts
// until the walsender, never replaced and its reply_time never older
// than a wal_sender_timeout (4 s here) when looked at, has replied to a
// status sent a timeout and a status interval after the stall began: a
// stall that stopped the statuses would have had it terminated by then. Then the walsender is
// terminated while the apply is still stalled, and the stream says it is
// disconnected within a few intervals, not once the apply comes back
// (issue 21 item 8: the walsender timed out at load 10-15; the sidecar
// noticed 40 s later).
//
// Each stall ends on that condition, not after a fixed three timeouts
// (35 s of spinning a test, five times a CI):
// the spinning goroutines burn every core while they run, so they run
// only from the first stall to the disconnect.
func TestStatusUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 15s")
	}
	h := newHarness(t, []string{"public.k"}, "CREATE TABLE k (id int PRIMARY KEY)", "CREATE TABLE other (id int)")
	ss := &stallSink{memSink: h.sink, applyOpen: make(chan struct{}), settleOpen: make(chan struct{})}
	var openOnce sync.Once
	release := func() {
		openOnce.Do(func() {
			close(ss.applyOpen)
			close(ss.settleOpen)
		})
	}
	defer release()
	stop := make(chan struct{})
	var spin sync.WaitGroup
	startSpin := func() {
		for range 2 * runtime.GOMAXPROCS(0) {
			spin.Add(1)
			go func() {
				defer spin.Done()
				x := 0
				for {
					select {
					case <-stop:
						return
					default:
					}
					for i := 0; i < 1e6; i++ {
						x += i
					}
				}
			}()
		}
	}
	var stopOnce sync.Once
	stopSpin := func() { stopOnce.Do(func() { close(stop); spin.Wait() }) }
	defer stopSpin()
	h.start(func(c *StreamConfig) { c.Sink = ss })

	const timeout = 4 * time.Second // the package cluster's wal_sender_timeout
	// walsender reads the slot's walsender: its pid, the age of its last
	// reply and whether that reply came after the server time since.
	walsender := func(since time.Time) (pid int32, replyAge time.Duration, after bool) {
		t.Helper()
		var p *int32
		var age *float64
		var later *bool
		err := h.conn.QueryRow(t.Context(), `SELECT s.active_pid, extract(epoch FROM now() - r.reply_time)::float8, r.reply_time > $2
			FROM pg_catalog.pg_replication_slots s LEFT JOIN pg_catalog.pg_stat_replication r ON r.pid = s.active_pid
			WHERE s.slot_name = $1`, h.slotName, since).Scan(&p, &age, &later)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			return 0, 0, false
		}
		if age == nil {
			return *p, time.Hour, false
		}
		return *p, time.Duration(*age * float64(time.Second)), later != nil && *later
	}
	serverNow := func() time.Time {
		t.Helper()
		var now time.Time
		if err := h.conn.QueryRow(t.Context(), "SELECT clock_timestamp()").Scan(&now); err != nil {
			t.Fatal(err)
		}
		return now
	}
	var pid int32
	// Started and replied once (reply_time is NULL until the first
	// standby status: a slow start is not a timeout).
	waitFor(t, 30*time.Second, "the walsender to start and get a reply", func() bool {
		var age time.Duration
		pid, age, _ = walsender(time.Time{})
		return pid != 0 && age < time.Hour
	})
	// keep asserts that the walsender stays pid and its reply_time never
	// ages past a timeout (statuses go out every interval, a quarter of
	// it) until it has replied to a status sent a timeout and an interval
	// after began (server time): the stall outlived a whole timeout.
	// The ceiling only bounds a walsender that keeps answering late.
	keep := func(what string, began time.Time, load func()) {
		t.Helper()
		const ceiling = 2 * time.Minute
		deadline := time.Now().Add(ceiling)
		var worst time.Duration
		for {
			if load != nil {
				load()
			}
			p, age, after := walsender(began.Add(timeout + timeout/4))
			if p != pid {
				t.Fatalf("%s: walsender %d replaced by %d (terminated for replication timeout?); stream errors %v", what, pid, p, h.errorsSeen())
			}
			worst = max(worst, age)
			if age > timeout {
				t.Fatalf("%s: the walsender's last reply is %v old (wal_sender_timeout %v)", what, age, timeout)
			}
			if after {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no reply to a status sent %v into the stall within %v", what, timeout+timeout/4, ceiling)
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Logf("%s: walsender %d kept, oldest reply seen %v", what, pid, worst)
	}
	startSpin()
	// An idle slot that moves (traffic in an unpublished table): the
	// status asks for a settle, which blocks.
	waitFor(t, 30*time.Second, "a settle of the idle slot", func() bool {
		mustExec(t, h.conn, "INSERT INTO other VALUES (1)")
		return ss.settles.Load() > 0
	})
	keep("settle blocked", serverNow(), func() { mustExec(t, h.conn, "INSERT INTO other VALUES (1)") })
	// The apply stalls in the middle of a transaction.
	ss.stallApply.Store(true)
	mustExec(t, h.conn, "INSERT INTO k SELECT generate_series(1, 100)")
	waitFor(t, 30*time.Second, "the apply to stall", func() bool { return ss.changes.Load() > 0 })
	keep("apply stalled", serverNow(), nil)
	if errs := h.errorsSeen(); len(errs) > 0 {
		t.Fatalf("stream errors while stalled: %v", errs)
	}

	// The walsender goes away while the apply is still stalled.
	if !h.st.Stats().Connected {
		t.Fatal("not connected before the walsender is terminated")
	}
	mustExec(t, h.conn, fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid))
	killed := time.Now()
	waitFor(t, 3*timeout, "the stream to notice its connection is gone", func() bool { return !h.st.Stats().Connected })
	t.Logf("connection loss noticed %v after the walsender was terminated", time.Since(killed).Round(time.Millisecond))
	stopSpin()
	release()
	h.sync()
	h.stop()
	h.checkTable("k", []string{"id"})
}
