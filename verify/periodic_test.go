package verify

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/goleak"
)

// TestPeriodic: runs every interval, keeps the last outcome, sets the
// gauge per table (1 equal, 0 differences, -1 could not verify, for every
// table when the run failed), and stops with its context.
func TestPeriodic(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_verify_result"}, []string{"table"})
	var n atomic.Int32
	ran := make(chan int32, 10)
	p := &Periodic{
		Interval: 20 * time.Millisecond,
		Tables:   func() []string { return []string{"public.a", "public.b"} },
		Gauge:    gauge,
		Verify: func(ctx context.Context) (*Report, error) {
			defer func() { ran <- n.Load() }()
			switch n.Add(1) {
			case 1:
				return &Report{LSN: "0/1", Result: ResultDifferences, Tables: []TableReport{
					{Table: "public.a", Result: ResultEqual}, {Table: "public.b", Result: ResultDifferences, Differences: 2}}}, nil
			case 2:
				return nil, errors.New("pin timed out")
			}
			<-ctx.Done() // a run is bounded by the interval
			return nil, ctx.Err()
		},
	}
	if p.Last() != nil {
		t.Fatal("Last before any run")
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.Run(ctx) }()

	<-ran
	waitLast(t, p, func(l *Last) bool { return l.LSN == "0/1" })
	if a, b := testutil.ToFloat64(gauge.WithLabelValues("public.a")), testutil.ToFloat64(gauge.WithLabelValues("public.b")); a != 1 || b != 0 {
		t.Fatalf("gauge after run 1: a=%v b=%v, want 1 and 0", a, b)
	}
	if l := p.Last(); l.Result != ResultDifferences || len(l.Tables) != 2 || l.Tables[1].Differences != 2 {
		t.Fatalf("last after run 1: %+v", l)
	}
	<-ran
	waitLast(t, p, func(l *Last) bool { return l.Error != "" })
	if a, b := testutil.ToFloat64(gauge.WithLabelValues("public.a")), testutil.ToFloat64(gauge.WithLabelValues("public.b")); a != -1 || b != -1 {
		t.Fatalf("gauge after a failed run: a=%v b=%v, want -1", a, b)
	}
	<-ran // the third run hit its interval bound
	cancel()
	wg.Wait()
	if got := n.Load(); got < 3 {
		t.Fatalf("%d runs", got)
	}
	if (&Periodic{}).Run(t.Context()) != nil {
		t.Fatal("a zero interval should return at once")
	}
}

func waitLast(t *testing.T, p *Periodic, ok func(*Last) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if l := p.Last(); l != nil && ok(l) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("last outcome not as expected: %+v", p.Last())
		}
		time.Sleep(time.Millisecond)
	}
}
