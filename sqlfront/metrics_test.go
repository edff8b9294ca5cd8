package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// Issue 23 item 3: the SQL front end's metrics count connections,
// statements by outcome and SQLSTATE class, rows and where SELECTs ran.
func TestFrontMetrics(t *testing.T) {
	r := historyRig(t)
	reg := prometheus.NewRegistry()
	addr := r.serve(t, sqlfront.Options{Metrics: reg})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://app@"+addr+"/app?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	if n := gather(t, reg)["sidecar_sql_connections"]; n != 1 {
		t.Errorf("connections %v, want 1", n)
	}
	queryStrings(t, conn, "SELECT id FROM accounts WHERE id <= $1", 5)     // 4 rows (id 2 deleted), sent as stored (direct.go; pgx asks for the integer in binary)
	queryStrings(t, conn, "SELECT count(*) FROM accounts")                 // the engine
	queryStrings(t, conn, "SELECT upper(name) FROM accounts WHERE id = 3") // the evaluator
	conn.Exec(ctx, "SELECT nosuch FROM accounts")                          // 42703
	conn.Exec(ctx, "INSERT INTO accounts VALUES (1)")                      // 25006
	conn.Close(ctx)
	got := gather(t, reg)
	for name, want := range map[string]float64{
		"sidecar_sql_statements_total,class=,outcome=ok":      3,
		"sidecar_sql_statements_total,class=42,outcome=error": 1,
		"sidecar_sql_statements_total,class=25,outcome=error": 1,
		"sidecar_sql_statement_seconds":                       5,
		"sidecar_sql_rows_returned_total":                     6,
		"sidecar_sql_selects_total,path=engine":               1, // the count
		"sidecar_sql_selects_total,path=direct":               1, // the key range
		"sidecar_sql_selects_total,path=evaluator":            1,
		"sidecar_sql_connections_accepted_total":              1,
	} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v (all: %v)", name, got[name], want, got)
		}
	}
}

// gather reads every metric of reg by name and labels ("name,l=v"):
// counters and gauges by value, histograms by sample count.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			name := mf.GetName()
			for _, l := range m.Label {
				name += "," + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case m.Counter != nil:
				got[name] = m.Counter.GetValue()
			case m.Gauge != nil:
				got[name] = m.Gauge.GetValue()
			case m.Histogram != nil:
				got[name] = float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return got
}
