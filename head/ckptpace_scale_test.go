package head

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestCheckpointReadLatencyAtScale measures what the first checkpoint
// after a copy (every heap page dirty, the whole index and key store)
// does to point gets beside it: a reader due every millisecond reads a
// random key, and its latency counts from the moment it was due (so the
// wait for a processor after the timer fires is in it, as a SQL port
// read's wait after the network poller wakes it). The checkpoint is
// written paced (as a background checkpoint is) or not, alternating,
// SIDECAR_SCALE_REPS times each, on a table of SIDECAR_SCALE_ROWS rows
// built as applyOps builds it; then as many reads again with no
// checkpoint. Figures are logged only: they depend on the machine's
// load. It runs only with SIDECAR_SCALE_ROWS set (run it under a memory
// cgroup; SIDECAR_SCALE_DIR is the store's directory, default a
// temporary one).
func TestCheckpointReadLatencyAtScale(t *testing.T) {
	n, reps, dir := scaleParams(t, "ckptpace")
	db, err := store.Open(store.Options{Dir: dir, CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var m *Model
	var tb *Table
	var at uint64

	// reads reads until stop is closed and returns the latencies.
	reads := func(stop <-chan struct{}, seed uint64) []time.Duration {
		rng := rand.New(rand.NewPCG(seed, 1))
		var lat []time.Duration
		var buf []byte
		due := time.Now()
		for {
			select {
			case <-stop:
				return lat
			default:
			}
			due = due.Add(time.Millisecond)
			if d := time.Until(due); d > 0 {
				time.Sleep(d)
			} else {
				due = time.Now()
			}
			row, found, err := m.get(tb, benchKey(1+rng.IntN(n)), wal.LSN(at), buf[:0])
			if err != nil || !found {
				t.Errorf("get: %v %v", found, err)
				return lat
			}
			buf = row
			lat = append(lat, time.Since(due))
		}
	}
	pct := func(lat []time.Duration, q float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		s := slices.Clone(lat)
		slices.Sort(s)
		return s[min(len(s)-1, int(q*float64(len(s))))]
	}
	for rep := range 2 * reps {
		paced := rep%2 == 0
		// A table just built: every page dirty, as after a copy, the
		// index and key store written whole.
		m, tb = loadTable(t, n)
		m.opts.Persist = &Persist{DB: db, Every: -1}
		at = uint64(m.LSN())
		runtime.GC()
		m.wmu.Lock()
		c, err := m.cutLocked()
		m.wmu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		if paced {
			c.pace = newCkptPacer(ckptPaceDuty, ckptPaceSlice)
		}
		stop := make(chan struct{})
		got := make(chan []time.Duration)
		go func() { got <- reads(stop, uint64(rep)) }()
		start := time.Now()
		cpu0 := processCPU()
		st, err := m.writeCut(c, start)
		cpu1 := processCPU()
		took := time.Since(start)
		close(stop)
		during := <-got
		if err != nil {
			t.Fatal(err)
		}
		// As long again without a checkpoint.
		stop = make(chan struct{})
		go func() { got <- reads(stop, uint64(rep)+100) }()
		timer := time.NewTimer(took)
		<-timer.C
		close(stop)
		after := <-got
		t.Logf("rows %d paced %v: checkpoint %v (rested %v, cpu %v, %d pages, %d batches, %d MiB images, %d MiB parts) — gets during: %d, p50 %v p99 %v max %v; after: %d, p50 %v p99 %v max %v; load %.1f",
			n, paced, took.Round(time.Millisecond), st.Paced.Round(time.Millisecond), (cpu1 - cpu0).Round(time.Millisecond), st.HeapPages, st.HeapBatches, st.HeapBytes>>20, (st.FileBytes+st.LinkedBytes)>>20,
			len(during), pct(during, .5), pct(during, .99), pct(during, 1), len(after), pct(after, .5), pct(after, .99), pct(after, 1), loadAvg()[0])
	}
	runtime.KeepAlive(tb)
}

// processCPU is the process's CPU time (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
