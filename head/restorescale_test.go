package head

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"golang.org/x/sys/unix"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/store"
)

// TestRestoreIndexKeysAtScale measures what a restart spends on a table's
// radix index and key store, the whole of a 30M-row restart once the heap
// pages are mapped (session 17): the same index and key store (bigint
// keys 1..n, 1,024 rows a heap page, built as applyOps builds them) are
// checkpointed in both formats into a store on disk — record version 3's
// streams (decoded at restore) and version 4's images — and each is
// restored from a store just opened with its files dropped from the OS
// page cache (posix_fadvise DONTNEED per file, as sidecar-bench scale's
// cold restart), alternating, SIDECAR_SCALE_REPS times. It runs only with
// SIDECAR_SCALE_ROWS set (run it under a memory cgroup: at 30M rows it
// holds ≈ 1.1 GB); SIDECAR_SCALE_DIR is the store's directory (default a
// temporary one).
func TestRestoreIndexKeysAtScale(t *testing.T) {
	n, reps, dir := scaleParams(t, "restorescale")
	rel := benchRelation()
	const name = "public.bench"
	var recs [5]tableRecord // [0] streams (version 3), [1] images (version 4), [2] image files (version 5, mapped), [3] in parts (version 6, mapped), [4] [3] without its key directory file (each part's tail read)
	func() {
		m := New(Options{})
		src, err := m.newTable(name, rel, heap.Config{})
		if err != nil {
			t.Fatal(err)
		}
		src.ix.Update(1, func(tr *radixindex.Tree) {
			for i := range n {
				k := benchKey(i + 1)
				id := heap.MakeRowID(uint32(i/1024), i%1024)
				src.keys.set(id, k)
				tr.Put(k, uint64(id))
			}
		})
		db, err := store.Open(store.Options{Dir: dir, CacheBytes: 8 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for v := range recs {
			gen := uint64(v + 1)
			if v == 4 {
				recs[4] = recs[3]
				recs[4].KeyDirFile, recs[4].KeyDirLen = "", 0
				continue
			}
			if v >= 2 {
				idir := filepath.Join(dir, imageDirName)
				if err := os.MkdirAll(idir, 0o700); err != nil {
					t.Fatal(err)
				}
				f := src.ix.Freeze()
				tc := &tableCut{name: name, index: f, keys: frozenKeys{pages: src.keys.pages}}
				rec := tableRecord{Name: name}
				var err error
				if v == 2 {
					err = writeTableFiles(&Persist{}, idir, gen, 0, tc, &rec)
				} else {
					_, _, err = writeTableParts(&Persist{}, idir, gen, 0, tc, &rec, nil)
				}
				f.Release()
				if err != nil {
					t.Fatal(err)
				}
				recs[v] = rec
				continue
			}
			wb := db.Badger().NewWriteBatch()
			ix := &streamWriter{wb: wb, gen: gen, table: name, kind: 'i'}
			ks := &streamWriter{wb: wb, gen: gen, table: name, kind: 'k'}
			f := src.ix.Freeze()
			if v == 0 {
				_, err = f.WriteCheckpoint(ix)
			} else {
				_, err = f.WriteImage(ix)
			}
			f.Release()
			if err == nil {
				err = ix.close()
			}
			if err == nil && v == 0 {
				err = encodeKeyPagesTo(ks, src.keys.pages)
			} else if err == nil {
				err = writeKeyImage(ks, src.keys.pages)
			}
			if err == nil {
				err = ks.close()
			}
			if err == nil {
				err = wb.Flush()
			}
			if err != nil {
				t.Fatal(err)
			}
			recs[v] = tableRecord{Name: name, IndexLen: ix.len, KeysLen: ks.len, IndexCRC: ix.crc, KeysCRC: ks.crc}
		}
		ib, kb := src.IndexBytes()
		t.Logf("%d rows: index %d B, key store %d B in memory; version 3 streams %d + %d B, version 4 images %d + %d B, version 5 files %d + %d B",
			n, ib, kb, recs[0].IndexLen, recs[0].KeysLen, recs[1].IndexLen, recs[1].KeysLen, recs[2].IndexLen, recs[2].KeysLen)
	}()
	runtime.GC()
	restore := func(v int) time.Duration {
		dropCache(dir)
		db, err := store.Open(store.Options{Dir: dir, CacheBytes: 8 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		m := New(Options{})
		tb, err := m.newTable(name, rel, heap.Config{})
		if err != nil {
			t.Fatal(err)
		}
		rss0 := vmRSS()
		start := time.Now()
		var ix *radixindex.Index
		var im *tableImages
		switch v {
		case 0:
			err = db.Badger().View(func(txn *badger.Txn) error {
				ix, err = restoreIndex(txn, tb, 1, recs[0])
				return err
			})
		case 1:
			ix, err = restoreIndexImage(db.Badger(), tb, 2, recs[1])
		case 2:
			ix, im, err = restoreIndexFiles(filepath.Join(dir, imageDirName), tb, recs[2])
		default:
			ix, im, _, err = restoreIndexParts(filepath.Join(dir, imageDirName), tb, recs[v])
		}
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Len() != n {
			t.Fatalf("restored %d keys, want %d", ix.Len(), n)
		}
		if id, ok := ix.Get(benchKey(n / 2)); !ok || id != uint64(heap.MakeRowID(uint32((n/2-1)/1024), (n/2-1)%1024)) {
			t.Fatalf("key %d: row %v, %v", n/2, heap.RowID(id), ok)
		}
		first := time.Since(start)
		// 1,000 random point lookups more (a mapped index faults their
		// pages in).
		rng := rand.New(rand.NewPCG(uint64(v), 7))
		for range 1000 {
			i := rng.IntN(n)
			if id, ok := ix.Get(benchKey(i + 1)); !ok || id != uint64(heap.MakeRowID(uint32(i/1024), i%1024)) {
				t.Fatalf("key %d: row %v, %v", i+1, heap.RowID(id), ok)
			}
		}
		gets := time.Since(start) - first
		runtime.GC()
		var res int64
		if im != nil {
			res = im.residentBytes()
		}
		t.Logf("%s: restore %v, to the first lookup %v, 1,000 lookups after %v; RSS %d MiB -> %d MiB (mapped resident %d MiB)",
			restoreVariants[v], took.Round(time.Millisecond), first.Round(time.Millisecond), gets.Round(time.Millisecond), rss0>>20, vmRSS()>>20, res>>20)
		runtime.KeepAlive(tb)
		if im != nil {
			im.unmap()
		}
		return took
	}
	var load [3]float64
	for r := range reps {
		for i := range len(recs) {
			v := (r + i) % len(recs)
			took := restore(v)
			load = loadAvg()
			t.Logf("rep %d: %s restored in %v (load %.1f %.1f %.1f)", r, restoreVariants[v], took.Round(time.Millisecond), load[0], load[1], load[2])
		}
	}
}

// scaleParams reads the scale tests' environment: the rows
// (SIDECAR_SCALE_ROWS; the test is skipped without it), the repetitions
// (SIDECAR_SCALE_REPS, at least 1) and the store's directory: sub in
// SIDECAR_SCALE_DIR, emptied now and removed after the test, or a
// temporary one.
func scaleParams(t *testing.T, sub string) (n, reps int, dir string) {
	t.Helper()
	n, _ = strconv.Atoi(os.Getenv("SIDECAR_SCALE_ROWS"))
	if n <= 0 {
		t.Skip("set SIDECAR_SCALE_ROWS to the number of rows")
	}
	reps, _ = strconv.Atoi(os.Getenv("SIDECAR_SCALE_REPS"))
	reps = max(reps, 1)
	dir = os.Getenv("SIDECAR_SCALE_DIR")
	if dir == "" {
		return n, reps, t.TempDir()
	}
	dir = filepath.Join(dir, sub)
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return n, reps, dir
}

// restoreVariants names TestRestoreIndexKeysAtScale's records.
var restoreVariants = []string{"version 3 (streams)", "version 4 (images)", "version 5 (mapped files)",
	"version 6 (mapped parts, key directory file)", "version 6 (mapped parts, each part's tail read)"}

// vmRSS is the process's resident set (VmRSS) in bytes.
func vmRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

// dropCache asks the kernel to drop dir's files from its page cache.
func dropCache(dir string) {
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		_ = unix.Fdatasync(int(f.Fd()))
		_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		f.Close()
		return nil
	})
}

// loadAvg is /proc/loadavg's three figures.
func loadAvg() [3]float64 {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	f := strings.Fields(string(b))
	for i := range min(3, len(f)) {
		l[i], _ = strconv.ParseFloat(f[i], 64)
	}
	return l
}
