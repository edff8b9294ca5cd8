package replication

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

func TestValidateNames(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"main", "sidecar_1", strings.Repeat("a", 63)} {
		if err := ValidateSlotName(ok); err != nil {
			t.Errorf("ValidateSlotName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Main", "a-b", "a b", "x;DROP", strings.Repeat("a", 64), "é"} {
		if err := ValidateSlotName(bad); err == nil {
			t.Errorf("ValidateSlotName(%q) accepted", bad)
		}
	}
}

func TestSystemIdentityCheck(t *testing.T) {
	t.Parallel()
	stored := wal.SystemIdentity{SystemID: "7300", Timeline: 1, DBName: "app"}
	if err := (wal.SystemIdentity{SystemID: "7300", Timeline: 1, DBName: "app"}).Check(stored); err != nil {
		t.Fatal(err)
	}
	if err := (wal.SystemIdentity{SystemID: "7300", Timeline: 1}).Check(wal.SystemIdentity{}); err != nil {
		t.Fatalf("new mirror: %v", err)
	}
	for name, cur := range map[string]wal.SystemIdentity{
		"other cluster": {SystemID: "9999", Timeline: 1, DBName: "app"},
		"new timeline":  {SystemID: "7300", Timeline: 2, DBName: "app"},
		"other db":      {SystemID: "7300", Timeline: 1, DBName: "other"},
	} {
		err := cur.Check(stored)
		if !errors.Is(err, wal.ErrSystemChanged) || !strings.Contains(err.Error(), "--resync") {
			t.Errorf("%s: %v, want ErrSystemChanged with the way back", name, err)
		}
	}
}

func TestIdentifySystem(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	conn, err := ConnectReplication(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	sys, err := IdentifySystem(t.Context(), conn)
	if err != nil {
		t.Fatal(err)
	}
	if sys.SystemID == "" || sys.Timeline != 1 || sys.XLogPos == 0 || !strings.HasPrefix(sys.DBName, "t_") {
		t.Fatalf("IDENTIFY_SYSTEM: %+v", sys)
	}
}

// TestSessionSettingsWin: role and database defaults, and settings in the
// connection string, do not change how values are rendered: the pinned
// settings apply to ordinary and replication connections, and both the
// copy and the stream give the same canonical text.
func TestSessionSettingsWin(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	var db string
	if err := conn.QueryRow(t.Context(), "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn,
		"ALTER DATABASE "+wal.QuoteIdent(db)+" SET TimeZone = 'America/New_York'",
		"ALTER DATABASE "+wal.QuoteIdent(db)+" SET DateStyle = 'SQL, DMY'",
		"ALTER DATABASE "+wal.QuoteIdent(db)+" SET bytea_output = 'escape'",
		"ALTER DATABASE "+wal.QuoteIdent(db)+" SET extra_float_digits = 0",
		"ALTER DATABASE "+wal.QuoteIdent(db)+" SET IntervalStyle = 'sql_standard'")
	h := newHarnessAt(t, withParam(t, url, "options", "-c TimeZone=Asia/Tokyo"), []string{"public.v"},
		"CREATE TABLE v (id int PRIMARY KEY, ts timestamptz, d date, b bytea, f float8, iv interval)")
	h.start()
	mustExec(t, h.conn, "INSERT INTO v VALUES (1, '2026-11-30 12:00:00+00', '2026-11-30', '\\x00ff', 0.1, '1 day 2 hours')")
	h.sync()
	h.stop()
	got := changesOf(h.sink.committed())
	want := []string{"insert v new['1','2026-11-30 12:00:00+00','2026-11-30','\\x00ff','0.1','1 day 02:00:00']"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("streamed %q, want %q", got, want)
	}
	h.checkTable("v", []string{"id", "ts", "d", "b", "f", "iv"})
}

func TestEnsurePublication(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	mustExec(t, conn,
		"CREATE TABLE a (id int PRIMARY KEY)", "CREATE TABLE b (id int PRIMARY KEY)",
		"CREATE TABLE nokey (x int)", "CREATE TABLE nokey2 (x int)",
		"CREATE TABLE ui (x int NOT NULL)", "CREATE UNIQUE INDEX ui_x ON ui (x)", "ALTER TABLE ui REPLICA IDENTITY USING INDEX ui_x",
		"CREATE TABLE p (id int PRIMARY KEY) PARTITION BY RANGE (id)", "CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10)",
		"CREATE UNLOGGED TABLE u (id int PRIMARY KEY)",
		"CREATE TABLE fk (x int)", "ALTER TABLE fk REPLICA IDENTITY FULL",
		// A FULL root whose partition is not FULL (partitions do not inherit it).
		"CREATE TABLE fp (x int) PARTITION BY RANGE (x)", "CREATE TABLE fp1 PARTITION OF fp FOR VALUES FROM (0) TO (10)",
		"ALTER TABLE fp REPLICA IDENTITY FULL",
		// Tables without any column (one FULL, one with its only column dropped).
		"CREATE TABLE nocols ()", "ALTER TABLE nocols REPLICA IDENTITY FULL", "INSERT INTO nocols DEFAULT VALUES",
		"CREATE TABLE allgone (x int)", "ALTER TABLE allgone REPLICA IDENTITY FULL", "ALTER TABLE allgone DROP COLUMN x")

	// A table without any column is refused by name, with the fix.
	_, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.a", "public.nocols"}})
	if !errors.Is(err, ErrPublication) || !strings.Contains(err.Error(), "without any column: public.nocols") || !strings.Contains(err.Error(), "ADD COLUMN") {
		t.Fatalf("table without columns: %v", err)
	}

	// Keyless (and not FULL) and missing tables are refused, all named in one error.
	_, err = EnsurePublication(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.a", "public.nokey", "public.nokey2", "public.gone"}})
	if !errors.Is(err, ErrPublication) || !strings.Contains(err.Error(), "public.nokey, public.nokey2") || !strings.Contains(err.Error(), "public.gone") {
		t.Fatalf("keyless tables: %v", err)
	}

	// "*" takes every permanent table with a key or REPLICA IDENTITY FULL,
	// partitioned roots but not partitions.
	pub, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "all_pub", Tables: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	names := func(ts []wal.TableName) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.String())
		}
		return strings.Join(s, " ")
	}
	if got := names(pub.Tables); got != "public.a public.b public.fk public.p public.ui" || !pub.Created {
		t.Fatalf("* resolved to %q (created %v)", got, pub.Created)
	}
	if got := names(pub.WithoutKey); got != "public.fp public.nokey public.nokey2" {
		t.Fatalf("* left out %q", got)
	}
	if got := names(pub.WithoutColumns); got != "public.allgone public.nocols" {
		t.Fatalf("* left out %q as without columns", got)
	}

	// Existing publication: accepted when it covers the tables, unchanged.
	pub, err = EnsurePublication(t.Context(), conn, PublicationSpec{Name: "all_pub", Tables: []string{"public.b", "public.a"}})
	if err != nil || pub.Created {
		t.Fatalf("existing publication: %+v, %v", pub, err)
	}
	mustExec(t, conn, "CREATE PUBLICATION small FOR TABLE a")
	for name, spec := range map[string]PublicationSpec{
		"missing table":  {Name: "small", Tables: []string{"public.a", "public.b"}},
		"via root":       {Name: "small", Tables: []string{"public.a"}, ViaPartitionRoot: true},
		"bad name":       {Name: "Bad-Name", Tables: []string{"public.a"}},
		"no tables":      {Name: "x", Tables: nil},
		"unlogged table": {Name: "x", Tables: []string{"public.u"}},
	} {
		if _, err := EnsurePublication(t.Context(), conn, spec); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if pg.ServerVersion() >= 150000 { // row filters arrived in 15
		mustExec(t, conn, "CREATE PUBLICATION filtered FOR TABLE a WHERE (id > 0)")
		if _, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "filtered", Tables: []string{"public.a"}}); err == nil ||
			!strings.Contains(err.Error(), "row filter") {
			t.Errorf("row filter: %v", err)
		}
	}
	mustExec(t, conn, "CREATE TABLE ck (b int, a int, v text, PRIMARY KEY (a, b))", "ALTER TABLE ck REPLICA IDENTITY FULL")
	for tbl, want := range map[string]string{"ck": "a,b", "ui": "x", "a": "id"} {
		cols, err := KeyColumns(t.Context(), conn, wal.TableName{Schema: "public", Name: tbl})
		if err != nil || strings.Join(cols, ",") != want {
			t.Errorf("KeyColumns(%s) = %v, %v; want %s", tbl, cols, err, want)
		}
	}
	if _, err := KeyColumns(t.Context(), conn, wal.TableName{Schema: "public", Name: "nokey"}); !errors.Is(err, ErrPublication) {
		t.Errorf("KeyColumns of a keyless table: %v", err)
	}
	// The publication exists before the slot: nothing published is left out.
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_publication_tables WHERE pubname = 'all_pub'").Scan(&n); err != nil || n != 5 {
		t.Fatalf("all_pub publishes %d tables (%v), want 5 (a, b, fk, p1 as leaf, ui)", n, err)
	}
}

