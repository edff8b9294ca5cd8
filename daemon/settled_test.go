package daemon

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestRestartAfterSettledIdle: an idle sidecar's slot is acknowledged
// past the mirror's last commit (settled-lsn records it, with the
// mirror's durable LSN at the time); a restart follows on from that slot;
// and a mirror that comes back durable below what it held when it settled
// (a lost synced write, simulated by a settled-lsn naming a later base)
// is refused with ErrForeignSlot instead of streaming past the gap.
func TestRestartAfterSettledIdle(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE followed (id int PRIMARY KEY)", "CREATE TABLE other (id serial PRIMARY KEY, pad text)")
	cfg := testConfig(t, url, "public.followed")
	r := start(t, cfg, io.Discard)
	r.waitDurable(t, marker(t, url, "INSERT INTO followed VALUES (1)"))
	durable, err := wal.ParseLSN(r.waitDurable(t, marker(t, url, "INSERT INTO followed VALUES (2)")).DurableLSN)
	if err != nil {
		t.Fatal(err)
	}
	// Writes the sidecar does not follow, until the slot is acknowledged
	// past the mirror's durable LSN (keepalives, then a settle).
	var st follow.Settled
	daemontest.Eventually(t, fmt.Sprintf("the idle slot settled past the mirror's durable LSN %s", durable), 0, func() bool {
		execSQL(t, url, "INSERT INTO other (pad) SELECT repeat('x', 1000) FROM generate_series(1, 20)")
		st = follow.ReadSettled(cfg.DataDir)
		return st.LSN > durable && slotConfirmed(t, url, cfg.Slot) > durable
	}, func() string { return fmt.Sprintf("settled %+v", st) })
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	st = follow.ReadSettled(cfg.DataDir)
	stopped, _ := mirrortest.MirrorRows(t, cfg.DataDir, "public.followed")
	if st.Base == 0 || st.Base > stopped {
		t.Fatalf("settled-lsn %+v: its base must be a durable LSN the stopped mirror holds (%s)", st, stopped)
	}
	if c := slotConfirmed(t, url, cfg.Slot); c <= stopped || c > st.LSN {
		t.Fatalf("slot confirmed %s: want past the mirror's durable %s and within the settled %s", c, stopped, st.LSN)
	}

	// A restart takes the settled slot as its own and follows on.
	r = start(t, cfg, io.Discard)
	r.waitDurable(t, marker(t, url, "INSERT INTO followed VALUES (3)"))
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}

	// Idle again, settled past the new commit; then the mirror "loses" a
	// synced write: settled-lsn says it held more than it holds.
	durableNow, _ := mirrortest.MirrorRows(t, cfg.DataDir, "public.followed")
	r = start(t, cfg, io.Discard)
	daemontest.Eventually(t, fmt.Sprintf("settled past %s", durableNow), 0, func() bool {
		execSQL(t, url, "INSERT INTO other (pad) SELECT repeat('x', 1000) FROM generate_series(1, 20)")
		st = follow.ReadSettled(cfg.DataDir)
		return st.LSN > durableNow && slotConfirmed(t, url, cfg.Slot) > durableNow
	}, func() string { return fmt.Sprintf("settled %+v", st) })
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	st = follow.ReadSettled(cfg.DataDir)
	if err := follow.WriteSettled(cfg.DataDir, follow.Settled{LSN: st.LSN, Base: durableNow + 1}); err != nil {
		t.Fatal(err)
	}
	err = runRefused(t, Options{Config: cfg})
	if !errors.Is(err, ErrForeignSlot) || !strings.Contains(err.Error(), "writes it had synced are gone") || !strings.Contains(err.Error(), "--resync") {
		t.Fatalf("a mirror below its settled base: %v", err)
	}
	t.Logf("refused: %v", err)
}
