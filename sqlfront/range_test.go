package sqlfront_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestRangeColumns (issue 23): a followed table with columns of the six
// built-in range types — copied, then changed through replication —
// read through the SQL port: the engine's statements (the operators,
// lower/upper and the other functions, WHERE, ORDER BY, GROUP BY,
// DISTINCT, joins, Grafana-style tstzrange filters) and the front end's
// own paths, answered as PostgreSQL answers them in text and binary
// format, in UTC and in another session TimeZone (tstzrange's bounds
// print in it); COPY of them; AS OF the copy's version keeps the old
// values. A multirange column or literal is refused 0A000.
// Before, every statement reading a range column, naming a range type
// or calling tstzrange() was refused.
func TestRangeColumns(t *testing.T) {
	r := newRig(t, []string{"public.rg", "public.mr"}, []string{
		`CREATE TABLE rg (id int PRIMARY KEY, i4 int4range, i8 int8range, n numrange, d daterange, ts tsrange, tz tstzrange)`,
		`INSERT INTO rg SELECT i, int4range(i % 7 - 3, i % 7 + i % 5, (ARRAY['[]', '[)', '(]', '()'])[1 + i % 4]),
		   int8range(NULLIF(i % 9, 0) * 1000000000::int8, i * 1000000000::int8 + 5), numrange((i % 13)::numeric / 4, NULLIF(i % 6, 0) * 2.5 + 3.25, '(]'),
		   daterange(date '2024-01-01' + i % 50, date '2024-01-01' + i % 50 + i % 8, '[]'),
		   tsrange(timestamp '2024-03-01 00:00' + i * interval '97 minutes', timestamp '2024-03-01 00:00' + i * interval '101 minutes' + interval '2 hours'),
		   tstzrange(timestamptz '2024-03-09 12:00+00' + i * interval '53 minutes', CASE WHEN i % 10 = 0 THEN NULL ELSE timestamptz '2024-03-09 12:00+00' + i * interval '59 minutes' + interval '90 minutes' END)
		   FROM generate_series(1, 150) i`,
		`INSERT INTO rg VALUES (151, NULL, NULL, NULL, NULL, NULL, NULL), (152, 'empty', 'empty', 'empty', 'empty', 'empty', 'empty'),
		   (153, '(,)', '[-9223372036854775808,)', '[-Infinity,NaN]', '[-infinity,infinity]', '[-infinity,)', '("2024-01-01 00:00:00.123456+00","infinity"]')`,
		`CREATE TABLE mr (id int PRIMARY KEY, m int4multirange)`,
		`INSERT INTO mr VALUES (1, '{[1,2), [5,6)}')`,
	}, []string{
		`UPDATE rg SET i4 = i4 * int4range(0, 2), tz = tstzrange(lower(tz), upper(tz) + interval '1 day', '[]') WHERE id % 3 = 0`,
		`INSERT INTO rg VALUES (160, '[1,9]', '(1,9]', '(1.5,2)', '[2024-02-29,2024-03-01]', '["2024-03-31 01:30","2024-03-31 03:30")', '["2024-03-31 00:30+00","2024-10-27 01:30+00")')`,
		`DELETE FROM rg WHERE id = 7`,
	})
	stmts := []string{
		"SELECT id, i4, i8, n, d, ts, tz FROM rg ORDER BY id",
		"SELECT id, tz FROM rg WHERE id = 153",
		"SELECT id FROM rg WHERE i4 @> 2 AND d && daterange('2024-01-10', '2024-02-01') ORDER BY id",
		"SELECT id, tz FROM rg WHERE tz @> timestamptz '2024-03-12 00:00+00' ORDER BY id",
		"SELECT id, tz FROM rg WHERE tz && tstzrange('2024-03-10 00:00+00', '2024-03-11 00:00+00') ORDER BY id",
		"SELECT id, lower(tz), upper(tz), lower_inc(tz), upper_inc(tz), lower_inf(tz), upper_inf(tz), isempty(tz) FROM rg ORDER BY id",
		"SELECT id, lower(i4), upper(i8), lower(n), upper(d), lower(ts), i4 * int4range(0, 3), range_merge(n, numrange(1, 2)), d - daterange('2024-01-01', '2024-01-05') FROM rg WHERE id % 4 = 1 AND NOT isempty(d) AND lower(d) >= '2024-01-05' ORDER BY id",
		"SELECT i4, count(*) FROM rg GROUP BY i4 ORDER BY i4",
		"SELECT DISTINCT d FROM rg ORDER BY d DESC NULLS LAST",
		"SELECT id, n FROM rg ORDER BY n NULLS FIRST, id LIMIT 20",
		"SELECT a.id, b.id FROM rg a JOIN rg b ON a.i4 = b.i4 AND a.id < b.id WHERE a.id % 10 = 0 ORDER BY 1, 2",
		"SELECT id FROM rg WHERE i4 = '[0,3)' OR n = '(0.25,5.75]' ORDER BY id",
		"SELECT id, tz::text, ts::text FROM rg WHERE tz << tstzrange('2024-03-11', NULL) ORDER BY id",
		"SELECT count(*) FILTER (WHERE tz -|- tstzrange('2024-03-10 00:00+00', '2024-03-11 00:00+00')), count(*) FILTER (WHERE i4 &< '[0,1)'), count(*) FILTER (WHERE i8 &> '[5000000000,)') FROM rg",
		"SELECT id, tz FROM rg WHERE tz @> '2024-03-10 00:00'::timestamptz ORDER BY id",
		// The types' pg_type rows and names (psql's \d, pgjdbc's metadata).
		"SELECT oid, typname, typnamespace, typlen, typbyval, typtype, typcategory, typispreferred, typelem, typarray, typcollation FROM pg_type WHERE oid IN (3904, 3905, 3906, 3907, 3908, 3909, 3910, 3911, 3912, 3913, 3926, 3927) ORDER BY oid",
		"SELECT format_type(3904, NULL), format_type(3911, -1), format_type(3926, NULL), format_type(3913, NULL)",
		"SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a WHERE a.attrelid = 'rg'::regclass AND a.attnum > 0 ORDER BY a.attnum",
	}
	stmts = append(stmts, "SELECT id, i4 FROM rg WHERE i4 @> $1::int4 ORDER BY id", "SELECT id FROM rg WHERE d && $1 ORDER BY id")
	compareWithPostgres(t, r.pgURL, r.sqlURL, stmts, func(q string) []byte {
		if strings.Contains(q, "int4") {
			return []byte("2")
		}
		return []byte("[2024-01-10,2024-01-20)")
	}, "UTC")
	psqlSameOrRefused(t, r, `\d rg`)
	// In another session zone: bounds without an offset read, and all
	// bounds print, in it.
	withZone := func(u, z string) string {
		if strings.Contains(u, "?") {
			return u + "&timezone=" + url.QueryEscape(z)
		}
		return u + "?timezone=" + url.QueryEscape(z)
	}
	zoneParams := func(q string) []byte {
		if strings.Contains(q, "tstzrange") {
			return []byte("[2024-03-10 00:00,2024-03-10 12:00]")
		}
		return []byte("2024-03-10 00:00")
	}
	zoneURL := tzServe(t, r) // named zones checked against the server, as the daemon does
	for _, z := range []string{"America/New_York", "Asia/Kolkata"} {
		compareWithPostgres(t, withZone(r.pgURL, z), withZone(zoneURL, z), []string{
			"SELECT id, tz, lower(tz), upper(tz) FROM rg ORDER BY id",
			"SELECT id, tz FROM rg WHERE tz @> '2024-03-10 00:00'::timestamptz ORDER BY id",
			"SELECT id FROM rg WHERE tz && tstzrange('2024-03-10', '2024-03-11') ORDER BY id",
			"SELECT tstzrange('2024-03-10', '2024-03-11', '[]'), '[2024-11-03 01:30,2024-11-03 03:00)'::tstzrange, tz::text FROM rg WHERE id = 160",
			"SELECT id, tz FROM rg WHERE tz && $1::tstzrange ORDER BY id",
			"SELECT id FROM rg WHERE tz @> $1::timestamptz ORDER BY id",
		}, zoneParams, z)
	}
	sc, pc := copyConnBoth(t, r)
	copySame(t, sc, pc,
		"COPY (SELECT * FROM rg ORDER BY id) TO STDOUT",
		"COPY (SELECT id, i4, n, tz FROM rg ORDER BY id) TO STDOUT (FORMAT binary)",
		"COPY (SELECT id, i4 + int4range(0, 1), d * daterange('2024-01-01', '2024-02-01'), tz FROM rg WHERE id % 2 = 0 ORDER BY id) TO STDOUT (FORMAT csv, HEADER)",
		"COPY (SELECT id, i4, i8, n, d, ts, tz FROM rg ORDER BY id) TO STDOUT (FORMAT binary)",
	)

	// A table's COPY is in its physical order, which the step's UPDATE
	// changed in PostgreSQL: compared as sorted lines.
	if got, want := copyTo(t, sc, "COPY rg TO STDOUT"), copyTo(t, pc, "COPY rg TO STDOUT"); got.err != want.err || got.tag != want.tag || !sameLines(got.data, want.data) {
		t.Errorf("COPY rg TO STDOUT:\nsidecar:  %.300q %s %s\npostgres: %.300q %s %s", got.data, got.tag, got.err, want.data, want.tag, want.err)
	}

	ctx := context.Background()
	c, err := pgconn.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	// AS OF the version before the step: row 7 is there, row 160 not,
	// row 3's i4 is as copied.
	res := c.ExecParams(ctx, "SELECT id, i4::text FROM rg AS OF 'HEAD~1' WHERE id IN (3, 7, 160) ORDER BY id", nil, nil, nil, nil).Read()
	if res.Err != nil {
		t.Fatalf("AS OF: %v", res.Err)
	}
	if got := rowsText(res); len(got) != 2 || got[0] != `"3"|"[1,6)"` || got[1] != `"7"|"[-2,2)"` {
		t.Errorf("AS OF 'HEAD~1': %q, want rows 3 ([1,6)) and 7 ([-2,2))", got)
	}
	for _, q := range []string{"SELECT m FROM mr", "SELECT * FROM mr", "SELECT '{[1,2)}'::int4multirange", "COPY mr TO STDOUT"} {
		if err := c.ExecParams(ctx, q, nil, nil, nil, nil).Read().Err; sqlState(err) != "0A000" {
			t.Errorf("%s: %v, want 0A000", q, err)
		}
	}
}

