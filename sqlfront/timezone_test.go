package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// tzTables hold instants around daylight-saving changes of the zones
// the tests use, historical ones (local mean time) and far ones; ts and
// d are local times inside a gap and an overlap.
var tzTables = []string{
	"CREATE TABLE tzt (id int PRIMARY KEY, tsz timestamptz, ts timestamp, d date)",
	"INSERT INTO tzt VALUES " +
		"(1, '2021-03-28 00:59:59.5+00', '2021-03-28 02:30', '2021-03-28'), (2, '2021-03-28 01:00:00+00', '2021-10-31 02:30', '2021-10-31'), " +
		"(3, '2021-10-31 00:30+00', '2021-03-14 02:30', '2021-03-14'), (4, '2021-10-31 01:30+00', '2021-11-07 01:30', '2021-11-07'), " +
		"(5, '2021-03-14 06:59+00', '2021-04-04 01:45', '2021-04-04'), (6, '2021-11-07 05:30+00', '2021-10-03 02:15', '2021-10-03'), " +
		"(7, '2021-04-03 14:45+00', '2021-04-04 03:15', '2021-09-26'), (8, '2021-10-02 15:30+00', '2021-09-26 02:50', '2021-04-04'), " +
		"(9, '1850-01-01 12:00+00', '1850-01-01 00:00', '1850-01-01'), (10, '1900-06-01 00:00+00', '1945-05-01 12:00', '1901-12-13'), " +
		"(11, '1999-12-31 23:59:59.999999+00', '2000-01-01 00:00', '2000-01-01'), (12, '2100-07-01 12:00+00', '2100-07-01 12:00', '2100-07-01'), " +
		"(13, '0044-03-15 12:00+00 BC', '0044-03-15 12:00 BC', '0044-03-15 BC'), (14, 'infinity', '-infinity', 'infinity'), (15, NULL, NULL, NULL), " +
		"(16, '2021-04-03 15:00+00', '2021-04-04 01:59', '2021-04-03'), (17, '1883-11-18 17:00+00', '1883-11-18 12:03:58', '1883-11-18')",
}

// tzZones are the session zones the differential tests run under.
var tzZones = []string{"Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham", "UTC", "UTC+3", "-05:30", "europe/berlin", "5"}

// TestTimeZoneDifferential: under each session TimeZone (sent in the
// startup packet, as pgjdbc does), timestamptz output, input without an
// offset, casts, date_trunc/extract/date_part/to_char, AT TIME ZONE and
// timestamptz ± interval answer as PostgreSQL, on the flat path and on
// sql/exec, in text and binary format.
func TestTimeZoneDifferential(t *testing.T) {
	r := newRig(t, []string{"public.tzt"}, tzTables)
	sqlURL := tzServe(t, r)
	from := " FROM (SELECT * FROM tzt) s"
	queries := []string{
		"SHOW TimeZone",
		"SELECT id, tsz FROM tzt ORDER BY id",
		"SELECT id, tsz FROM tzt WHERE id = 9",
		"SELECT id, tsz, tsz::text, tsz::date, tsz::time, tsz::timestamp, ts::timestamptz, d::timestamptz" + from + " ORDER BY id",
		"SELECT id, date_trunc('day', tsz), date_trunc('hour', tsz), date_trunc('month', tsz), date_trunc('week', tsz), date_trunc('minute', tsz)" + from + " ORDER BY id",
		"SELECT id, extract(hour from tsz), extract(day from tsz), extract(timezone from tsz), extract(timezone_hour from tsz), extract(timezone_minute from tsz), extract(epoch from tsz), date_part('dow', tsz)" + from + " ORDER BY id",
		"SELECT id, to_char(tsz, 'YYYY-MM-DD HH24:MI:SS Dy'), tsz + interval '1 day', tsz - interval '1 month 2 hours', tsz + interval '24 hours', tsz + interval '1 mon'" + from + " WHERE id <> 13 ORDER BY id",
		"SELECT id, tsz AT TIME ZONE 'America/New_York', ts AT TIME ZONE 'Asia/Kolkata', tsz AT TIME ZONE 'EST', ts AT TIME ZONE 'cet', tsz AT TIME ZONE interval '+05:30', ts AT TIME ZONE 'UTC+3'" + from + " ORDER BY id",
		"SELECT id, date_trunc('day', tsz, 'Australia/Lord_Howe'), date_trunc('hour', tsz, 'Asia/Kolkata'), ts AT TIME ZONE 'Europe/Berlin' AT TIME ZONE 'Pacific/Chatham'" + from + " ORDER BY id",
		"SELECT '2021-03-28 02:30'::timestamptz, '2021-10-31 02:30'::timestamptz, '2021-03-14 02:30'::timestamptz, '2021-11-07 01:30'::timestamptz, '1850-01-01 00:00'::timestamptz, '2021-06-01 12:00+02'::timestamptz" + from + " WHERE id = 1",
		"SELECT id FROM tzt WHERE tsz >= '2021-03-28 03:00' AND tsz < '2021-11-01' ORDER BY id",
		"SELECT id FROM tzt WHERE tsz::date = '2021-10-31' ORDER BY id",
		"SELECT count(*) FROM tzt WHERE tsz > now() - interval '1 day'",
		"SELECT 'x' || tsz" + from + " WHERE id < 3 ORDER BY id",
		"SELECT date_trunc('day', tsz) AS day, count(*) FROM tzt GROUP BY 1 ORDER BY 1",
		"SELECT tsz AT TIME ZONE 'Nowhere/Zone'" + from + " WHERE id = 1",
		"SELECT id, format('%s|%L', tsz, tsz), concat(tsz, '/', id), concat_ws(',', tsz, ts), array_to_string(ARRAY[tsz], ';')" + from + " WHERE id IN (1, 9, 13, 15) ORDER BY id",
	}
	ctx := context.Background()
	code := sqlState
	connect := func(url, zone string, mode pgx.QueryExecMode) *pgx.Conn { return connectZoneMode(t, url, zone, mode) }
	for _, zone := range tzZones {
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheDescribe} {
			pgc, scc := connect(r.pgURL, zone, mode), connect(sqlURL, zone, mode)
			for _, q := range queries {
				want, werr := rowsOf(ctx, pgc, q)
				got, gerr := rowsOf(ctx, scc, q)
				switch {
				case werr != nil || gerr != nil:
					if code(werr) != code(gerr) {
						t.Errorf("TimeZone %s, mode %v: %s:\n PostgreSQL %q %v\n sidecar    %q %v", zone, mode, q, want, werr, got, gerr)
					}
				case !slices.Equal(want, got):
					t.Errorf("TimeZone %s, mode %v: %s:\n PostgreSQL %q\n sidecar    %q", zone, mode, q, want, got)
				}
			}
			pgc.Close(ctx)
			scc.Close(ctx)
		}
	}
}