// TestCreateSlotBlocked: slot creation waits for transactions that hold an
// xid; when the caller's deadline passes first, the error names the
// blocking session and no slot is left behind.
func TestCreateSlotBlocked(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	mustExec(t, conn, "CREATE TABLE x (id int)")
	blocker := sqlConn(t, url)
	mustExec(t, blocker, "BEGIN", "INSERT INTO x VALUES (1)")
	// The deadline also covers connecting and IDENTIFY_SYSTEM: generous
	// enough for a loaded machine, since only the slot's wait may use it up.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	_, err := CreateSlot(ctx, url, "blocked")
	if err == nil || !strings.Contains(err.Error(), "blocked by pid") || !strings.Contains(err.Error(), "INSERT INTO x") {
		t.Fatalf("CreateSlot behind an open transaction: %v", err)
	}
	mustExec(t, blocker, "COMMIT")
	time.Sleep(200 * time.Millisecond) // the walsender would have finished by now
	info, err := SlotStatus(t.Context(), conn.PgConn(), "blocked")
	if err != nil || info.Exists {
		t.Fatalf("slot left behind after a timed-out creation: %+v %v", info, err)
	}
}

// TestQuotedIdentifiers: table and column names that need quoting go
// through publication, copy and stream intact; a role without the
// REPLICATION privilege is a fatal configuration error, not a retry loop.
func TestQuotedIdentifiers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, []string{`"Odd Schema"."Odd ""Name"`},
		`CREATE SCHEMA "Odd Schema"`,
		`CREATE TABLE "Odd Schema"."Odd ""Name" ("Weird Col" int PRIMARY KEY, "x""y" text)`,
		`INSERT INTO "Odd Schema"."Odd ""Name" VALUES (1, 'copied')`)
	h.start()
	mustExec(t, h.conn, `INSERT INTO "Odd Schema"."Odd ""Name" VALUES (2, 'streamed')`)
	h.sync()
	h.stop()
	if got := changesOf(h.sink.committed()); !reflect.DeepEqual(got, []string{`insert Odd "Name new['2','streamed']`}) {
		t.Fatalf("streamed %q", got)
	}
	cs := newMemCopySink()
	snap, err := CreateSlot(t.Context(), h.url, h.slotName+"_c")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close(t.Context())
	if err := Copy(t.Context(), CopyOptions{ConnString: h.url}, snap.Snapshot(), []wal.TableName{{Schema: "Odd Schema", Name: `Odd "Name`}}, cs); err != nil {
		t.Fatal(err)
	}
	if got := cs.sorted(`"Odd Schema"."Odd ""Name"`); !reflect.DeepEqual(got, []string{"'1','copied'", "'2','streamed'"}) {
		t.Fatalf("copied %q", got)
	}

	mustExec(t, h.conn, "CREATE ROLE norepl LOGIN")
	t.Cleanup(func() { h.conn.Exec(context.Background(), "DROP ROLE norepl") })
	u := strings.Replace(h.url, "postgres@", "norepl@", 1)
	st, err := NewStreamer(StreamConfig{ConnString: u, Slot: h.slotName, Publication: "pub", Sink: h.sink,
		OnError: func(err error, _ time.Duration) { t.Errorf("retried: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "42501") {
		t.Fatalf("Run as a role without REPLICATION: %v, want a fatal permission error", err)
	}
}
