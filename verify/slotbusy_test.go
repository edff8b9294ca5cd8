package verify

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/replication"
)

// holdSlot starts replication on the pipeline's slot from a connection of
// its own, so that the slot is active (as it is while a stream's
// walsender has not yet exited), and returns the function that lets it
// go and waits until PostgreSQL shows the slot inactive.
func (p *pipeline) holdSlot() (release func()) {
	p.t.Helper()
	conn, err := replication.ConnectReplication(p.t.Context(), p.url)
	if err != nil {
		p.t.Fatal(err)
	}
	err = pglogrepl.StartReplication(p.t.Context(), conn, "main", pglogrepl.LSN(p.m.Durable()), pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names 'pub'"},
	})
	if err != nil {
		conn.Close(context.Background())
		p.t.Fatal(err)
	}
	if !p.slotActive() {
		p.t.Fatal("slot main not active while a replication connection streams from it")
	}
	released := false
	p.t.Cleanup(func() {
		if !released {
			conn.Close(context.Background())
		}
	})
	return func() {
		released = true
		conn.Close(context.Background())
		deadline := time.Now().Add(30 * time.Second)
		for p.slotActive() {
			if time.Now().After(deadline) {
				p.t.Error("slot main still active 30 s after its connection closed")
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (p *pipeline) slotActive() bool {
	p.t.Helper()
	var active bool
	if err := p.conn.QueryRow(p.t.Context(), "SELECT active FROM pg_replication_slots WHERE slot_name = 'main'").Scan(&active); err != nil {
		p.t.Fatal(err)
	}
	return active
}

// TestRunOfflineWaitsForSlotRelease: the slot proof of an offline verify
// right after the stream stopped meets a slot the stream's walsender
// still holds (it exits only once it notices its client left). Run must
// wait for the slot within the catch-up timeout, not fail with "slot is
// active" (a flake of TestRunOffline under load).
func TestRunOfflineWaitsForSlotRelease(t *testing.T) {
	p := newPipeline(t, []string{"public.acct"}, `CREATE TABLE acct (id int8 PRIMARY KEY, name text)`,
		`INSERT INTO acct SELECT i, 'n' FROM generate_series(1, 100) i`)
	release := p.holdSlot()
	type result struct {
		rep *Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := p.runner().Run(t.Context(), nil)
		done <- result{rep, err}
	}()
	// Run reaches the proof while the slot is held; let it find it busy.
	select {
	case r := <-done:
		t.Fatalf("Run returned while the slot was held: %v", r.err)
	case <-time.After(500 * time.Millisecond):
	}
	release()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not return within 60 s of the slot's release")
	}
	if r.err != nil {
		t.Fatalf("offline verify after the slot was released: %v", r.err)
	}
	if r.rep.Result != ResultEqual || !strings.Contains(r.rep.CaughtUp, "peeked") {
		t.Fatalf("want equal by the slot proof:\n%s\n%s", reportSummary(r.rep), r.rep.CaughtUp)
	}
}

// TestRunOfflineSlotHeld: a slot that stays in use (a daemon streaming
// from it) is waited for no longer than the catch-up timeout, and the
// error says the slot is in use.
func TestRunOfflineSlotHeld(t *testing.T) {
	p := newPipeline(t, []string{"public.acct"}, `CREATE TABLE acct (id int8 PRIMARY KEY, name text)`)
	p.holdSlot()
	r := p.runner()
	r.CatchUpTimeout = time.Second
	start := time.Now()
	_, err := r.Run(t.Context(), nil)
	took := time.Since(start)
	var pgErr *pgconn.PgError
	if !errors.Is(err, ErrMirrorBehind) || !errors.As(err, &pgErr) || pgErr.Code != "55006" || !strings.Contains(err.Error(), "still in use") {
		t.Fatalf("want ErrMirrorBehind wrapping the slot-in-use error, got %v", err)
	}
	if took < time.Second || took > 30*time.Second {
		t.Fatalf("Run gave up after %v, want the 1 s catch-up timeout", took)
	}
}
