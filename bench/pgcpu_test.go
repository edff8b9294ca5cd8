package bench

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
)

// TestServerCPUCountsEndedBackends: the server's CPU over a window
// includes a backend that did its work and ended inside it (reaped by
// the postmaster: cutime), as a `\copy` through psql is, and a live
// backend's.
func TestServerCPUCountsEndedBackends(t *testing.T) {
	ctx := t.Context()
	pg, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop() //nolint:errcheck // the test's own server
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	srv, err := serverOf(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	burn := func(c *pgx.Conn) {
		t.Helper()
		// About a second of one backend's CPU.
		if _, err := c.Exec(ctx, "SELECT count(*) FROM generate_series(1, 20000000)"); err != nil {
			t.Fatal(err)
		}
	}
	c0, err := srv.cpu()
	if err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := other.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	burn(other)
	f, err := procStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	own, err := sumFields(f[11:13])
	if err != nil {
		t.Fatal(err)
	}
	ended := time.Duration(own) * time.Second / clockTicks
	other.Close(ctx)
	// Wait until the postmaster reaped it.
	for deadline := time.Now().Add(time.Minute); ; {
		if _, err := procStat(pid); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend %d still there a minute after its connection closed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c1, err := srv.cpu()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ended backend's own CPU %s; server's CPU over the window %s", ended, c1-c0)
	if ended < 100*time.Millisecond {
		t.Fatalf("the backend used %s of CPU: the test needs more", ended)
	}
	if c1-c0 < ended {
		t.Fatalf("server's CPU over the window %s < the ended backend's own %s: a reaped backend's CPU is lost", c1-c0, ended)
	}
}
