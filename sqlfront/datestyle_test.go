package sqlfront_test

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// Issue 21 (wrong answers) and 23 (tools): SET DateStyle was kept only
// when it started with ISO, and then not at all (SET DateStyle = 'ISO,
// YMD' answered SET, SHOW printed ISO, MDY); any other style was refused
// at the SET. It is read as PostgreSQL's check_datestyle now (kept parts,
// German's DMY, DEFAULT, conflicts and unknown words as 22023), and a
// statement under a style other than ISO is answered when no date or
// timestamp is converted to text inside it (its result columns print
// under the style), refused 0A000 otherwise.
func TestDateStyleSetMatchesPostgres(t *testing.T) {
	r := newRig(t, []string{"public.ds"}, []string{
		`CREATE TABLE ds (id int PRIMARY KEY, d date, ts timestamp, tz timestamptz, t time)`,
		`INSERT INTO ds VALUES (1, '2024-03-05', '2024-03-05 10:11:12.5', '2024-03-05 10:11:12+00', '10:11:12'),
			(2, '1999-12-31', '1999-12-31 23:59:59', '1999-12-31 23:59:59+00', '23:59:59'), (3, NULL, NULL, NULL, NULL)`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	sets := []string{"SET datestyle TO ISO", "SET datestyle TO dmy", "SET datestyle = 'iso, ymd'", "SET datestyle = 'sql,iso'",
		"SET datestyle = 'bogus'", "SET datestyle = 'German'", "SET datestyle = 'German, YMD'", "SET datestyle = 'Postgres'",
		"SET datestyle = 'postgresql, euro'", "SET datestyle = 'default, sql'", "SET datestyle = 'SQL DMY'", "SET datestyle = ''",
		"SET datestyle = 'BOGUS'", "SET datestyle TO ISO, DMY", `SET datestyle = '"iso"'`, "SET datestyle = 'US, SQL'", "RESET datestyle"}
	answered := []string{
		`SELECT count(*) FROM ds WHERE d > '2024-01-01'`,
		`SELECT id, extract(year from d), t FROM ds WHERE ts < '2030-01-01 00:00' ORDER BY id`,
		`SELECT id FROM ds WHERE date_trunc('month', ts) = '2024-03-01 00:00' ORDER BY id`,
		`SELECT d, ts, tz FROM ds ORDER BY id`, // result columns print under the style (types/datestyle.go)
	}
	refusedOrSame := []string{
		`SELECT d::text, 'x' || ts, format('%s', tz) FROM ds ORDER BY id`,
		`SELECT i FROM (SELECT id, d FROM ds) i ORDER BY id`,
		`SELECT date '2024-03-05', to_json(d) FROM ds ORDER BY id`,
	}
	for _, set := range sets {
		for _, c := range []string{"postgresql", "sidecar"} {
			simpleExec(ctx, conns[c], "SET datestyle = 'SQL, YMD'")
		}
		for _, q := range []string{set, "SHOW datestyle"} {
			if got, want := simpleExec(ctx, conns["sidecar"], q), simpleExec(ctx, conns["postgresql"], q); !slices.Equal(got, want) {
				t.Errorf("%s: got %q, want %q", q, got, want)
			}
		}
		for _, q := range answered {
			if got, want := simpleExec(ctx, conns["sidecar"], q), simpleExec(ctx, conns["postgresql"], q); !slices.Equal(got, want) {
				t.Errorf("%s; %s\n got %q\nwant %q", set, q, got, want)
			}
		}
		for _, q := range refusedOrSame {
			got, want := simpleExec(ctx, conns["sidecar"], q), simpleExec(ctx, conns["postgresql"], q)
			if !slices.Equal(got, want) && (len(got) == 0 || !strings.HasPrefix(got[0], "ERROR 0A000")) {
				t.Errorf("%s; %s\n got %q\nwant %q (or 0A000)", set, q, got, want)
			}
		}
	}
}
