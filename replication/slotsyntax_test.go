package replication

import (
	"context"
	"testing"

	"github.com/jackc/pglogrepl"
)

func TestParseServerVersion(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{
		{"14.23", 140023},
		{"15.18 (Debian 15.18-0+deb12u1)", 150018},
		{"16.14", 160014},
		{"17beta2", 170000},
		{"18devel", 180000},
		{"18.4", 180004},
		{"9.6.24", 90624},
	}
	for _, tc := range cases {
		if got, err := parseServerVersion(tc.in); err != nil || got != tc.want {
			t.Errorf("parseServerVersion(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "x15", "(unknown)"} {
		if got, err := parseServerVersion(bad); err == nil {
			t.Errorf("parseServerVersion(%q) = %d; want an error", bad, got)
		}
	}
}

func TestCreateSlotCommandSyntax(t *testing.T) {
	cases := []struct {
		ver    int
		temp   bool
		action SnapshotAction
		want   string
	}{
		{140023, false, SnapshotExport, "CREATE_REPLICATION_SLOT s LOGICAL pgoutput EXPORT_SNAPSHOT"},
		{140023, true, SnapshotUse, "CREATE_REPLICATION_SLOT s TEMPORARY LOGICAL pgoutput USE_SNAPSHOT"},
		{140023, true, SnapshotNothing, "CREATE_REPLICATION_SLOT s TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT"},
		{150000, false, SnapshotExport, "CREATE_REPLICATION_SLOT s LOGICAL pgoutput (SNAPSHOT 'export')"},
		{180004, true, SnapshotUse, "CREATE_REPLICATION_SLOT s TEMPORARY LOGICAL pgoutput (SNAPSHOT 'use')"},
	}
	for _, tc := range cases {
		if got := CreateSlotCommand(tc.ver, "s", tc.temp, tc.action); got != tc.want {
			t.Errorf("CreateSlotCommand(%d, %v, %s) = %q; want %q", tc.ver, tc.temp, tc.action, got, tc.want)
		}
	}
}

// TestCreateSlotEveryAction runs the slot commands this package and verify
// send, on the server the tests run against (CI runs it on every major):
// the command is accepted, SNAPSHOT 'use' inside BeginUseSnapshot gives
// the transaction the slot's snapshot, 'export' names an importable one.
func TestCreateSlotEveryAction(t *testing.T) {
	url := pg.NewDB(t)
	setup := sqlConn(t, url)
	mustExec(t, setup, "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1), (2)")
	conn, err := ConnectReplication(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	ver, err := ServerVersionNum(conn)
	if err != nil {
		t.Fatal(err)
	}
	if ver != pg.ServerVersion() {
		t.Fatalf("ServerVersionNum = %d, server_version_num = %d", ver, pg.ServerVersion())
	}
	t.Logf("PostgreSQL %s", pg.ServerVersionString())

	if _, _, err := simpleQuery(t.Context(), conn, BeginUseSnapshot); err != nil {
		t.Fatal(err)
	}
	if _, err := pglogrepl.ParseCreateReplicationSlot(conn.Exec(t.Context(), CreateSlotCommand(ver, "slot_use", true, SnapshotUse))); err != nil {
		t.Fatalf("SNAPSHOT 'use' on %s: %v", pg.ServerVersionString(), err)
	}
	// A row committed after the slot is not in the transaction's snapshot.
	mustExec(t, setup, "INSERT INTO t VALUES (3)")
	rows, _, err := simpleQuery(t.Context(), conn, "SELECT count(*)::text FROM public.t")
	if err != nil || len(rows) != 1 || rows[0][0] != "2" {
		t.Fatalf("count in the slot's snapshot = %v, %v; want 2", rows, err)
	}
	if _, _, err := simpleQuery(t.Context(), conn, "COMMIT"); err != nil {
		t.Fatal(err)
	}

	res, err := pglogrepl.ParseCreateReplicationSlot(conn.Exec(t.Context(), CreateSlotCommand(ver, "slot_export", true, SnapshotExport)))
	if err != nil || res.SnapshotName == "" {
		t.Fatalf("SNAPSHOT 'export' on %s: %+v, %v", pg.ServerVersionString(), res, err)
	}
	imp := sqlConn(t, url)
	tx, err := imp.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	mustExec(t, imp, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", "SET TRANSACTION SNAPSHOT '"+res.SnapshotName+"'")
	var n int
	if err := imp.QueryRow(t.Context(), "SELECT count(*) FROM t").Scan(&n); err != nil || n != 3 {
		t.Fatalf("count in the exported snapshot = %d, %v; want 3", n, err)
	}

	if _, err := pglogrepl.ParseCreateReplicationSlot(conn.Exec(t.Context(), CreateSlotCommand(ver, "slot_nothing", true, SnapshotNothing))); err != nil {
		t.Fatalf("SNAPSHOT 'nothing' on %s: %v", pg.ServerVersionString(), err)
	}
}
