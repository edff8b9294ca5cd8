package preflight

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/wal"
)

func TestCheckVersionOnStandby(t *testing.T) {
	for _, tc := range []struct {
		num  int
		want Status
	}{{150004, Fail}, {160000, OK}, {180004, OK}} {
		c := checkVersion(serverFacts{versionNum: tc.num, version: "x.y", standby: true})
		if c.Status != tc.want || (c.Status == Fail) != (c.Fix != "") || !strings.Contains(c.Detail, "standby") {
			t.Errorf("standby of version %d: %+v, want %s naming the standby, with a fix iff failed", tc.num, c, tc.want)
		}
	}
	c := checkPublicationPrivilege(serverFacts{publicationName: "sidecar", superuser: true, standby: true}, false, false, nil)
	if c.Status != Fail || !strings.Contains(c.Fix, "on the primary") {
		t.Errorf("missing publication on a standby: %+v, want a failure saying to create it on the primary", c)
	}
}

// TestStandbyChecks runs sidecar check against a real streaming standby:
// on 16 and newer it is ready once the publication exists (made on the
// primary); before 16 server_version fails saying to use the primary.
func TestStandbyChecks(t *testing.T) {
	primary, err := pgtest.Start(t.Context(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = primary.Stop() })
	exec(t, primary.URL("postgres"), "CREATE TABLE items (id int PRIMARY KEY)")
	standby, err := primary.StartStandby(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standby.Stop() })
	params := Params{URL: standby.URL("postgres"), Tables: []string{"items"}, Publication: "sidecar", Slot: "sidecar"}

	r := Run(t.Context(), params)
	t.Logf("PostgreSQL %s standby, no publication:\n%s", standby.ServerVersionString(), text(t, r))
	v := find(t, r, "server_version")
	if standby.ServerVersion() < 160000 {
		if v.Status != Fail || !strings.Contains(v.Fix, "primary") || r.Ready() {
			t.Fatalf("server_version on a %s standby = %+v, want a failure pointing at the primary", standby.ServerVersionString(), v)
		}
		return
	}
	if v.Status != OK || !strings.Contains(v.Detail, "standby") {
		t.Errorf("server_version on a standby = %+v", v)
	}
	if p := find(t, r, "publication_privilege"); p.Status != Fail || !strings.Contains(p.Fix, "on the primary") {
		t.Errorf("publication_privilege on a standby without the publication = %+v", p)
	}

	exec(t, primary.URL("postgres"), "CREATE PUBLICATION sidecar FOR TABLE items")
	// Wait until the standby has replayed it.
	lsn := daemontest.InsertLSN(t, primary.URL("postgres"))
	waitReplayed(t, standby.URL("postgres"), lsn)
	r = Run(t.Context(), params)
	if !r.Ready() {
		t.Fatalf("a standby with the publication is not ready:\n%s", text(t, r))
	}
}

// waitReplayed waits until the standby at url has replayed the WAL up
// to lsn.
func waitReplayed(t *testing.T, url string, lsn wal.LSN) {
	t.Helper()
	var last string
	daemontest.Eventually(t, fmt.Sprintf("standby replayed %s", lsn), 0, func() bool {
		got, err := daemontest.QueryLSN(url, "SELECT pg_last_wal_replay_lsn()::text")
		last = fmt.Sprint(got, err)
		return err == nil && got >= lsn
	}, func() string { return "last replay position: " + last })
}

func queryRow(t *testing.T, url, sql string, dest ...any) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(t.Context(), sql).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
