package sqlfront_test

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// versionAnswers is what a client learns of the server's version: the
// startup ParameterStatus, SHOW, current_setting and pg_settings.
func versionAnswers(t *testing.T, url string) map[string]string {
	t.Helper()
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	out := map[string]string{"ParameterStatus server_version": c.ParameterStatus("server_version")}
	for _, q := range []string{"SHOW server_version", "SHOW server_version_num", "SELECT current_setting('server_version_num')",
		"SELECT setting FROM pg_settings WHERE name = 'server_version_num'", "SELECT current_setting('server_version_num')::int / 10000"} {
		res := c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if res.Err != nil || len(res.Rows) != 1 {
			out[q] = "ERR " + errText(res.Err)
			continue
		}
		out[q] = string(res.Rows[0][0])
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "no row"
	}
	return err.Error()
}

// followLive follows a new database's marker table with a daemon
// serving SQL (stopped when the test ends) and returns the database's
// URL and the SQL port's, once the port serves the marker.
func followLive(t *testing.T) (url, sqlURL string) {
	t.Helper()
	url = pg.NewDB(t)
	execSQL(t, url, markerSetup)
	sqlURL = daemonSQL(t, url, []string{"public.marker"}, t.TempDir(), io.Discard)
	ctx := context.Background()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		c, err := pgconn.Connect(ctx, sqlURL)
		if err == nil {
			err = c.ExecParams(ctx, "SELECT n FROM marker WHERE id = 1", nil, nil, nil, nil).Read().Err
			c.Close(ctx)
		}
		if err == nil {
			return url, sqlURL
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SQL port did not serve marker in 2 minutes: %v", err)
		}
	}
}

// Issue 21 (wrong answers): the daemon's SQL port advertised
// "16.0 (sidecar)" / 160000 whatever major it followed, so psql, pgjdbc
// and SQLAlchemy chose the catalog queries of another server. It
// advertises the followed server's version, as PostgreSQL reports it.
func TestServerVersionFollowed(t *testing.T) {
	url, sqlURL := followLive(t)
	want := versionAnswers(t, url)
	if want["ParameterStatus server_version"] != pg.ServerVersionString() {
		t.Fatalf("PostgreSQL reports %q, the cluster %q", want["ParameterStatus server_version"], pg.ServerVersionString())
	}
	got := versionAnswers(t, sqlURL)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: sidecar %q, PostgreSQL %q", k, got[k], w)
		}
	}
}

// Without a version from the daemon (or with one the followed tables'
// catalog facts contradict: the server was upgraded since), the front
// end advertises the facts' version: never one of another major.
func TestServerVersionFromFacts(t *testing.T) {
	r := historyRig(t)
	num := strconv.Itoa(pg.ServerVersion())
	short := strconv.Itoa(pg.ServerVersion()/10000) + "." + strconv.Itoa(pg.ServerVersion()%10000)
	for _, opt := range []string{"", "13.4 (an older server)"} {
		addr := serveSQL(t, sqlfront.Options{Source: r.src, ServerVersion: opt}).Addr()
		got := versionAnswers(t, "postgres://app@"+addr+"/app?sslmode=disable")
		if got["SHOW server_version_num"] != num || got["SHOW server_version"] != short || got["ParameterStatus server_version"] != short {
			t.Errorf("ServerVersion %q: %v, want %s (%s)", opt, got, short, num)
		}
	}
	// The daemon's string (with the server's suffix) when it agrees.
	addr := r.serve(t, sqlfront.Options{ServerVersion: pg.ServerVersionString()})
	got := versionAnswers(t, "postgres://app@"+addr+"/app?sslmode=disable")
	if got["SHOW server_version"] != pg.ServerVersionString() || !strings.HasPrefix(got["SHOW server_version_num"], num) {
		t.Errorf("ServerVersion %q: %v", pg.ServerVersionString(), got)
	}
}
