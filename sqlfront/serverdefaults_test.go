package sqlfront_test

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Issue 21 (wrong answers): a session of the daemon's SQL port started
// at UTC whatever the followed server's TimeZone, so psql (which sends
// none) printed every timestamptz in another zone than PostgreSQL did —
// five hours off for a server at America/New_York — and SHOW TimeZone
// said UTC where PostgreSQL says Etc/UTC (Debian's default). A session
// now starts from the server's TimeZone, DateStyle and IntervalStyle
// (database settings included), read again while the daemon runs; a
// DateStyle sidecar does not print refuses the statements that would
// print under it.
func TestSessionDefaultsFollowServer(t *testing.T) {
	url := pg.NewDB(t)
	setDB := func(setting, value string) {
		t.Helper()
		execSQL(t, url, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET "+setting+" = %L', current_database(), '"+value+"'); END $$")
	}
	execSQL(t, url, markerSetup,
		"CREATE TABLE ev (id int PRIMARY KEY, at timestamptz, d date, span interval)",
		"INSERT INTO ev VALUES (1, '2024-03-10 06:30:00+00', '2024-03-10', '1 day 02:00'), (2, '2024-11-03 05:59:59+00', '2024-11-03', '-3 hours'), (3, NULL, NULL, NULL)")
	setDB("timezone", "America/New_York")
	sqlURL := daemonSQL(t, url, []string{"public.marker", "public.ev"}, t.TempDir(), io.Discard)
	waitServed(t, sqlURL, "SELECT id FROM ev WHERE id = 3")

	same := psqlAtSame(t, url, sqlURL)
	same("SHOW TimeZone", "SELECT current_setting('TimeZone')",
		"SELECT id, at FROM ev ORDER BY id",
		"SELECT id, at::date, at::time, extract(hour from at), to_char(at, 'YYYY-MM-DD HH24:MI') FROM ev ORDER BY id",
		"SELECT date_trunc('day', at) FROM ev ORDER BY id",
		"SELECT count(*) FROM ev WHERE at < '2024-03-10 02:00'",
		"SELECT d::timestamptz FROM ev ORDER BY id",
		"RESET TimeZone; SHOW TimeZone",
		"SET TimeZone = 'UTC'; SELECT at FROM ev ORDER BY id",
		"SHOW DateStyle", "SHOW IntervalStyle")

	// A change on the server reaches new sessions while the daemon runs;
	// DateStyle ISO with another field order prints the same.
	setDB("timezone", "Asia/Tokyo")
	setDB("datestyle", "ISO, DMY")
	waitAnswer(t, sqlURL, "SELECT current_setting('TimeZone') || ' ' || current_setting('DateStyle')", "Asia/Tokyo ISO, DMY")
	same("SELECT id, at, d FROM ev ORDER BY id", "SHOW TimeZone", "SHOW DateStyle")

	// Another DateStyle: result columns print under it, in the server's
	// zone with its abbreviation (refused 0A000 on 4f1044f); a value
	// printed inside the statement is refused where it would print under
	// it, as an interval printed inside it under IntervalStyle iso_8601.
	setDB("datestyle", "SQL, DMY")
	setDB("intervalstyle", "iso_8601")
	waitAnswer(t, sqlURL, "SELECT current_setting('DateStyle') || ' ' || current_setting('IntervalStyle')", "SQL, DMY iso_8601")
	same("SELECT n FROM marker", "SHOW DateStyle", "SHOW IntervalStyle",
		"SELECT id, at FROM ev ORDER BY id", "SELECT d FROM ev WHERE id = 1", "SELECT id, at, d, span FROM ev ORDER BY id")
	setDB("datestyle", "German")
	waitAnswer(t, sqlURL, "SELECT current_setting('DateStyle')", "German, DMY")
	same("SHOW DateStyle", "SELECT id, at, d FROM ev ORDER BY id", "SELECT max(at), min(d) FROM ev")
	setDB("datestyle", "Postgres, MDY")
	waitAnswer(t, sqlURL, "SELECT current_setting('DateStyle')", "Postgres, MDY")
	same("SHOW DateStyle", "SELECT id, at, d FROM ev ORDER BY id", "SET TimeZone = 'UTC'; SELECT at, at::date FROM ev ORDER BY id")
	for _, q := range []string{"SELECT at::text FROM ev ORDER BY id", "SELECT id, span::text FROM ev ORDER BY id"} {
		got, err := psql(t, sqlURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
		if err == nil || !strings.Contains(got, "0A000") || !strings.Contains(got, "Style") {
			t.Errorf("%s under DateStyle SQL, DMY and IntervalStyle iso_8601: want 0A000 naming the style, got %q (%v)", q, got, err)
		}
	}
	// Values printed inside an expression, or by a statement without a
	// table: PostgreSQL's answer or 0A000. Before, `SELECT interval '1 day
	// 2 hours'` answered 1 day 02:00:00 (PostgreSQL P1DT2H), to_json,
	// row(), || and format printed dates in ISO and intervals in the
	// postgres style.
	sameOrRefused(t, url, sqlURL, "SELECT interval '1 day 2 hours'", "SELECT to_json(interval '1 day')", "SELECT (interval '1 day')::text",
		"SELECT justify_hours(interval '50 hours')", "SELECT date_trunc('hour', interval '3 days 4 hours 5 minutes')", "SELECT interval '1 day' || 'x'",
		"SELECT row(date '2024-03-05')", "SELECT date '2024-03-05' || 'x'", "SELECT format('%s', date '2024-03-05')",
		"SELECT d || 'x', row(d), format('%s', span) FROM ev ORDER BY id", "SELECT to_json(span), span::text FROM ev ORDER BY id",
		"SELECT count(*) FROM ev WHERE d > '2024-01-01'", "SELECT span FROM ev ORDER BY id")
}

// sameOrRefused checks that each statement answers as PostgreSQL does or
// is refused 0A000 (psql -At, one session each).
func sameOrRefused(t *testing.T, pgURL, sqlURL string, stmts ...string) {
	t.Helper()
	psqlCheck{sqlURL: sqlURL, pgURL: pgURL}.withArgs("-At").orRefused().same(t, stmts...)
}

// waitServed waits until the SQL port answers q (the daemon copied the
// tables).
func waitServed(t *testing.T, sqlURL, q string) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		c, err := pgconn.Connect(ctx, sqlURL)
		if err == nil {
			res := c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
			err = res.Err
			if err == nil && len(res.Rows) == 0 {
				err = errNoRow
			}
			c.Close(ctx)
		}
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SQL port did not answer %s in 2 minutes: %v", q, err)
		}
	}
}

