package replication

import (
	"sync"
	"testing"
	"time"
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
