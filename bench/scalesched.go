package bench

import (
	"fmt"
	"math"
	"runtime/metrics"
	"time"
)

// schedWatch reads the Go runtime's scheduling and GC counters of this
// process (the in-process daemon's) so a read cell can say what competed
// with it: how long goroutines waited runnable for a P (the SQL port's
// connection goroutine among them) and how many GC cycles ran. (The
// runtime's CPU-class metrics are only brought up to date at a GC, so
// they are not read here.) On 2 CPUs a checkpoint or a GC running
// beside a point get shows here, not in the get's own code.
type schedWatch struct {
	lat    *metrics.Float64Histogram
	cycles uint64
}

var schedSamples = []string{
	"/sched/latencies:seconds",
	"/gc/cycles/total:gc-cycles",
}

func readSched() schedWatch {
	s := make([]metrics.Sample, len(schedSamples))
	for i, n := range schedSamples {
		s[i].Name = n
	}
	metrics.Read(s)
	var w schedWatch
	if s[0].Value.Kind() == metrics.KindFloat64Histogram {
		h := s[0].Value.Float64Histogram()
		w.lat = &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		w.cycles = s[1].Value.Uint64()
	}
	return w
}

// since describes what happened between w and now: scheduling latency
// p50/p99 (goroutines made runnable meanwhile) and GC cycles.
func (w schedWatch) since() string {
	n := readSched()
	p50, p99 := "-", "-"
	if w.lat != nil && n.lat != nil && len(n.lat.Counts) == len(w.lat.Counts) {
		d := make([]uint64, len(n.lat.Counts))
		var tot uint64
		for i := range d {
			d[i] = n.lat.Counts[i] - w.lat.Counts[i]
			tot += d[i]
		}
		q := func(f float64) string {
			want := uint64(math.Ceil(f * float64(tot)))
			var c uint64
			for i, x := range d {
				c += x
				if c >= want && tot > 0 {
					b := n.lat.Buckets[i+1]
					if math.IsInf(b, 1) {
						b = n.lat.Buckets[i]
					}
					return fmtDur(time.Duration(b * float64(time.Second)))
				}
			}
			return "-"
		}
		p50, p99 = q(0.5), q(0.99)
	}
	return fmt.Sprintf("sched latency p50 %s p99 %s, gc cycles %d", p50, p99, n.cycles-w.cycles)
}
