package main

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/dirstate"
	"github.com/sidecar-dev/sidecar/verify"
)

// verifyCLI runs `sidecar verify` in-process, as `sidecar` does.
func verifyCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return sidecar(t, append([]string{"verify"}, args...)...)
}

// stopWhenDurable commits marker (one SQL statement changing a followed
// row) and stops the daemon p (API at base) with SIGTERM once its mirror
// is durable past the WAL position before it: the WAL may end with
// records that are no followed commit, which Durable never reaches, so
// the marker is a commit past the writes before it.
func stopWhenDurable(t *testing.T, p *proc, base, url, marker string) {
	t.Helper()
	want := queryLSN(t, url, "SELECT pg_current_wal_insert_lsn()::text")
	mustExec(t, url, marker)
	daemontest.WaitDurable(t, base, want, 0) // the mirror durable past the writes
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("sidecar run exited %d\n%s", code, p.output())
	}
}

// TestVerifyCommandOffline follows a table with `sidecar run`, stops it
// once everything is durable, and verifies the data directory: equal
// (exit 0); then a row changed behind the mirror's back (while the table
// was out of the publication, so the stream never carries it) is named by
// its key (exit 1, text and JSON); then a published commit the mirror has
// not seen makes verify refuse (exit 2).
func TestVerifyCommandOffline(t *testing.T) {
	url := pg.NewDB(t)
	mustExec(t, url, "CREATE TABLE items (id int PRIMARY KEY, n bigint NOT NULL, note text)",
		"INSERT INTO items SELECT g, g, 'item ' || g FROM generate_series(1, 3000) g")
	file, dataDir := runConfig(t, url, "public.items")
	p := sidecarProcess(t, "run", "--config", file)
	base := p.waitListen(t)
	waitFor(t, "readyz 200", 60*time.Second, func() bool { code, _ := httpBody(t, base+"/readyz"); return code == 200 })
	mustExec(t, url, "UPDATE items SET n = n + 1 WHERE id % 10 = 0", "DELETE FROM items WHERE id > 2990")
	stopWhenDurable(t, p, base, url, "UPDATE items SET note = note WHERE id = 1")

	before := dirstate.Of(t, dataDir)
	out, errOut, code := verifyCLI(t, "--config", file)
	if code != 0 || !strings.Contains(out, "public.items") || !strings.Contains(out, "equal") {
		t.Fatalf("verify of an untouched mirror: exit %d\n%s\n%s", code, out, errOut)
	}
	// It read the data directory read-only: nothing written.
	dirstate.Unchanged(t, "an offline verify", dataDir, before)

	// Change a row while the table is out of the publication: pgoutput
	// never sends it, so only verify can notice.
	mustExec(t, url, "ALTER PUBLICATION sidecar DROP TABLE items",
		"UPDATE items SET note = 'behind your back' WHERE id = 1234",
		"ALTER PUBLICATION sidecar ADD TABLE items")
	out, errOut, code = verifyCLI(t, "--config", file, "--table", "items")
	if code != 1 || !strings.Contains(out, "changed key (1234)") || !strings.Contains(out, `note="behind your back"`) || !strings.Contains(out, `note="item 1234"`) {
		t.Fatalf("verify after a hidden change: exit %d, want 1 naming key 1234 with both rows\n%s\n%s", code, out, errOut)
	}
	out, _, code = verifyCLI(t, "--config", file, "--format", "json")
	var rep verify.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("--format json: exit %d, %v\n%s", code, err, out)
	}
	if len(rep.Tables) != 1 || rep.Tables[0].Differences != 1 || rep.Tables[0].Rows[0].Kind != "changed" ||
		strings.Join(rep.Tables[0].Rows[0].Key, ",") != "1234" || rep.Tables[0].Hash == "" || rep.LSN == "" {
		t.Fatalf("--format json report: %+v", rep)
	}

	_, errOut, code = verifyCLI(t, "--config", file, "--table", "public.nope")
	if code != 2 || !strings.Contains(errOut, "public.nope") {
		t.Fatalf("unknown table: exit %d, want 2 naming it\n%s", code, errOut)
	}
	_, errOut, code = verifyCLI(t, "--config", file, "--format", "yaml")
	if code != 2 || !strings.Contains(errOut, "--format") {
		t.Fatalf("bad format: exit %d\n%s", code, errOut)
	}

	// A published commit the stopped mirror has not applied: verify
	// cannot compare, and says why.
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), "UPDATE items SET n = 0 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = verifyCLI(t, "--config", file)
	if code != 2 || !strings.Contains(errOut, "has not reached the pinned LSN") || !strings.Contains(errOut, "sidecar run") {
		t.Fatalf("verify with a published commit beyond the mirror: exit %d, want 2 explaining it\n%s", code, errOut)
	}
}
