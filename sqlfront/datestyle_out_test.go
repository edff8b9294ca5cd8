package sqlfront_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/types"
)

// Issue 23 (the tools people use): under a DateStyle other than ISO
// (SQL, Postgres, German with DMY, MDY or YMD, as European postgresql.conf
// files and psql users set it) every statement printing a date,
// timestamp or timestamptz was refused 0A000. Result columns now print
// as PostgreSQL's EncodeDateOnly / EncodeDateTime do (types/datestyle.go),
// timestamptz with the zone's abbreviation; binary results are alike in
// every style. Values printed inside the statement (::text, ||, format,
// rows, arrays) and non-ISO input ('01/02/2024', which the field order
// reads differently) answer as PostgreSQL or are refused, never another
// answer. Random values from a printed seed (SIDECAR_DATESTYLE_SEED
// repeats one).
func TestDateStyleOutputMatchesPostgres(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SIDECAR_DATESTYLE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (SIDECAR_DATESTYLE_SEED)", seed)
	rnd := rand.New(rand.NewPCG(seed, seed^0x5eed))

	epoch := types.Date2J(2000, 1, 1)
	dateLit := func(jd int64) string { return "'" + types.Out(types.Date, types.DateVal(jd-epoch)) + "'" }
	tsLit := func(jd, us int64, zone string) string {
		s := types.Out(types.Timestamp, types.TimestampVal((jd-epoch)*86_400_000_000+us))
		if b, ok := strings.CutSuffix(s, " BC"); ok {
			return "'" + b + zone + " BC'"
		}
		return "'" + s + zone + "'"
	}
	rows := []string{
		`(1, '2024-03-05', '2024-03-05 10:11:12.5', '2024-03-05 10:11:12.000001+00', '10:11:12', '10:11:12+05:30')`,
		`(2, '0001-01-01', '0001-01-01 00:00:00', '0001-01-01 00:00:00+00', '00:00:00', '00:00:00-03')`,
		`(3, '0001-12-31 BC', '0044-03-15 12:00:00.123456 BC', '0044-03-15 12:00:00 BC', '23:59:59.999999', '23:59:59+00')`,
		`(4, 'infinity', 'infinity', 'infinity', '24:00:00', '24:00:00+14')`,
		`(5, '-infinity', '-infinity', '-infinity', NULL, NULL)`,
		`(6, '12345-06-07', '12345-06-07 08:09:10', '12345-06-07 08:09:10+00', '08:09:10.1', '08:09:10.1-11')`,
		`(7, '4713-11-24 BC', '4713-11-24 00:00:00 BC', '4713-11-25 00:00:00 BC', NULL, NULL)`,
		`(8, '5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-30 23:59:59.999999+00', NULL, NULL)`,
		`(9, '2024-07-15', '2024-07-15 00:00:00', '2024-07-15 12:00:00+00', NULL, NULL)`,
		`(10, '2024-10-27', '2024-10-27 01:30:00', '2024-10-27 01:30:00+00', NULL, NULL)`,
		`(11, NULL, NULL, NULL, NULL, NULL)`,
	}
	lo, hi := types.Date2J(-4700, 1, 1), types.Date2J(294000, 1, 1)
	for id := 100; id < 140; id++ {
		jd := lo + rnd.Int64N(hi-lo)
		switch id % 3 {
		case 0:
			jd = types.Date2J(1800, 1, 1) + rnd.Int64N(120_000) // recent dates: zone rules apply
		case 1:
			jd = lo + rnd.Int64N(types.Date2J(2000, 1, 1)-lo) // BC and early years
		}
		us := rnd.Int64N(86_400_000_000)
		if id%4 == 0 {
			us -= us % 1_000_000 // whole seconds too
		}
		rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s, NULL, NULL)", id, dateLit(jd), tsLit(jd, us, ""), tsLit(jd, us, "+00")))
	}
	r := newRig(t, []string{"public.dso"}, []string{
		`CREATE TABLE dso (id int PRIMARY KEY, d date, ts timestamp, tz timestamptz, t time, tt timetz)`,
		`INSERT INTO dso VALUES ` + strings.Join(rows, ", "),
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	sc, err := pgconn.Connect(ctx, tzServe(t, r)) // zones confirmed with the rig's PostgreSQL
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close(context.Background()) })
	conns["sidecar"] = sc
	// Every statement here must answer as PostgreSQL (failed with 0A000
	// on 4f1044f under every style but ISO).
	answered := []string{
		`SELECT id, d, ts, tz, t, tt FROM dso ORDER BY id`,
		`SELECT d, ts, tz FROM dso WHERE d > '2000-01-01' AND ts < '3000-01-01' ORDER BY id DESC`,
		`SELECT max(d), min(ts), max(tz) FROM dso WHERE id >= 100`,
		`SELECT date_trunc('month', ts), d + 1, ts + interval '1 day 2 hours', tz FROM dso WHERE id IN (1, 2, 9, 10) ORDER BY id`,
		`SELECT date '2024-03-05', timestamp '2024-03-05 10:11:12.25', timestamptz '2024-03-05 10:11:12+00', time '01:02:03'`,
		`SELECT count(*) FROM dso WHERE d < '2024-03-06'`,
	}
	// Printed inside the statement, or input the field order reads: the
	// same answer or 0A000.
	sameOrRefused := []string{
		`SELECT d::text, ts::text, tz::text FROM dso ORDER BY id`,
		`SELECT 'x' || d, format('%s %s', ts, tz) FROM dso ORDER BY id`,
		`SELECT row(d, ts, tz), array[d] FROM dso ORDER BY id`,
		`SELECT to_json(d), to_json(ts), to_json(tz) FROM dso ORDER BY id`,
		`SELECT i FROM (SELECT id, d, ts FROM dso) i ORDER BY id`,
		`SELECT '01/02/2024'::date, date '03/04/2024', '05/06/2024 07:08'::timestamp`,
		`SELECT '02.01.2024'::date, '2024/01/02'::date, '1/2/3'::date`,
		`SELECT count(*) FROM dso WHERE d > '01/02/2024'`,
		`SELECT 'Tue Mar 05 10:11:12 2024'::timestamp, '05-03-2024'::date`,
	}
	styles := []string{"ISO", "SQL", "Postgres", "German"}
	orders := []string{"DMY", "MDY", "YMD"}
	zones := []string{"UTC", "Europe/Berlin", "America/Sao_Paulo", "Asia/Kolkata", "UTC+3", "-05:30"}
	refusedOK := func(got []string) bool {
		return len(got) > 0 && (strings.HasPrefix(got[0], "ERROR 0A000") || strings.HasPrefix(got[len(got)-1], "extended: ERROR 0A000"))
	}
	// strict: the answered statements must answer; else (a fixed-offset
	// zone, whose abbreviation PostgreSQL makes up itself) they may be
	// refused.
	run := func(label string, strict bool) {
		t.Helper()
		for _, q := range answered {
			want := simpleExec(ctx, conns["postgresql"], q)
			got := simpleExec(ctx, conns["sidecar"], q)
			if !strict && refusedOK(got) {
				continue
			}
			if !slices.Equal(got, want) || len(want) > 0 && strings.HasPrefix(want[0], "ERROR") {
				t.Errorf("%s; %s\n got %q\nwant %q", label, q, got, want)
			}
			// Binary results: alike in every style.
			wb := conns["postgresql"].ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()
			gb := conns["sidecar"].ExecParams(ctx, q, nil, nil, nil, []int16{1}).Read()
			if wb.Err != nil || gb.Err != nil || len(wb.Rows) != len(gb.Rows) {
				t.Errorf("%s; %s binary: got %v (%d rows), want %v (%d rows)", label, q, gb.Err, len(gb.Rows), wb.Err, len(wb.Rows))
				continue
			}
			for i := range wb.Rows {
				if !slices.EqualFunc(wb.Rows[i], gb.Rows[i], bytes.Equal) {
					t.Errorf("%s; %s binary row %d: got %x, want %x", label, q, i, gb.Rows[i], wb.Rows[i])
				}
			}
		}
		for _, q := range sameOrRefused {
			got, want := simpleExec(ctx, conns["sidecar"], q), simpleExec(ctx, conns["postgresql"], q)
			if !slices.Equal(got, want) && !refusedOK(got) {
				t.Errorf("%s; %s\n got %q\nwant %q (or 0A000)", label, q, got, want)
			}
		}
	}
	for _, zone := range zones {
		for _, style := range styles {
			for _, order := range orders {
				set := fmt.Sprintf("SET DateStyle = '%s, %s'; SET TimeZone = '%s'", style, order, zone)
				for _, c := range conns {
					if res := simpleExec(ctx, c, set); len(res) > 0 {
						t.Fatalf("%s: %q", set, res)
					}
				}
				run(set, !strings.ContainsAny(zone, "+-"))
			}
		}
	}
}
