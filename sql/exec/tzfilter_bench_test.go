package exec_test

import (
	"context"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/types"
)

// evSource serves n rows of table ev (id, ts, tz, d, v, host) typed, a
// timestamp a minute apart.
type evSource struct{ lineitemSource }

func newEvSource(n int) *evSource {
	s := &evSource{}
	base := int64(757382400000000) // 2024-01-01 00:00:00 in PostgreSQL's microseconds
	for i := 0; i < n; i++ {
		ts := types.TimestampVal(base + int64(i)*60_000_000)
		s.rows = append(s.rows, []types.Value{int64(i), ts, ts, types.DateVal(8766 + i/1440), float64(i), "h"})
	}
	return s
}

// BenchmarkTimeZoneFilter is count(*) over a filter calling a library
// function per row (timezone(), AT TIME ZONE) on 100k rows.
func BenchmarkTimeZoneFilter(b *testing.B) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		b.Fatal(err)
	}
	src := newEvSource(100_000)
	for _, sql := range []string{
		"SELECT count(*) FROM ev WHERE ts AT TIME ZONE 'UTC' > '2024-02-01 00:00:00+00'",
		"SELECT count(*) FROM ev WHERE tz AT TIME ZONE 'UTC' > '2024-02-01 00:00:00'",
	} {
		p := prepareBench(b, cat, sql) // q1_bench_test.go
		b.Run(sql[len(sql)-40:], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var got types.Value
				if err := p.Run(context.Background(), src, exec.Options{}, func(bt *exec.Batch) error { got = bt.Vecs[0][0]; return nil }); err != nil {
					b.Fatal(err)
				}
				if got == nil {
					b.Fatal("no count")
				}
			}
		})
	}
}

// TestTimeZoneFilterAllocs: AT TIME ZONE 'UTC' in a filter costs one
// allocation per row (its boxed result), not a zone built per row (five
// per row before the zone of a name was kept).
func TestTimeZoneFilterAllocs(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	const n = 10_000
	src := newEvSource(n)
	p := preparePlan(t, cat, "SELECT count(*) FROM ev WHERE ts AT TIME ZONE 'UTC' > '2024-01-05 00:00:00+00'")
	var got types.Value
	allocs := testing.AllocsPerRun(3, func() {
		if err := p.Run(context.Background(), src, exec.Options{}, func(bt *exec.Batch) error { got = bt.Vecs[0][0]; return nil }); err != nil {
			t.Fatal(err)
		}
	})
	if got != int64(n-4*1440-1) { // the rows after 2024-01-05 00:00
		t.Fatalf("count %v, want %d", got, n-4*1440-1)
	}
	if perRow := allocs / n; perRow > 1.5 {
		t.Fatalf("%.2f allocations per row, want at most 1.5", perRow)
	}
}
