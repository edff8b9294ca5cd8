package store

import (
	"bufio"
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/addr"
)

var (
	heavyNodes  = flag.Int("store.heavy", 0, "TestHeavyLoad: number of ~3.9 KiB nodes to write (150000 ≈ a 10M-row build); 0 skips")
	heavyLayout = flag.String("store.layout", "vlog", "TestHeavyLoad: vlog, lsm or lsm+snappy")
	heavyCache  = flag.Int64("store.cache", 0, "TestHeavyLoad: Options.CacheBytes (0: default)")
)

// TestHeavyLoad writes a 10M-row build's worth of leaves through a NodeStore
// with default options and reports time, CPU, peak RSS, bytes on disk, cold
// reads, and (vlog) the cost of value-log GC after half the nodes are
// deleted. Run it one layout per process so peak RSS is its own:
//
//	go test ./store -run HeavyLoad -store.heavy=150000 -store.layout=vlog -v
func TestHeavyLoad(t *testing.T) {
	if *heavyNodes == 0 {
		t.Skip("set -store.heavy=N to run")
	}
	var opts Options
	found := false
	for _, l := range storeLayouts {
		if l.name == *heavyLayout {
			opts, found = l.opts, true
		}
	}
	if !found {
		t.Fatalf("unknown layout %q", *heavyLayout)
	}
	opts.CacheBytes = *heavyCache
	genStart := time.Now()
	g0 := newLeafGen(7, false)
	for range *heavyNodes {
		addr.Of(g0.leaf())
	}
	t.Logf("generating and hashing the nodes alone: %v", time.Since(genStart).Round(time.Millisecond))
	dir := t.TempDir()
	opts.Dir = dir
	db, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := NewNodeStore(db, testCodec{})
	ctx := context.Background()
	gen := newLeafGen(7, false)
	hs := make([]addr.Hash, 0, *heavyNodes)
	var raw int64
	cpu0, start := cpuTime(), time.Now()
	for range *heavyNodes {
		d := gen.leaf()
		h := addr.Of(d)
		hs = append(hs, h)
		raw += int64(len(d))
		if err := s.Put(ctx, h, d, &testNode{data: d}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	wall, cpu := time.Since(start), cpuTime()-cpu0
	st := s.Stats()
	t.Logf("%s: wrote %d nodes, %.0f MiB raw, %.0f MiB stored (ratio %.2f) in %v (CPU %v): %.0f MB/s, %.0f nodes/s; %d batches",
		*heavyLayout, len(hs), mib(raw), mib(st.BytesStored), float64(st.BytesRaw)/float64(st.BytesStored),
		wall.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(raw)/1e6/wall.Seconds(),
		float64(len(hs))/wall.Seconds(), st.Batches)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("peak RSS so far %.0f MiB (now: %s; Go heap in use %.0f MiB, heap sys %.0f MiB, node cache %.0f MiB); disk %.0f MiB",
		mib(peakRSS()), rssNow(), mib(int64(ms.HeapInuse)), mib(int64(ms.HeapSys)), mib(st.CacheBytes), mib(dirBytes(dir)))

	// Cold reads: node cache off, Badger reopened.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	opts.CacheBytes = -1
	db, err = Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t.Logf("disk after close/reopen %.0f MiB", mib(dirBytes(dir)))
	s = NewNodeStore(db, testCodec{})
	rng := seedRand(t, 1, 1)
	const gets = 20000
	lat := make([]time.Duration, gets)
	start = time.Now()
	for i := range gets {
		t0 := time.Now()
		if _, err := s.Get(ctx, hs[rng.IntN(len(hs))]); err != nil {
			t.Fatal(err)
		}
		lat[i] = time.Since(t0)
	}
	mean := time.Since(start) / gets
	slices.Sort(lat)
	t.Logf("cold Get over %d random addresses: mean %v, p50 %v, p99 %v", gets, mean.Round(10*time.Nanosecond),
		lat[gets/2].Round(10*time.Nanosecond), lat[gets*99/100].Round(10*time.Nanosecond))

	// Delete every other node, as a sweep would, then reclaim.
	start = time.Now()
	wb := db.Badger().NewWriteBatch()
	for i := 0; i < len(hs); i += 2 {
		if err := wb.Delete(nodeKey(hs[i])); err != nil {
			t.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Logf("deleted %d nodes in %v; disk %.0f MiB", len(hs)/2, time.Since(start).Round(time.Millisecond), mib(dirBytes(dir)))
	if *heavyLayout == "vlog" {
		// Badger learns a value-log file's discard stats from compactions
		// that drop overwritten pointers; flush the memtable (reopen) and
		// flatten so they are known, as a periodic GC would find them.
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if db, err = Open(opts); err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		if err := db.Badger().Flatten(2); err != nil {
			t.Fatal(err)
		}
		t.Logf("flatten %v", time.Since(start).Round(time.Millisecond))
		start = time.Now()
		n, err := db.RunValueLogGC(ctx, 0.3)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("value log GC rewrote %d files in %v; disk %.0f MiB", n, time.Since(start).Round(time.Millisecond), mib(dirBytes(dir)))
	}
	t.Logf("peak RSS %.0f MiB", mib(peakRSS()))
}

// rssNow returns the anonymous and file-backed resident sizes.
func rssNow() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	var parts []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "RssAnon:") || strings.HasPrefix(line, "RssFile:") {
			parts = append(parts, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(parts, ", ")
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS returns VmHWM of this process in bytes.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb int64
			for _, c := range strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")) {
				kb = kb*10 + int64(c-'0')
			}
			return kb << 10
		}
	}
	return 0
}

// dirBytes sums the allocated size of the files under dir (sparse vlog
// files count what they occupy, not their length).
func dirBytes(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				total += st.Blocks * 512
			}
		}
		return nil
	})
	return total
}
