package verify

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestVerifyMetrics: each periodic run sets sidecar_verify_last_timestamp,
// _result{table} and _differing_rows{table}; a failed run marks every
// table -1 with no differing rows; a table no longer followed loses its
// series; registering twice on one registry reuses the series.
func TestVerifyMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	tables := []string{"public.a", "public.b"}
	var rep *Report
	var runErr error
	p := &Periodic{Interval: time.Minute, Metrics: m, Tables: func() []string { return tables },
		Verify: func(context.Context) (*Report, error) { return rep, runErr }}
	log := slog.New(slog.DiscardHandler)

	before := time.Now()
	rep = &Report{LSN: "0/1", Result: ResultDifferences, Tables: []TableReport{
		{Table: "public.a", Result: ResultEqual}, {Table: "public.b", Result: ResultDifferences, Differences: 3}}}
	p.runOnce(t.Context(), log)
	if ts := testutil.ToFloat64(m.Timestamp); ts < float64(before.Unix()) || ts > float64(time.Now().Unix()+1) {
		t.Errorf("timestamp %v, want the run's end (about %d)", ts, before.Unix())
	}
	want := func(when, text string) {
		t.Helper()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(text), "sidecar_verify_last_result", "sidecar_verify_last_differing_rows"); err != nil {
			t.Errorf("%s: %v", when, err)
		}
	}
	want("after differences", `
# HELP sidecar_verify_last_differing_rows Rows that differed between PostgreSQL and the mirror in the last periodic verification, per table.
# TYPE sidecar_verify_last_differing_rows gauge
sidecar_verify_last_differing_rows{table="public.a"} 0
sidecar_verify_last_differing_rows{table="public.b"} 3
# HELP sidecar_verify_last_result Last periodic verification per table: 1 equal, 0 differences found, -1 could not verify.
# TYPE sidecar_verify_last_result gauge
sidecar_verify_last_result{table="public.a"} 1
sidecar_verify_last_result{table="public.b"} 0
`)

	rep, runErr, tables = nil, errors.New("pin timed out"), []string{"public.a"}
	p.runOnce(t.Context(), log)
	want("after a failed run, public.b no longer followed", `
# HELP sidecar_verify_last_differing_rows Rows that differed between PostgreSQL and the mirror in the last periodic verification, per table.
# TYPE sidecar_verify_last_differing_rows gauge
sidecar_verify_last_differing_rows{table="public.a"} 0
# HELP sidecar_verify_last_result Last periodic verification per table: 1 equal, 0 differences found, -1 could not verify.
# TYPE sidecar_verify_last_result gauge
sidecar_verify_last_result{table="public.a"} -1
`)

	again, err := NewMetrics(reg)
	if err != nil {
		t.Fatalf("second registration: %v", err)
	}
	if again.Result != m.Result || again.Timestamp != m.Timestamp || again.DifferingRows != m.DifferingRows {
		t.Error("a second NewMetrics on one registry did not reuse the registered series")
	}
}
