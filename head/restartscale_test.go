package head

import (
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/store"
)

// TestRestartAtScale measures a restart's two big steps on a table of
// SIDECAR_SCALE_ROWS rows (built as applyOps builds it, checkpointed
// once): opening the store and restoring the model from its checkpoint
// (Restore, as the daemon's load: mapped index and key store, cold heap
// pages), each with the store's files dropped from the OS page cache
// first, SIDECAR_SCALE_REPS times; with SIDECAR_SCALE_PROFILE set, a CPU
// profile of each restore into that directory; with SIDECAR_SCALE_DEBUG
// set, Badger's debug log on stderr. Figures are logged only.
// It runs only with SIDECAR_SCALE_ROWS set (run it under a memory
// cgroup; SIDECAR_SCALE_DIR is the store's directory).
func TestRestartAtScale(t *testing.T) {
	n, reps, dir := scaleParams(t, "restartscale")
	opts := store.Options{Dir: dir, CacheBytes: 64 << 20}
	if os.Getenv("SIDECAR_SCALE_DEBUG") != "" {
		// Badger's own account of its open (replay, tables, compactions).
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	func() {
		db, err := store.Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		m, _ := loadTable(t, n)
		m.opts.Persist = &Persist{DB: db, Every: -1}
		st, err := m.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d rows checkpointed in %v: %d heap pages, %d MiB images, %d MiB index and key store", n, st.Took.Round(time.Millisecond), st.HeapPages, st.HeapBytes>>20, (st.IndexBytes+st.KeyBytes)>>20)
	}()
	runtime.GC()
	for r := range reps {
		dropCache(dir)
		start := time.Now()
		db, err := store.Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		opened := time.Since(start)
		var prof *os.File
		if pd := os.Getenv("SIDECAR_SCALE_PROFILE"); pd != "" {
			if prof, err = os.Create(filepath.Join(pd, "restore-"+strconv.Itoa(r)+".pprof")); err != nil {
				t.Fatal(err)
			}
			if err := pprof.StartCPUProfile(prof); err != nil {
				t.Fatal(err)
			}
		}
		cpu0 := processCPU()
		start = time.Now()
		var prog restoreProgress
		m := restoreCounting(Options{Persist: &Persist{DB: db, Every: -1}}, &prog)
		took := time.Since(start)
		cpu := processCPU() - cpu0
		if prof != nil {
			pprof.StopCPUProfile()
			prof.Close()
		}
		if len(m.tables) != 1 || m.Table("public.bench").ix.Len() != n {
			t.Fatalf("restored %d tables", len(m.tables))
		}
		t.Logf("rep %d: store open %v; restore %v (cpu %v; heaps %v, index and keys %v); load %.1f", r, opened.Round(time.Millisecond), took.Round(time.Millisecond), cpu.Round(time.Millisecond),
			time.Duration(prog.heaps.Load()).Round(time.Millisecond), time.Duration(prog.indexKeys.Load()).Round(time.Millisecond), loadAvg()[0])
		m.Close()
		db.Close()
	}
}
