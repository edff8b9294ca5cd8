package history_test

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/wal"
)

var gcApplyVersions = flag.Int("history.gcapply.versions", 0, "run TestGCApplyLatency on a history of this many single-row commits (0: skip)")

// TestGCApplyLatency measures what online GC costs the writer: a history
// of -history.gcapply.versions single-row commits (groups of 7 rows, as
// TestGCBench), then a writer committing single-row transactions without
// pause while, first, nothing else runs (baseline) and then a GC expires
// 90% of the history, marks, sweeps and runs the value-log GC (with the
// LSM compaction, which the daemon does when a quarter or more of the
// nodes are deleted: the worst case). For each phase it reports the
// commit → durable latency (applied by the Sink until Mirror.Durable
// covers it) at the median, p99 and maximum, and the commits per second.
//
//	go test ./history -run TestGCApplyLatency -history.gcapply.versions 300000 -v
func TestGCApplyLatency(t *testing.T) {
	n := *gcApplyVersions
	if n == 0 {
		t.Skip("set -history.gcapply.versions N")
	}
	f := historytest.NewSized(t, 256<<20)
	h := buildVersions(t, f, 100_000, n, 3)
	svc := history.New(f.DB, f.Mirror)
	m := f.Mirror

	// phase commits single-row transactions until stop is closed and
	// returns the commit → durable latencies (ms) and the commit count.
	phase := func(stop <-chan struct{}) ([]float64, int, time.Duration) {
		var mu sync.Mutex
		applied := map[wal.LSN]time.Time{}
		var lat []float64
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // durability sampler
			defer wg.Done()
			var seen wal.LSN
			for {
				d := m.Durable()
				now := time.Now()
				if d > seen {
					mu.Lock()
					for l, at := range applied {
						if l <= d {
							lat = append(lat, float64(now.Sub(at).Microseconds())/1000)
							delete(applied, l)
						}
					}
					mu.Unlock()
					seen = d
				}
				select {
				case <-done:
					return
				case <-time.After(200 * time.Microsecond):
				}
			}
		}()
		start := time.Now()
		count := 0
		for i := 0; ; i++ {
			select {
			case <-stop:
			default:
				id := (i * 7919) % 100_000
				lsn := f.Apply(func(tx *historytest.Tx) {
					tx.Upsert(h.rel, []*string{historytest.S(strconv.Itoa(id)), historytest.S(fmt.Sprint("w", i)), historytest.S("0")})
				})
				mu.Lock()
				applied[lsn] = time.Now()
				mu.Unlock()
				count++
				continue
			}
			break
		}
		el := time.Since(start)
		if err := m.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		close(done)
		wg.Wait()
		return lat, count, el
	}
	report := func(name string, lat []float64, count int, el time.Duration) {
		slices.Sort(lat)
		pct := func(p float64) float64 {
			if len(lat) == 0 {
				return 0
			}
			return lat[min(len(lat)-1, int(p*float64(len(lat))))]
		}
		t.Logf("%-34s %6d commits in %5.1f s (%6.0f/s): commit → durable median %.2f ms, p99 %.2f ms, max %.1f ms; load %s",
			name, count, el.Seconds(), float64(count)/el.Seconds(), pct(0.5), pct(0.99), pct(1), loadavg())
	}

	stop := make(chan struct{})
	time.AfterFunc(5*time.Second, func() { close(stop) })
	lat, count, el := phase(stop)
	report("baseline (no GC)", lat, count, el)

	stop = make(chan struct{})
	var st refs.GCStats
	var gcErr error
	var gcTook time.Duration
	go func() {
		defer close(stop)
		start := time.Now()
		st, gcErr = svc.GC(context.Background(), history.GCRequest{ExpireBefore: h.times[n*9/10], Dir: f.Dir,
			ValueLogGC: true, CompactMinDeleted: history.OnlineCompactMinDeleted})
		gcTook = time.Since(start)
	}()
	lat, count, el = phase(stop)
	if gcErr != nil {
		t.Fatal(gcErr)
	}
	report("during GC", lat, count, el)
	t.Logf("GC: %s; expired %d versions; %d live, %d deleted of %d; mark %s, sweep %s, value-log %s; %s → %s",
		gcTook.Round(time.Millisecond), st.Expired.Versions, st.Live, st.Deleted, st.Scanned, st.Mark.Round(time.Millisecond),
		st.Sweep.Round(time.Millisecond), st.ValueLog.Round(time.Millisecond), humanBytes(st.BytesBefore), humanBytes(st.BytesAfter))
}
