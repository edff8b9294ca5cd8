package sqlfront_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	pgq "github.com/pganalyze/pg_query_go/v6"
)

// grafanaTable is sql/exec's ev table (testdata/data.txt): instants at
// Berlin's and New York's DST changes, a year end, a leap day, NULLs and
// infinities.
func grafanaTable(t *testing.T) []string {
	f, err := os.Open("../sql/exec/testdata/data.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "ev|") {
			continue
		}
		var vals []string
		for _, v := range strings.Split(sc.Text(), "|")[1:] {
			if v == `\N` {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, "'"+strings.ReplaceAll(v, "'", "''")+"'")
			}
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return []string{
		"CREATE TABLE ev (id int4 PRIMARY KEY, ts timestamp, tz timestamptz, d date, v float8, host text)",
		"INSERT INTO ev VALUES " + strings.Join(rows, ", "),
	}
}

// TestGrafanaSQLPort runs the Grafana-style statements of sql/exec's
// testdata/grafana.diff.sql and grafana_more.sql over the SQL port
// under several session zones, simple and extended protocol, against
// PostgreSQL on the same rows: the same rows (as multisets) or the same
// SQLSTATE; a 0A000 refusal is logged (and counted), any other
// difference fails. EXPLAIN's first line is logged, which tells the path
// that answered (the flat evaluator or sql/exec).
func TestGrafanaSQLPort(t *testing.T) {
	r := newRig(t, []string{"public.ev"}, grafanaTable(t))
	sqlURL := tzServe(t, r)
	var stmts []string
	for _, file := range []string{"../sql/exec/testdata/grafana.diff.sql", "../sql/exec/testdata/grafana_more.sql"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := pgq.SplitWithParser(string(b), true)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, s...)
	}
	ctx := context.Background()
	code := sqlState
	connect := func(url, zone string, mode pgx.QueryExecMode) *pgx.Conn { return connectZoneMode(t, url, zone, mode) }
	for _, zone := range []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe"} {
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheDescribe} {
			pgc, scc := connect(r.pgURL, zone, mode), connect(sqlURL, zone, mode)
			refused := 0
			for _, q := range stmts {
				q = strings.TrimSpace(q)
				want, werr := rowsOf(ctx, pgc, q)
				got, gerr := rowsOf(ctx, scc, q)
				slices.Sort(want)
				slices.Sort(got)
				switch {
				case gerr != nil && code(gerr) == "0A000" && code(werr) != "0A000":
					refused++
					t.Logf("TimeZone %s, mode %v: refused: %s\n  %v", zone, mode, q, gerr)
				case werr != nil || gerr != nil:
					if code(werr) != code(gerr) {
						t.Errorf("TimeZone %s, mode %v: %s:\n PostgreSQL %q %v\n sidecar    %q %v", zone, mode, q, want, werr, got, gerr)
					}
				case !slices.Equal(want, got):
					onlyPG, onlySC := rowsMinus(want, got), rowsMinus(got, want)
					t.Errorf("TimeZone %s, mode %v: %s:\n PostgreSQL only %q\n sidecar only    %q", zone, mode, q, onlyPG, onlySC)
				}
				if zone == "UTC" && mode == pgx.QueryExecModeSimpleProtocol && gerr == nil {
					if plan, err := rowsOf(ctx, scc, "EXPLAIN "+q); err == nil && len(plan) > 1 {
						t.Logf("path: %s\n  %s", q, strings.Join(plan[1:], " / "))
					}
				}
			}
			t.Logf("TimeZone %s, mode %v: %d of %d refused", zone, mode, refused, len(stmts))
			pgc.Close(ctx)
			scc.Close(ctx)
		}
	}
}

// rowsMinus is the rows of a (sorted) not in b (sorted), as multisets.
func rowsMinus(a, b []string) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) {
		switch {
		case j >= len(b) || a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			j++
		default:
			i++
			j++
		}
	}
	return out
}

// sqlState is err's SQLSTATE ("" for none; the text of an error
// without one).
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// connectZoneMode connects with TimeZone in the startup packet (as
// pgjdbc sends it) and mode as the query protocol.
func connectZoneMode(t *testing.T, url, zone string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	cfg.RuntimeParams["TimeZone"] = zone
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("connect with TimeZone=%s: %v", zone, err)
	}
	return conn
}
