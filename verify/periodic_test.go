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
// table when the run failed), bounds a run by the interval, and stops with
// its context.
//
// The interval is short (20 ms), so the next run must not be able to
// replace an outcome before the test has looked at it: runs 2 and 3 wait
// for the test to let them end (on a loaded machine a check can take
// longer than an interval; it used to see run 2's outcome instead of run
// 1's).
func TestPeriodic(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "sidecar_verify_result"}, []string{"table"})
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int32
	ran := make(chan int32, 10)
	end2, end3 := make(chan struct{}), make(chan struct{})
	// wait blocks a run until the test lets it end (or stops Run).
	wait := func(c chan struct{}) {
		select {
		case <-c:
		case <-ctx.Done():
		}
	}
	p := &Periodic{
		Interval: 20 * time.Millisecond,
		Tables:   func() []string { return []string{"public.a", "public.b"} },
		Gauge:    gauge,
		Verify: func(runCtx context.Context) (*Report, error) {
			k := n.Add(1)
			defer func() {
				select {
				case ran <- k: // never blocks for the 3 runs the test reads
				default:
				}
			}()
			switch k {
			case 1:
				return &Report{LSN: "0/1", Result: ResultDifferences, Tables: []TableReport{
					{Table: "public.a", Result: ResultEqual}, {Table: "public.b", Result: ResultDifferences, Differences: 2}}}, nil
			case 2:
				wait(end2)
				return nil, errors.New("pin timed out")
			case 3:
				wait(end3)
			}
			<-runCtx.Done() // a run is bounded by the interval
			return nil, runCtx.Err()
		},
	}
	if p.Last() != nil {
		t.Fatal("Last before any run")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.Run(ctx) }()
	defer wg.Wait() // before the leak check (defers run last first)
	defer cancel()
	gaugeIs := func(when string, a, b float64) {
		t.Helper()
		if ga, gb := testutil.ToFloat64(gauge.WithLabelValues("public.a")), testutil.ToFloat64(gauge.WithLabelValues("public.b")); ga != a || gb != b {
			t.Fatalf("gauge %s: a=%v b=%v, want %v and %v", when, ga, gb, a, b)
		}
	}

	if k := <-ran; k != 1 {
		t.Fatalf("first run reported as run %d", k)
	}
	waitLast(t, p, func(l *Last) bool { return l.LSN == "0/1" })
	gaugeIs("after run 1", 1, 0)
	if l := p.Last(); l.Result != ResultDifferences || len(l.Tables) != 2 || l.Tables[1].Differences != 2 || l.Error != "" {
		t.Fatalf("last after run 1: %+v", l)
	}

	close(end2)
	<-ran
	waitLast(t, p, func(l *Last) bool { return l.Error != "" })
	if l := p.Last(); l.Error != "pin timed out" || l.Result != ResultError || l.LSN != "" || len(l.Tables) != 2 ||
		l.Tables[0].Result != ResultError || l.Tables[1].Result != ResultError {
		t.Fatalf("last after a failed run: %+v", l)
	}
	gaugeIs("after a failed run", -1, -1)

	close(end3)
	<-ran
	// Run 3 (and every later one) ends at its interval bound.
	waitLast(t, p, func(l *Last) bool { return l.Error == context.DeadlineExceeded.Error() })
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
	// Generous: the outcome is stored as soon as the run returns, so a
	// long limit only matters when it never is (a loaded CI machine can
	// hold a goroutine off a core for seconds).
	deadline := time.Now().Add(60 * time.Second)
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
