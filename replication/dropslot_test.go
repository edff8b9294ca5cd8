package replication

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
)

// holdSlot streams from h's slot on a connection of its own, as the
// walsender of a stream that has just stopped still does for a moment;
// release closes it. The slot is active in between.
func holdSlot(t *testing.T, h *harness) (release func()) {
	t.Helper()
	conn, err := ConnectReplication(t.Context(), h.url)
	if err != nil {
		t.Fatal(err)
	}
	err = pglogrepl.StartReplication(t.Context(), conn, h.slotName, pglogrepl.LSN(h.slot), pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names 'pub'"},
	})
	if err != nil {
		conn.Close(context.Background())
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			conn.Close(context.Background())
		}
	}
	t.Cleanup(release)
	return release
}

func slotExists(t *testing.T, h *harness) bool {
	t.Helper()
	var n int
	if err := h.conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", h.slotName).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// TestDropSlotWaitsForRelease: DropSlot on a slot that a consumer still
// holds (the walsender of a daemon that has just stopped, before
// `sidecar run --resync`) waits for it to be released, then drops it;
// pg_drop_replication_slot alone fails at once with "slot is active".
func TestDropSlotWaitsForRelease(t *testing.T) {
	h := newHarness(t, []string{"public.d"}, "CREATE TABLE d (id int PRIMARY KEY)")
	release := holdSlot(t, h)
	// DropSlot's own connection: h.conn checks the slot meanwhile.
	conn, err := ConnectReplication(t.Context(), h.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- DropSlot(ctx, conn, h.slotName) }()
	select {
	case err := <-done:
		t.Fatalf("DropSlot returned while the slot was held: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if !slotExists(t, h) {
		t.Fatal("the slot was dropped while held")
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("DropSlot after the slot was released: %v", err)
	}
	if slotExists(t, h) {
		t.Fatal("DropSlot returned nil but the slot exists")
	}
	// A slot that does not exist: nothing to do.
	if err := DropSlot(t.Context(), h.conn.PgConn(), h.slotName); err != nil {
		t.Fatalf("DropSlot of a missing slot: %v", err)
	}
}

// TestDropSlotHeldPastDeadline: a slot held past the context's deadline
// is not dropped, and the error says it is in use (or, when the deadline
// fell during a query, that the context ended).
func TestDropSlotHeldPastDeadline(t *testing.T) {
	h := newHarness(t, []string{"public.d"}, "CREATE TABLE d (id int PRIMARY KEY)")
	holdSlot(t, h)
	// A connection of its own: a deadline during a query closes it.
	conn, err := ConnectReplication(t.Context(), h.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = DropSlot(ctx, conn, h.slotName)
	var pgErr *pgconn.PgError
	inUse := errors.As(err, &pgErr) && pgErr.Code == "55006" && strings.Contains(err.Error(), "still in use")
	if err == nil || !(inUse || errors.Is(err, context.DeadlineExceeded)) {
		t.Fatalf("DropSlot of a held slot: %v, want the object_in_use error after the deadline", err)
	}
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Fatalf("DropSlot gave up after %v, before its deadline", took)
	}
	if !slotExists(t, h) {
		t.Fatal("a held slot was dropped")
	}
}
