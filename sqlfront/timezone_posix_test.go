package sqlfront_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestTimeZonePOSIXRules (issue 21, SET TIME ZONE item): a POSIX zone
// with daylight-saving rules, which PostgreSQL accepts, is refused with
// 0A000 naming it (sidecar does not compute its rules), never 22023 as
// an unknown zone; a value of that shape PostgreSQL refuses (a month 13,
// a rule cut short) keeps PostgreSQL's 22023; the session's zone stays
// what it was, and fixed POSIX offsets are still taken. Without a server
// to ask, the shape alone is refused 0A000. On 2f71b81 every accepted
// value failed 22023 ("invalid value for parameter").
func TestTimeZonePOSIXRules(t *testing.T) {
	r := newRig(t, []string{"public.tzt"}, tzTables)
	ctx := context.Background()
	values := []string{
		"CST7CDT,M4.1.0,M10.5.0", "EST5EDT4,M3.2.0/2,M11.1.0/2", "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", "AAA3BBB,J60/2,J300/2",
		"XXX-1YYY,70,300", "CST7CDT", "cet-1cest,m3.5.0,m10.5.0/3",
		"CST7CDT,M13.1.0,M10.5.0", "CST7CDT,M4.1.0", "CST7CDT,M4.1.0,M10.5.0,", "CST7CDT,X1,M10.5.0",
	}
	code := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Code
		}
		return ""
	}
	pgc, err := pgx.Connect(ctx, r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	noServer := "postgres://app@" + r.serve(t, sqlfront.Options{}) + "/app?sslmode=disable"
	for _, url := range []string{tzServe(t, r), noServer} {
		scc, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := scc.Exec(ctx, "SET TimeZone = 'UTC+3'"); err != nil {
			t.Fatalf("SET TimeZone = 'UTC+3': %v", err)
		}
		accepted := 0
		for _, v := range values {
			set := "SET TIME ZONE '" + v + "'"
			_, werr := pgc.Exec(ctx, set)
			_, gerr := scc.Exec(ctx, set)
			switch {
			case werr == nil:
				accepted++
				if code(gerr) != "0A000" || !strings.Contains(gerr.Error(), v) || !strings.Contains(gerr.Error(), "POSIX") {
					t.Errorf("%s: PostgreSQL accepts it; sidecar %v, want 0A000 naming the zone", set, gerr)
				}
			case code(werr) != "22023":
				t.Fatalf("%s: PostgreSQL %v", set, werr)
			case url == noServer:
				if c := code(gerr); c != "22023" && c != "0A000" {
					t.Errorf("%s: PostgreSQL 22023; sidecar without a server to ask %v, want 22023 or 0A000", set, gerr)
				}
			case code(gerr) != "22023":
				t.Errorf("%s: PostgreSQL %v; sidecar %v, want 22023", set, werr, gerr)
			}
			var zone string
			if err := scc.QueryRow(ctx, "SHOW TimeZone").Scan(&zone); err != nil || zone != "UTC+3" {
				t.Errorf("after %s: SHOW TimeZone %q %v, want the zone before (UTC+3)", set, zone, err)
			}
		}
		if accepted < 5 {
			t.Errorf("PostgreSQL accepted %d of the values: the test's POSIX zones are not what it takes", accepted)
		}
		scc.Close(ctx)
	}
}