// TestTimeZoneSetting: SET/RESET/SHOW TimeZone take PostgreSQL's forms
// (names in any case, POSIX offsets, numbers, INTERVAL, LOCAL/DEFAULT)
// and refuse an unknown zone with 22023, as PostgreSQL; the startup
// packet's options (-c TimeZone=…, psql's PGOPTIONS) set it too.
func TestTimeZoneSetting(t *testing.T) {
	r := newRig(t, []string{"public.tzt"}, tzTables)
	ctx := context.Background()
	steps := []string{
		"SET TimeZone = 'america/new_york'", "SET TIME ZONE 'UTC+3'", "SET TIME ZONE -7", "SET TIME ZONE 5.5",
		"SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE", "SET TimeZone = '<+05>-5'", "SET TimeZone = 'Nowhere/Zone'", "SET TimeZone = 'PST'",
		"SET TimeZone = 'EST'", "SET TimeZone = 'Zulu'", "SET TimeZone = '+05:30'", "RESET TimeZone", "SET TIME ZONE LOCAL", "SET TIME ZONE DEFAULT",
		"SET TimeZone = 'Asia/Kolkata'", "RESET ALL",
	}
	sqlURL := tzServe(t, r)
	pgc := connectTZOptions(t, r.pgURL, "Europe/Berlin")
	scc := connectTZOptions(t, sqlURL, "Europe/Berlin")
	defer pgc.Close(ctx)
	defer scc.Close(ctx)
	for _, s := range steps {
		_, werr := pgc.Exec(ctx, s)
		_, gerr := scc.Exec(ctx, s)
		var wc, gc string
		var pe *pgconn.PgError
		if errors.As(werr, &pe) {
			wc = pe.Code
		}
		if errors.As(gerr, &pe) {
			gc = pe.Code
		}
		if wc != gc || (werr == nil) != (gerr == nil) {
			t.Errorf("%s: PostgreSQL %v, sidecar %v", s, werr, gerr)
		}
		want, _ := rowsOf(ctx, pgc, "SHOW TimeZone")
		got, _ := rowsOf(ctx, scc, "SHOW TimeZone")
		if !slices.Equal(want, got) {
			t.Errorf("after %s: SHOW TimeZone: PostgreSQL %q, sidecar %q", s, want, got)
		}
		if pgc.PgConn().ParameterStatus("TimeZone") != scc.PgConn().ParameterStatus("TimeZone") {
			t.Errorf("after %s: ParameterStatus TimeZone: PostgreSQL %q, sidecar %q", s, pgc.PgConn().ParameterStatus("TimeZone"), scc.PgConn().ParameterStatus("TimeZone"))
		}
		q := "SELECT tsz FROM tzt WHERE id = 9"
		want, _ = rowsOf(ctx, pgc, q)
		got, _ = rowsOf(ctx, scc, q)
		if !slices.Equal(want, got) {
			t.Errorf("after %s: %s: PostgreSQL %q, sidecar %q", s, q, want, got)
		}
	}
	// An unknown zone in the startup packet fails the connection as
	// PostgreSQL's does (22023).
	for _, url := range []string{r.pgURL, sqlURL} {
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["TimeZone"] = "Nowhere/Zone"
		_, err = pgx.ConnectConfig(ctx, cfg)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "22023" {
			t.Errorf("%s: connecting with TimeZone=Nowhere/Zone: want 22023, got %v", url, err)
		}
	}
}

