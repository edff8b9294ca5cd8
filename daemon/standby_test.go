package daemon

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/verify"
)

// TestFollowStandby runs the daemon against a physical standby
// (PostgreSQL 16 and newer decode on a standby): the publication is made
// on the primary, the slot, the copy and the stream are on the standby,
// writes go to the primary, and the mirror ends equal to it. Older
// servers refuse at slot creation (replication.TestFollowStandby checks
// that error).
func TestFollowStandby(t *testing.T) {
	if pg.ServerVersion() < 160000 {
		t.Skipf("PostgreSQL %s: logical decoding on a standby needs 16", pg.ServerVersionString())
	}
	// A cluster of its own: cloning the standby restarts the primary.
	primary, err := pgtest.Start(t.Context(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = primary.Stop() })
	url := primary.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE accounts (id bigint PRIMARY KEY, owner text)",
		"INSERT INTO accounts SELECT g, 'owner-' || g FROM generate_series(1, 1000) g",
		"CREATE PUBLICATION sidecar FOR TABLE accounts")
	standby, err := primary.StartStandby(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Stop() })
	surl := strings.Replace(url, ":"+strconv.Itoa(primary.Port())+"/", ":"+strconv.Itoa(standby.Port())+"/", 1)
	// The standby creates the slot once the primary logs its running
	// transactions: every 15 s by itself, at once with pg_log_standby_snapshot().
	stopLogging := primary.LogStandbySnapshots()
	defer func() {
		if err := stopLogging(); err != nil {
			t.Error(err)
		}
	}()

	cfg := testConfig(t, surl, "public.accounts")
	var logs syncBuilder
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE accounts SET owner = owner WHERE id = 2"))
	execSQL(t, url,
		"UPDATE accounts SET owner = 'changed' WHERE id % 7 = 0",
		"DELETE FROM accounts WHERE id > 900",
		"INSERT INTO accounts VALUES (5000, 'new')")
	r.waitDurable(t, marker(t, url, "UPDATE accounts SET owner = owner WHERE id = 2"))
	// The status reads the standby's position (pg_last_wal_replay_lsn: a
	// standby has no pg_current_wal_lsn) and its slot; it polls every 2 s.
	var st Status
	daemontest.Eventually(t, "the status reading the standby's position and slot", 0, func() bool {
		st = r.status(t)
		return st.Slot.WALStatus != "" && st.ServerLSN != ""
	}, func() string { return fmt.Sprintf("server_lsn %q, slot %+v", st.ServerLSN, st.Slot) })
	// verify pins the standby (a temporary slot there); the catch-up
	// marker cannot be written to a standby, so the stream's keepalives
	// carry the mirror past the pinned LSN instead.
	var rep verify.Report
	if code := postJSON(t, r.addr+"/api/verify", map[string]any{}, &rep); code != 200 || rep.Result != verify.ResultEqual {
		t.Fatalf("verify on the standby: HTTP %d, result %q\n%s", code, rep.Result, grepLines(logs.String(), "verify"))
	}
	// A resync on the standby with nothing committing on the primary: its
	// marker cannot be written there, and the copy lands once the stream's
	// keepalives pass its LSN (before session 12 it waited for the next
	// commit: "not ready after 2 minutes").
	if code := postJSON(t, r.addr+"/api/resync", ResyncRequest{Tables: []string{"public.accounts"}}, nil); code != 202 {
		t.Fatalf("resync on the standby: HTTP %d", code)
	}
	daemontest.Eventually(t, "the resync on an idle standby landed", 0, func() bool {
		st = r.status(t)
		return len(st.Tables) == 1 && st.Tables[0].State == "ready" && strings.Contains(logs.String(), "resync copy landed")
	}, func() string { return fmt.Sprintf("%+v\n%s", st.Tables, grepLines(logs.String(), "resync")) })
	if err := r.stop(); err != nil {
		t.Fatalf("stop: %v\n%s", err, logs.String())
	}
	_, got := mirrortest.MirrorRows(t, cfg.DataDir, "public.accounts")
	want := mirrortest.PGRows(t, url, "accounts")
	if !slices.Equal(got, want) {
		t.Fatalf("mirror has %d rows, the primary %d; they differ", len(got), len(want))
	}
	if n := slotCount(t, url, cfg.Slot); n != 0 {
		t.Errorf("slot %s exists on the primary; it belongs on the standby", cfg.Slot)
	}
	if n := slotCount(t, surl, cfg.Slot); n != 1 {
		t.Errorf("slot %s missing on the standby", cfg.Slot)
	}
}

func slotCount(t *testing.T, url, slot string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
