package replication

import (
	"reflect"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestAckBesideStreamedAbortAndUnpublished (issue 21, stream stall
// item): the shapes join_hash.sql writes around the harness's marker — a
// streamed (in-progress) transaction whose subtransaction and then whole
// self roll back, temporary tables, transactions touching only an
// unpublished table — interleaved with published commits: every
// published commit arrives, once, nothing stays spooled, and while the
// sink holds its durable LSN the slot is never acknowledged past it
// (quiet moments between the shapes included); released, the
// acknowledgement reaches the last commit.
func TestAckBesideStreamedAbortAndUnpublished(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{"public.pm"}, "CREATE TABLE pm (id int PRIMARY KEY, v text)", "CREATE TABLE other (id int, v text)")
	spool, err := NewDiskSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	h.sink.holdDurable.Store(true)
	h.start(func(c *StreamConfig) { c.Spool = spool })
	big := sqlConn(t, h.url)
	// Past logical_decoding_work_mem (64kB here): streamed while open.
	mustExec(t, big, "BEGIN", "INSERT INTO pm SELECT g, repeat('x', 80) FROM generate_series(1, 5000) g")
	mustExec(t, h.conn, "CREATE TEMP TABLE tmp (a int)", "INSERT INTO tmp SELECT generate_series(1, 1000)",
		"INSERT INTO other SELECT g, 'o' FROM generate_series(1, 1000) g", "INSERT INTO pm VALUES (-1, 'marker 1')", "DROP TABLE tmp")
	mustExec(t, big, "SAVEPOINT s", "INSERT INTO pm SELECT g, 'y' FROM generate_series(10001, 12000) g", "ROLLBACK TO SAVEPOINT s", "ROLLBACK")
	mustExec(t, h.conn, "INSERT INTO other VALUES (0, 'unpublished only')", "CREATE TEMP TABLE tmp2 (a int)", "DROP TABLE tmp2",
		"INSERT INTO pm VALUES (-2, 'marker 2')", "INSERT INTO other VALUES (1, 'after')")
	waitFor(t, 2*time.Minute, "both markers delivered", func() bool { return len(h.sink.committed()) >= 2 })
	confirmed := func() wal.LSN {
		info, err := SlotStatus(t.Context(), h.conn.PgConn(), h.slotName)
		if err != nil {
			t.Fatal(err)
		}
		return info.ConfirmedFlush
	}
	for range 3 {
		sent := h.st.Stats().StatusSent
		waitFor(t, time.Minute, "another status update", func() bool { return h.st.Stats().StatusSent > sent })
		if c := confirmed(); c > h.slot {
			t.Fatalf("confirmed_flush_lsn %s passed the sink's durable %s (nothing durable yet)", c, h.slot)
		}
	}
	txns := h.sink.committed()
	if got := changesOf(txns); !reflect.DeepEqual(got, []string{"insert pm new['-1','marker 1']", "insert pm new['-2','marker 2']"}) {
		t.Fatalf("delivered %d changes (%.200q), want the two markers", len(got), got)
	}
	h.sink.durable.Store(uint64(txns[len(txns)-1].info.EndLSN))
	h.sync()
	if c, last := confirmed(), txns[len(txns)-1].info.EndLSN; c < last {
		waitFor(t, time.Minute, "the acknowledgement to reach the last commit", func() bool { return confirmed() >= last })
	}
	h.stop()
	if n := spool.Open(); n != 0 {
		t.Fatalf("%d transactions left in the spool", n)
	}
	h.checkTable("pm", []string{"id", "v"})
}