// tzServe serves the rig's mirror with the zone data checked against
// the rig's PostgreSQL (as the daemon does) and returns its URL.
func tzServe(t *testing.T, r *rig) string {
	ask := func(ctx context.Context, zone string, instants []int64) ([]int64, error) {
		conn, err := pgx.Connect(ctx, r.pgURL)
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		return sqlfront.AskZoneOffsets(ctx, conn, zone, instants)
	}
	return "postgres://app@" + r.serve(t, sqlfront.Options{ZoneOffsets: ask, StatementTimeout: time.Minute, MaxConnections: 20}) + "/app?sslmode=disable"
}

// connectTZOptions connects with -c TimeZone=zone in the startup
// packet's options (what psql sends for PGOPTIONS).
func connectTZOptions(t *testing.T, url, zone string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["options"] = fmt.Sprintf("-c TimeZone=%s", zone)
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("connect with options -c TimeZone=%s: %v", zone, err)
	}
	return conn
}

// TestTimeZoneDataVerified: a zone of the tz database is used only once
// the followed server confirmed its offsets (Options.ZoneOffsets): when
// they differ, or the server cannot be asked, SET and the startup
// packet are refused with 0A000 naming the zone; fixed offsets need no
// asking; the verdict is asked once per zone.
func TestTimeZoneDataVerified(t *testing.T) {
	r := newRig(t, []string{"public.tzt"}, tzTables)
	ctx := context.Background()
	asked := 0
	lie := func(_ context.Context, zone string, instants []int64) ([]int64, error) {
		asked++
		if zone == "Asia/Kolkata" {
			return nil, errors.New("no connection")
		}
		out := make([]int64, len(instants))
		for i := range out {
			out[i] = 3600 // not Berlin's in summer
		}
		return out, nil
	}
	for _, fn := range []sqlfront.ZoneOffsetsFunc{lie, nil} {
		url := "postgres://app@" + r.serve(t, sqlfront.Options{ZoneOffsets: fn}) + "/app?sslmode=disable"
		conn := connectMode(t, url, pgx.QueryExecModeSimpleProtocol)
		for _, c := range []struct {
			set, code string
		}{{"SET TimeZone = 'Europe/Berlin'", "0A000"}, {"SET TimeZone = 'Europe/Berlin'", "0A000"}, {"SET TimeZone = 'Asia/Kolkata'", "0A000"},
			{"SET TimeZone = 'UTC+3'", ""}, {"SET TIME ZONE 5", ""}, {"SET TimeZone = 'UTC'", ""}, {"SET TimeZone = 'Nowhere/Zone'", "22023"}} {
			_, err := conn.Exec(ctx, c.set)
			var pe *pgconn.PgError
			got := ""
			if errors.As(err, &pe) {
				got = pe.Code
			}
			if got != c.code || c.code == "0A000" && !strings.Contains(pe.Message, "TimeZone") {
				t.Errorf("%s: want %q, got %v", c.set, c.code, err)
			}
		}
		conn.Close(ctx)
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["TimeZone"] = "Europe/Berlin"
		_, err = pgx.ConnectConfig(ctx, cfg)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" {
			t.Errorf("startup packet TimeZone=Europe/Berlin with unconfirmed tz data: want 0A000, got %v", err)
		}
	}
	// Berlin asked once (the differing verdict kept), Kolkata on each
	// SET (a failure to ask is not kept).
	if asked != 2 {
		t.Errorf("the server was asked %d times, want 2", asked)
	}
}
