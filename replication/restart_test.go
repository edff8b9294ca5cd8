package replication

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/wal"
	"go.uber.org/goleak"
)

// TestRestartMidStream runs small and streamed transactions while the
// walsender is killed inside a streamed transaction and PostgreSQL is
// restarted twice; at the end the sink equals the table, no change was
// delivered twice (the sink refuses a duplicate insert), and commits are
// delivered in increasing LSN order.
func TestRestartMidStream(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts PostgreSQL")
	}
	c, err := pgtest.Start(t.Context(), clusterOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	url, err := c.CreateDB(t.Context(), "restart")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessAt(t, url, []string{"public.w"}, "CREATE TABLE w (id int PRIMARY KEY, v text)")
	h.strictLeaks = true
	h.sink.holdDurable.Store(true) // durability lags delivery, as in the mirror
	var stopDurable atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the "mirror" makes delivered transactions durable in batches
		defer wg.Done()
		for !stopDurable.Load() {
			time.Sleep(300 * time.Millisecond)
			if txns := h.sink.committed(); len(txns) > 0 {
				h.sink.durable.Store(uint64(txns[len(txns)-1].info.EndLSN))
			}
		}
	}()
	defer func() { stopDurable.Store(true); wg.Wait() }()
	h.start()

	// Streamed transaction in progress while its walsender is killed.
	tx, err := h.conn.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), "INSERT INTO w SELECT g, repeat('s', 60) FROM generate_series(1, 3000) g"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 2*time.Minute, "walsender", func() bool { return h.st.Stats().Connected })
	time.Sleep(300 * time.Millisecond) // let the first chunks stream
	mustExec(t, sqlConn(t, url), "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"+h.slotName+"'")
	if _, err := tx.Exec(t.Context(), "INSERT INTO w SELECT g, 'late' FROM generate_series(3001, 4000) g"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.sync()

	next := 10000
	write := func(n int) {
		for i := 0; i < n; i++ {
			conn, err := pgx.Connect(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			if i%10 == 9 { // every tenth transaction streams
				_, err = conn.Exec(t.Context(), fmt.Sprintf("INSERT INTO w SELECT g, repeat('b', 60) FROM generate_series(%d, %d) g", next, next+1999))
				next += 2000
			} else {
				_, err = conn.Exec(t.Context(), fmt.Sprintf("INSERT INTO w VALUES (%d, 'small'); UPDATE w SET v = 'upd' WHERE id = %d", next, next-1))
				next++
			}
			conn.Close(context.Background())
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for round := 0; round < 2; round++ {
		h.conn.Close(context.Background())
		write(25)
		// pgtest's restart: its start waits for the server to accept
		// connections up to pgtest's ceiling (90 s) and names the server
		// log's tail when it does not (this test's own restart waited 30 s:
		// at load ~45 the restarted server once took longer).
		if err := c.Restart(t.Context()); err != nil {
			t.Fatal(err)
		}
		// The restarted server's waiter belongs to the cluster, not the stream.
		h.leaks = append(h.leaks, goleak.IgnoreAnyFunction(pgtest.ServerGoroutine))
		write(25)
		if h.conn, err = pgx.Connect(t.Context(), url); err != nil {
			t.Fatal(err)
		}
		h.sync()
	}
	if st := h.st.Stats(); st.FailingFor != 0 || !st.Connected || st.Reconnects < 3 {
		t.Fatalf("after recovery: %+v", st)
	}
	h.sink.holdDurable.Store(false)
	stopDurable.Store(true)
	wg.Wait()
	h.stop()
	if len(h.errorsSeen()) < 3 {
		t.Fatalf("only %d connection errors reported for 1 terminated walsender and 2 restarts", len(h.errorsSeen()))
	}
	h.checkTable("w", []string{"id", "v"})
	var prev wal.LSN
	for _, tx := range h.sink.committed() {
		if tx.info.EndLSN <= prev {
			t.Fatalf("commit %s delivered after %s", tx.info.EndLSN, prev)
		}
		prev = tx.info.EndLSN
	}
	t.Logf("%d transactions, %d aborted deliveries, %d connection errors", len(h.sink.committed()), h.sink.aborts, len(h.errorsSeen()))
}

// TestSlotInvalidated: a slot that fell behind max_slot_wal_keep_size and
// lost its WAL (wal_status = lost) stops the stream with a SlotLostError,
// never a silent skip.
func TestSlotInvalidated(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs its own cluster")
	}
	c, err := pgtest.Start(t.Context(), pgtest.Options{Settings: map[string]string{
		"max_slot_wal_keep_size": "1MB", "max_wal_size": "32MB", "min_wal_size": "32MB"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	url, err := c.CreateDB(t.Context(), "lost")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessAt(t, url, []string{"public.p"}, "CREATE TABLE p (id int PRIMARY KEY)", "CREATE TABLE other (x text)")
	// The slot is idle (no consumer) while other WAL accumulates.
	// Segment switches make old WAL removable without writing much.
	for i := 0; i < 6; i++ {
		mustExec(t, h.conn, "INSERT INTO other VALUES ('w')", "SELECT pg_switch_wal()")
	}
	mustExec(t, h.conn, "CHECKPOINT")
	waitFor(t, 30*time.Second, "wal_status = lost", func() bool {
		mustExec(t, h.conn, "CHECKPOINT")
		info, err := SlotStatus(t.Context(), h.conn.PgConn(), h.slotName)
		return err == nil && info.WALStatus == "lost"
	})
	st, err := NewStreamer(StreamConfig{ConnString: url, Slot: h.slotName, Publication: "pub", Sink: h.sink})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Run(t.Context())
	var lost *SlotLostError
	if !errors.As(err, &lost) || lost.Reason != "wal_status=lost" {
		t.Fatalf("Run on an invalidated slot: %v, want SlotLostError(wal_status=lost)", err)
	}
}

// TestAbortAndResendOnDisconnect: the connection breaks while a large,
// non-streamed transaction is half delivered (the sink is stalled, the
// reader's queue is full, the rest is still on the server): the sink gets
// Abort, and after reconnecting the whole transaction once.
func TestAbortAndResendOnDisconnect(t *testing.T) {
	t.Parallel()
	// logical_decoding_work_mem is a user setting: the walsender of this
	// connection keeps the transaction whole instead of streaming it.
	url := withParam(t, pg.NewDB(t), "logical_decoding_work_mem", "256MB")
	h := newHarnessAt(t, url, []string{"public.w"}, "CREATE TABLE w (id int PRIMARY KEY, v text)")
	h.sink.delayOnce = 2 * time.Second
	h.start(func(c *StreamConfig) { c.QueueSize = 2 })
	mustExec(t, h.conn, "INSERT INTO w SELECT g, repeat('v', 100) FROM generate_series(1, 50000) g")
	waitFor(t, 10*time.Second, "the stalled first change", func() bool {
		h.sink.mu.Lock()
		defer h.sink.mu.Unlock()
		return h.sink.delayed
	})
	// Only this test's walsender: other tests share the cluster.
	mustExec(t, h.conn, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"+h.slotName+"'")
	h.sync()
	h.stop()
	txns := h.sink.committed()
	if h.sink.aborts != 1 || len(txns) != 1 || len(txns[0].changes) != 50000 || txns[0].info.Streamed {
		t.Fatalf("%d aborts, %d transactions; want 1 abort, then the 50000-row transaction once", h.sink.aborts, len(txns))
	}
	h.checkTable("w", []string{"id", "v"})
}
