package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/store"
)

// holdSlot streams from slot on a connection of its own, so the slot is
// active (as it is for the walsender of a start that was just killed)
// until the returned function closes that connection.
func holdSlot(t *testing.T, url, slot string) (release func()) {
	t.Helper()
	rc, err := replication.ConnectReplication(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	if err := pglogrepl.StartReplication(t.Context(), rc, slot, 0, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names 'sidecar'"}}); err != nil {
		rc.Close(context.Background())
		t.Fatal(err)
	}
	closed := false
	release = func() {
		if !closed {
			closed = true
			rc.Close(context.Background())
		}
	}
	t.Cleanup(release)
	return release
}

func slotActive(t *testing.T, url, slot string) bool {
	t.Helper()
	conn, err := pgconn.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	info, err := replication.SlotStatus(t.Context(), conn, slot)
	if err != nil {
		t.Fatal(err)
	}
	return info.Active
}

// TestFirstStartWaitsForHeldSlot: a first start (no mirror yet) that finds
// its slot still active waits for it to be let go: the walsender of a
// start killed a moment before holds the slot until it notices (CI's
// TestCrashKill9 restarted into that and exited 1: "slot exists and is in
// use by another process"). A slot held past SlotReleaseWait is still
// refused as another consumer's.
func TestFirstStartWaitsForHeldSlot(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE h (id int PRIMARY KEY, v text)", "INSERT INTO h VALUES (1, 'a')",
		"CREATE PUBLICATION sidecar FOR TABLE h",
		"SELECT pg_create_logical_replication_slot('sidecar', 'pgoutput')",
		"SELECT pg_create_logical_replication_slot('other', 'pgoutput')")

	// Held for good: refused once SlotReleaseWait has passed.
	holdSlot(t, url, "other")
	cfg := testConfig(t, url, "public.h")
	cfg.Slot = "other"
	start := time.Now()
	err := Run(t.Context(), Options{Config: cfg, SlotReleaseWait: 500 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("a slot another consumer holds: %v", err)
	}
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("refused after %v, before SlotReleaseWait", took)
	}

	// Let go while the start waits: the start recreates the slot, copies
	// and follows. The data directory is that of a first start killed
	// after it recorded the server's identity (it does so before creating
	// the slot): an empty one would not own the slot.
	release := holdSlot(t, url, "sidecar")
	cfg = testConfig(t, url, "public.h")
	recordIdentity(t, url, cfg.DataDir)
	var logs syncBuilder
	r := startOpts(t, Options{Config: cfg, SlotReleaseWait: time.Minute}, &logs)
	daemontest.Eventually(t, "the start waiting for the held slot", 0, func() bool {
		return strings.Contains(logs.String(), "the slot is still in use")
	}, func() string { return fmt.Sprintf("stop: %v\n%s", r.stop(), logs.String()) })
	if !slotActive(t, url, "sidecar") {
		t.Fatal("the slot was let go before the test released it")
	}
	release()
	st := r.waitDurable(t, marker(t, url, "UPDATE h SET v = 'b' WHERE id = 1"))
	if len(st.Tables) != 1 || st.Tables[0].State != "ready" || st.Tables[0].Rows != 1 {
		t.Fatalf("after the wait: %+v", st.Tables)
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
}

// recordIdentity leaves in dataDir what a first start leaves before it
// creates its slot: a mirror with the server's identity and no copy.
func recordIdentity(t *testing.T, url, dataDir string) {
	t.Helper()
	rc, err := replication.ConnectReplication(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := replication.IdentifySystem(t.Context(), rc)
	rc.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(store.Options{Dir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := mirror.Open(t.Context(), mirror.Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	if err := m.SetSystem(t.Context(), sys); err != nil {
		t.Fatal(err)
	}
}