// sameLines says whether a and b hold the same lines in any order.
func sameLines(a, b []byte) bool {
	x, y := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// TestTimestamptzParamInZone: a text-format timestamptz parameter
// without an offset is a local time of the session's TimeZone, as
// PostgreSQL reads it. Before, sidecar read it as UTC (paramAs) and
// answered other rows outside UTC.
func TestTimestamptzParamInZone(t *testing.T) {
	r := newRig(t, []string{"public.ev"}, []string{
		`CREATE TABLE ev (id int PRIMARY KEY, at timestamptz)`,
		`INSERT INTO ev SELECT i, timestamptz '2024-03-09 00:00+00' + i * interval '47 minutes' FROM generate_series(1, 120) i`,
	})
	zoneURL := tzServe(t, r)
	for _, z := range []string{"America/New_York", "Asia/Kolkata"} {
		q := "?"
		if strings.Contains(zoneURL, "?") {
			q = "&"
		}
		compareWithPostgres(t, r.pgURL+q+"timezone="+url.QueryEscape(z), zoneURL+q+"timezone="+url.QueryEscape(z), []string{
			"SELECT id, at FROM ev WHERE at >= $1::timestamptz ORDER BY id LIMIT 5",
			"SELECT count(*) FROM ev WHERE at < $1",
		}, func(string) []byte { return []byte("2024-03-10 00:00") }, z)
	}
}

// copySame checks that each COPY … TO STDOUT answers the same bytes, tag
// and error on the SQL port (sc) as on PostgreSQL (pc).
func copySame(t *testing.T, sc, pc *pgx.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if got, want := copyTo(t, sc, q), copyTo(t, pc, q); got.err != want.err || string(got.data) != string(want.data) || got.tag != want.tag {
			t.Errorf("%s:\nsidecar:  %.300q %s %s\npostgres: %.300q %s %s", q, got.data, got.tag, got.err, want.data, want.tag, want.err)
		}
	}
}
