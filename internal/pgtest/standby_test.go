package pgtest

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/config"
)

func TestStandbyStreamsFromPrimary(t *testing.T) {
	c, err := Start(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() }) // after NewDB's cleanup
	url := c.NewDB(t)
	primary := connect(t, url)
	if _, err := primary.Exec(t.Context(), "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	s, err := c.StartStandby(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	if s.Port() == c.Port() || s.Dir() == c.Dir() {
		t.Fatalf("standby shares port %d or dir %s with its primary", s.Port(), s.Dir())
	}
	primary = connect(t, url) // the clone restarted the primary
	if _, err := primary.Exec(t.Context(), "INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	standby := connect(t, s.URL(dbNameOf(t, url)))
	var recovery bool
	if err := standby.QueryRow(t.Context(), "SELECT pg_is_in_recovery()").Scan(&recovery); err != nil || !recovery {
		t.Fatalf("pg_is_in_recovery() on the standby = %v, %v; want true", recovery, err)
	}
	// The row committed after the clone arrives through streaming.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := standby.QueryRow(t.Context(), "SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("standby has %d rows of t 30 s after the insert, want 2\n%s", n, s.ServerLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := standby.Exec(t.Context(), "INSERT INTO t VALUES (3)"); err == nil {
		t.Error("a write on the standby succeeded")
	}
}

// dbNameOf is the database name of a postgres:// URL.
func dbNameOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// TestEnvBinDirIsNoConfigKey: the config loader refuses unknown SIDECAR_*
// variables, so it must know this one (the demo and the tests' sidecar
// processes run with it set).
func TestEnvBinDirIsNoConfigKey(t *testing.T) {
	if EnvBinDir != config.EnvPGBin {
		t.Fatalf("pgtest reads %s, config exempts %s", EnvBinDir, config.EnvPGBin)
	}
}
