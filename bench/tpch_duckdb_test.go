package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/bench/tpch"
	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

// TestTPCHMarkdownDuckDB checks the report's DuckDB columns: times,
// the sidecar/DuckDB ratio, a DuckDB error kept in its cell, and both
// geometric means over the queries both sides answered.
func TestTPCHMarkdownDuckDB(t *testing.T) {
	rep := &TPCHReport{SF: 0.01, Reps: 1, DuckDB: true, DuckDBLoad: 2 * time.Second, DuckDBMem: "32MiB", LoadStart: "1.0", LoadEnd: "2.0",
		Rows: map[string]int64{}, Queries: []*TPCHQuery{
			{N: 1, Postgres: msDurations(100), Sidecar: msDurations(200), DuckDB: msDurations(50), DuckDBRows: 4, Outcome: sqldiff.Outcome{Class: sqldiff.Identical}},
			{N: 2, Postgres: msDurations(100), Sidecar: msDurations(50), DuckDBErr: "DuckDB: Parser Error: a|b", Outcome: sqldiff.Outcome{Class: sqldiff.Identical}},
		}}
	out := tpchMarkdown(t, rep)
	for _, want := range []string{
		"| query | PostgreSQL | sidecar | ratio | PostgreSQL CPU | sidecar CPU | CPU ratio | DuckDB | sidecar/DuckDB | DuckDB rows | load | answer |",
		"| Q1 | 100 ms (100 ms–100 ms) | 200 ms (200 ms–200 ms) | 2× | – | – | – | 50.0 ms (50.0 ms–50.0 ms) | 4× | 4 | – | identical |",
		`error: DuckDB: Parser Error: a\|b | – | – | – |`,
		"sidecar/PostgreSQL 1× (2 queries), sidecar/DuckDB 4× (1 queries)",
		"Load average when the queries started 1.0, at the end 2.0.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestCharColumns checks that the DuckDB load finds TPC-H's char(n)
// columns (their padding is trimmed in DuckDB, whose char is varchar).
func TestCharColumns(t *testing.T) {
	got := charColumns(tpch.Schema)
	for table, want := range map[string]string{
		"region":   "r_name",
		"nation":   "n_name",
		"part":     "p_mfgr p_brand p_container",
		"supplier": "s_name s_phone",
		"customer": "c_phone c_mktsegment",
		"orders":   "o_orderstatus o_orderpriority o_clerk",
		"lineitem": "l_returnflag l_linestatus l_shipinstruct l_shipmode",
	} {
		if g := strings.Join(got[table], " "); g != want {
			t.Errorf("%s: char columns %q, want %q", table, g, want)
		}
	}
	if len(got["partsupp"]) != 0 {
		t.Errorf("partsupp: char columns %q, want none", got["partsupp"])
	}
}

// TestTPCHMarkdownCPU checks the CPU columns: both sides' median CPU,
// their ratio, the load at a query's start and end, "–" where
// PostgreSQL's CPU is zero (below the ticks' resolution), and the
// geometric mean of the CPU ratios.
func TestTPCHMarkdownCPU(t *testing.T) {
	rep := &TPCHReport{SF: 1, Reps: 3, Rows: map[string]int64{}, Queries: []*TPCHQuery{
		{N: 4, Postgres: msDurations(100, 90, 300), Sidecar: msDurations(400, 500, 450), PostgresCPU: msDurations(80, 90, 100), SidecarCPU: msDurations(400, 360, 900),
			LoadStart: "41.5", LoadEnd: "38.2", Outcome: sqldiff.Outcome{Class: sqldiff.Identical}},
		{N: 11, Postgres: msDurations(10), Sidecar: msDurations(5), PostgresCPU: msDurations(0), SidecarCPU: msDurations(3), Outcome: sqldiff.Outcome{Class: sqldiff.Identical}},
		{N: 13, Postgres: msDurations(100), Sidecar: msDurations(100), PostgresCPU: msDurations(100), SidecarCPU: msDurations(25), LoadStart: "2", LoadEnd: "3", Outcome: sqldiff.Outcome{Class: sqldiff.Identical}},
	}}
	out := tpchMarkdown(t, rep)
	for _, want := range []string{
		"| query | PostgreSQL | sidecar | ratio | PostgreSQL CPU | sidecar CPU | CPU ratio | load | answer |",
		"| Q4 | 100 ms (90.0 ms–300 ms) | 450 ms (400 ms–500 ms) | 4.5× | 90.0 ms | 400 ms | 4.44× | 41.5→38.2 | identical |",
		"| Q11 | 10.0 ms (10.0 ms–10.0 ms) | 5.00 ms (5.00 ms–5.00 ms) | 0.5× | 0 | 3.00 ms | – | – | identical |",
		"| Q13 | 100 ms (100 ms–100 ms) | 100 ms (100 ms–100 ms) | 1× | 100 ms | 25.0 ms | 0.25× | 2→3 | identical |",
		"of the CPU ratios 1.05× (2 queries).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// msDurations are n milliseconds each.
func msDurations(n ...int) []time.Duration {
	var d []time.Duration
	for _, x := range n {
		d = append(d, time.Duration(x)*time.Millisecond)
	}
	return d
}

// tpchMarkdown is rep's report.
func tpchMarkdown(t *testing.T, rep *TPCHReport) string {
	t.Helper()
	var b strings.Builder
	if err := WriteTPCHMarkdown(&b, rep, "sidecar-bench tpch"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