// waitAnswer waits until a new session of the SQL port answers q with
// want (the daemon reads the server's session defaults every 30 s).
func waitAnswer(t *testing.T, sqlURL, q, want string) {
	t.Helper()
	ctx := context.Background()
	var last string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		c, err := pgconn.Connect(ctx, sqlURL)
		if err == nil {
			res := c.ExecParams(ctx, q, nil, nil, nil, nil).Read()
			if res.Err == nil && len(res.Rows) == 1 {
				last = string(res.Rows[0][0])
			}
			c.Close(ctx)
		}
		if last == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s on a new session: %q after 2 minutes, want %q", q, last, want)
		}
	}
}

type noRowError struct{}

func (noRowError) Error() string { return "no row" }

var errNoRow error = noRowError{}

// A server zone the sidecar has no tz data for (a slim container image
// without tzdata: ZONEINFO pointing nowhere here) does not fail the
// connection: SHOW prints the server's zone, statements without date/time
// values are answered, those with them refused 0A000 naming the zone,
// and a SET TimeZone to a zone it can use answers them. UTC and Etc/UTC
// need no data.
func TestSessionDefaultsZoneWithoutData(t *testing.T) {
	url := pg.NewDB(t)
	setDB := func(value string) {
		t.Helper()
		execSQL(t, url, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET timezone = %L', current_database(), '"+value+"'); END $$")
	}
	execSQL(t, url, markerSetup,
		"CREATE TABLE ev (id int PRIMARY KEY, at timestamptz)",
		"INSERT INTO ev VALUES (1, '2024-03-10 06:30:00+00'), (2, NULL)")
	setDB("America/New_York")
	t.Setenv("ZONEINFO", filepath.Join(t.TempDir(), "no-tzdata"))
	sqlURL := daemonSQL(t, url, []string{"public.marker", "public.ev"}, t.TempDir(), io.Discard)
	waitServed(t, sqlURL, "SELECT n FROM marker WHERE id = 1")
	same := psqlAtSame(t, url, sqlURL)
	same("SHOW TimeZone", "SELECT n FROM marker", "SET TimeZone = 'UTC'; SELECT id, at FROM ev ORDER BY id", "SET TimeZone = '-05:00'; SELECT at FROM ev ORDER BY id")
	for _, q := range []string{"SELECT id, at FROM ev ORDER BY id", "SELECT '2024-03-10 06:30:00+00'::timestamptz",
		"SELECT '2024-03-10 02:00'::timestamptz < '2024-03-10 06:30:00+00'::timestamptz", "SELECT now() > '2020-01-01'", "SELECT now()", "SET TimeZone = 'UTC'; RESET TimeZone; SELECT at FROM ev"} {
		got, err := psql(t, sqlURL, "-At", "-v", "VERBOSITY=verbose", "-c", q)
		if err == nil || !strings.Contains(got, "0A000") || !strings.Contains(got, "America/New_York") {
			t.Errorf("%s under a server zone without tz data: want 0A000 naming it, got %q (%v)", q, got, err)
		}
	}
	setDB("Etc/UTC")
	waitAnswer(t, sqlURL, "SHOW TimeZone", "Etc/UTC")
	same("SELECT id, at FROM ev ORDER BY id", "SHOW TimeZone")
}
