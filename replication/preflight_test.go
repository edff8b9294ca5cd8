package replication

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
)

func problemChecks(probs []Problem) string {
	var s []string
	for _, p := range probs {
		s = append(s, p.Check)
	}
	return strings.Join(s, ",")
}

func TestPreflight(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	mustExec(t, conn, "CREATE TABLE a (id int PRIMARY KEY)", "CREATE TABLE nokey (x int)")
	spec := PublicationSpec{Name: "pub", Tables: []string{"public.a"}}
	probs, err := Preflight(t.Context(), conn, spec, "pre_main")
	if err != nil || len(probs) != 0 {
		t.Fatalf("ready server: %v %v", probs, err)
	}
	probs, err = Preflight(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.a", "public.nokey"}}, "pre_main")
	if err != nil || problemChecks(probs) != "tables" || !strings.Contains(probs[0].Detail, "public.nokey") {
		t.Fatalf("keyless table: %v %v", probs, err)
	}

	// A role without privileges sees each missing one, with its fix.
	mustExec(t, conn, "CREATE ROLE weak LOGIN")
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP OWNED BY weak; DROP ROLE weak") })
	mustExec(t, conn, "REVOKE CREATE ON DATABASE "+QuoteIdent(conn.Config().Database)+" FROM PUBLIC")
	weak, err := pgx.Connect(t.Context(), strings.Replace(url, "postgres@", "weak@", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer weak.Close(context.Background())
	probs, err = Preflight(t.Context(), weak, spec, "pre_main")
	if err != nil {
		t.Fatal(err)
	}
	if got := problemChecks(probs); got != "privileges,privileges,privileges,privileges" {
		t.Fatalf("weak role: %v", probs)
	}
	for _, want := range []string{"ALTER ROLE \"weak\" REPLICATION", "GRANT SELECT ON \"public\".\"a\"", "CREATE PUBLICATION", "GRANT CREATE ON DATABASE"} {
		found := false
		for _, p := range probs {
			found = found || strings.Contains(p.Fix, want)
		}
		if !found {
			t.Errorf("no fix mentions %q: %v", want, probs)
		}
	}

	// An existing slot held by another consumer is reported.
	if _, err := EnsurePublication(t.Context(), conn, spec); err != nil {
		t.Fatal(err)
	}
	snap, err := CreateSlot(t.Context(), url, "pre_main")
	if err != nil {
		t.Fatal(err)
	}
	snap.Close(t.Context())
	st, err := NewStreamer(StreamConfig{ConnString: url, Slot: "pre_main", Publication: "pub", Sink: newMemSink(snap.LSN)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- st.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitFor(t, 10*time.Second, "stream", func() bool { return st.Stats().Connected })
	waitFor(t, 10*time.Second, "slot active", func() bool {
		info, err := SlotStatus(t.Context(), conn.PgConn(), "pre_main")
		return err == nil && info.Active
	})
	probs, err = Preflight(t.Context(), conn, spec, "pre_main")
	if err != nil || problemChecks(probs) != "slot" || !strings.Contains(probs[0].Detail, "in use") {
		t.Fatalf("slot in use: %v %v", probs, err)
	}
}

func TestPreflightWALLevel(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs its own cluster")
	}
	c, err := pgtest.Start(t.Context(), pgtest.Options{WALLevel: "replica"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	conn := sqlConn(t, c.URL("postgres"))
	mustExec(t, conn, "CREATE TABLE a (id int PRIMARY KEY)")
	probs, err := Preflight(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.a"}}, "s")
	if err != nil || problemChecks(probs) != "wal_level" || !strings.Contains(probs[0].Fix, "wal_level = logical") {
		t.Fatalf("wal_level=replica: %v %v", probs, err)
	}
}
