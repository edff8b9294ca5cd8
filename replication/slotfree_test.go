package replication

import (
	"context"
	"testing"
)

// TestSlotFreeWhenRunReturns: once Run has returned after its context
// ended, the slot is no longer active, so the next consumer (a restart,
// an offline verify's peek, `sidecar run --resync` dropping it) finds it
// free at once: the stream ends its COPY with the server before closing,
// and the walsender releases the slot before it answers.
func TestSlotFreeWhenRunReturns(t *testing.T) {
	h := newHarness(t, []string{"public.f"}, "CREATE TABLE f (id int PRIMARY KEY)")
	for round := range 5 {
		h.start()
		mustExec(t, h.conn, "INSERT INTO f VALUES ("+string(rune('1'+round))+")")
		h.sync()
		h.stop()
		var active bool
		if err := h.conn.QueryRow(context.Background(), "SELECT active FROM pg_replication_slots WHERE slot_name = $1", h.slotName).Scan(&active); err != nil {
			t.Fatal(err)
		}
		if active {
			t.Fatalf("round %d: slot %s still active after Run returned", round, h.slotName)
		}
	}
	h.checkTable("f", []string{"id"})
}
