// Package costratio checks that work grows as expected with its input by
// comparing the best of several timings of a small and a large input
// with a generous bound (a ratio, never an absolute time, so that a busy
// machine does not fail the test).
package costratio

import (
	"math"
	"testing"
	"time"
)

// Best is the shortest of tries runs of f.
func Best(tries int, f func()) time.Duration {
	best := time.Duration(math.MaxInt64)
	for i := 0; i < tries; i++ {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}

// AtMost fails t when large took more than limit times small.
func AtMost(t testing.TB, what string, small, large time.Duration, limit int) {
	t.Helper()
	t.Logf("%s: small input %v, large input %v", what, small, large)
	if large > time.Duration(limit)*small {
		t.Errorf("%s: the large input took %v, the small %v: more than %d times", what, large, small, limit)
	}
}
