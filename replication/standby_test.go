package replication

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/wal"
	"go.uber.org/goleak"
)

// TestFollowStandby follows a physical standby: the slot is created on the
// standby (PostgreSQL 16 and newer), the initial copy reads the standby,
// and the stream decodes the WAL the standby replays, so the primary
// serves only its own standby. Writes go to the primary. Before 16 the
// slot cannot be created and the error says why and what to do.
func TestFollowStandby(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	// A cluster of its own: cloning the standby restarts the primary,
	// which would cut the package cluster's other tests.
	primary, err := pgtest.Start(t.Context(), clusterOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = primary.Stop() })
	url := primary.NewDB(t)
	conn := sqlConn(t, url)
	mustExec(t, conn, "CREATE TABLE a (id int PRIMARY KEY, v text)",
		"INSERT INTO a SELECT g, 'seed' FROM generate_series(1, 500) g")
	// The publication is made on the primary (the standby is read-only)
	// and reaches the standby with the WAL.
	if _, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.a"}}); err != nil {
		t.Fatal(err)
	}
	standby, err := primary.StartStandby(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Stop() })
	conn = sqlConn(t, url) // the clone restarted the primary
	surl := strings.Replace(url, fmtPort(primary.Port()), fmtPort(standby.Port()), 1)

	// Slot creation on a standby waits for the primary to log the running
	// transactions (every 15 s by itself); pg_log_standby_snapshot() on
	// the primary (16+) makes it at once.
	stopLogging := primary.LogStandbySnapshots()
	snap, err := CreateSlot(t.Context(), surl, "on_standby")
	if err := stopLogging(); err != nil {
		t.Error(err)
	}
	if primary.ServerVersion() < 160000 {
		if err == nil {
			t.Fatalf("CreateSlot on a PostgreSQL %s standby succeeded", primary.ServerVersionString())
		}
		if !strings.Contains(err.Error(), "16") || !strings.Contains(err.Error(), "primary") {
			t.Fatalf("CreateSlot on a PostgreSQL %s standby: %v; want it to say 16 is needed, or to connect to the primary", primary.ServerVersionString(), err)
		}
		return
	}
	if err != nil {
		t.Fatalf("CreateSlot on the standby: %v", err)
	}
	sink := newMemSink(snap.LSN)
	ci := &copyInto{s: sink}
	if err := Copy(t.Context(), CopyOptions{ConnString: surl, Workers: 2, RangeBlocks: 1}, snap.Snapshot(), []wal.TableName{{Schema: "public", Name: "a"}}, ci); err != nil {
		t.Fatalf("copy from the standby: %v", err)
	}
	if err := snap.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, url: surl, conn: conn, sink: sink, slot: snap.LSN, leaks: []goleak.Option{leaks, goleak.IgnoreAnyFunction(pgtest.ServerGoroutine)}, slotName: "on_standby"}
	h.start()
	mustExec(t, conn, "UPDATE a SET v = 'changed' WHERE id % 7 = 0", "DELETE FROM a WHERE id > 450",
		"INSERT INTO a SELECT g, 'new' FROM generate_series(1000, 1100) g")
	h.sync() // to the primary's insert position, through the standby
	h.stop()
	h.checkTable("a", []string{"id", "v"}) // read on the standby, which has replayed it
	if len(sink.committed()) == 0 {
		t.Fatal("no transaction streamed from the standby")
	}
	// The slot lives on the standby, not the primary.
	var onPrimary int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'on_standby'").Scan(&onPrimary); err != nil || onPrimary != 0 {
		t.Fatalf("%d slots on_standby on the primary (%v), want 0", onPrimary, err)
	}
}

func fmtPort(p int) string { return ":" + strconv.Itoa(p) + "/" }
