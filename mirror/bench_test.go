package mirror

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

var (
	benchLoad = flag.Bool("mirror.load", false, "run TestSustainedLoad: single-row update commits through the Sink, reporting txn/s and bytes written per changed row")
	loadTxns  = flag.Int("mirror.load.txns", 300_000, "commits of TestSustainedLoad")
	loadRows  = flag.Int("mirror.load.rows", 100_000, "table size of TestSustainedLoad")
	loadGroup = flag.Duration("mirror.load.group", 0, "GroupMaxAge of TestSustainedLoad (0: the default; with a large value only the commit log is written)")
	loadRate  = flag.Int("mirror.load.rate", 0, "commits per second of TestSustainedLoad (0: as fast as the mirror goes)")
	// loadCommits stands in for GroupMaxAge at a known rate without
	// waiting for it: 48000 commits is a 10 s group at 4.8k txn/s.
	loadCommits = flag.Int("mirror.load.commits", 0, "GroupMaxCommits of TestSustainedLoad, with age and row bounds out of the way (0: the defaults)")
	// loadHex makes TestSustainedLoad's rows as incompressible as the
	// replication benchmark's (random bytea and text there, printed as
	// hex): with the blank filler a leaf compresses about 4x, which
	// understates the bytes a leaf rewrite costs.
	loadHex      = flag.Bool("mirror.load.hex", false, "TestSustainedLoad: filler of random hex per row instead of blanks")
	loadCrash    = flag.Bool("mirror.load.crash", false, "TestSustainedLoad: at the end abandon the mirror (no final flush) and report the time Open takes to replay the commits since the last group")
	groupCommits = flag.Int("mirror.treeat.commits", 10_000, "commits in BenchmarkTreeAtInGroup's group")
	bigUpdate    = flag.Int("mirror.bigupdate", 0, "run TestBigUpdate: one transaction updating this many rows (every other one) of a table twice that size, e.g. 500000")
	spillRows    = flag.Int("mirror.spill.rows", 0, "SpillRows of TestBigUpdate and of TestHugeTransaction with -mirror.big (0: the default)")
	spillBytes   = flag.Int64("mirror.spill.bytes", 0, "SpillBytes of TestBigUpdate and of TestHugeTransaction with -mirror.big (0: the default)")
	bigRows      = flag.Int("mirror.big", 0, "rows of TestHugeTransaction's transaction when set (e.g. 5000000); default a small one")
)

// pgbenchRel is pgbench_accounts: aid int PK, bid int, abalance int,
// filler char(84).
func pgbenchRel() *wal.Relation {
	return &wal.Relation{OID: 16400, Schema: "public", Name: "pgbench_accounts", Identity: wal.IdentityDefault,
		Columns: []wal.Column{
			{Name: "aid", TypeOID: 23, TypeName: "int4", TypeMod: -1, Key: true},
			{Name: "bid", TypeOID: 23, TypeName: "int4", TypeMod: -1},
			{Name: "abalance", TypeOID: 23, TypeName: "int4", TypeMod: -1},
			{Name: "filler", TypeOID: 1042, TypeName: "bpchar", TypeMod: 88},
		}}
}

var filler = fmt.Sprintf("%-84s", "")

func accountRow(aid, balance int) []wal.Value {
	t := func(s string) wal.Value { return wal.Value{Kind: wal.Text, Bytes: []byte(s)} }
	return []wal.Value{t(strconv.Itoa(aid)), t(strconv.Itoa(1 + aid/100000)), t(strconv.Itoa(balance)), t(filler)}
}

// copyAccounts is the initial copy of the load tests: rows
// pgbench_accounts rows made by row (balance 0) through one CopyRange,
// and the table marked copied at LSN 1000, where their commits start.
func (h *mharness) copyAccounts(rel *wal.Relation, rows int, row func(aid, balance int) []wal.Value) {
	h.t.Helper()
	ctx := h.t.Context()
	w, err := h.m.CopyRange(ctx, rel, wal.BlockRange{Of: 1})
	if err != nil {
		h.t.Fatal(err)
	}
	for aid := 1; aid <= rows; aid++ {
		if err := w.WriteRow(row(aid, 0)); err != nil {
			h.t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.lsn = 1000
	if err := h.m.TableCopied(ctx, rel, h.lsn); err != nil {
		h.t.Fatal(err)
	}
}

// copyRanges copies rel through ranges CopyRange writers running at
// once (range r writes what rowsOf(r, write) writes) and records the table
// with TableCopied at LSN 100; it returns the time the ranges took and
// the time TableCopied took.
func (h *mharness) copyRanges(rel *wal.Relation, ranges int, rowsOf func(r int, write func([]wal.Value) error) error) (ranged, built time.Duration) {
	h.t.Helper()
	ctx := h.t.Context()
	start := time.Now()
	var wg sync.WaitGroup
	for r := range ranges {
		wg.Go(func() {
			w, err := h.m.CopyRange(ctx, rel, wal.BlockRange{Index: r, Of: ranges})
			if err != nil {
				h.t.Error(err)
				return
			}
			if err := rowsOf(r, w.WriteRow); err != nil {
				h.t.Error(err)
				w.Abort()
				return
			}
			if err := w.Close(); err != nil {
				h.t.Error(err)
			}
		})
	}
	wg.Wait()
	ranged = time.Since(start)
	if err := h.m.TableCopied(ctx, rel, 100); err != nil {
		h.t.Fatal(err)
	}
	return ranged, time.Since(start) - ranged
}

// heapPeak samples the heap in use every 20 ms until stop is called or
// the test ends; stop waits for the sampler and returns the highest
// HeapInuse it saw. stop may be called more than once.
func heapPeak(t testing.TB) (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	stop = func() uint64 {
		once.Do(func() { close(done) })
		wg.Wait()
		return peak.Load()
	}
	t.Cleanup(func() { stop() })
	return stop
}

func dirBytes(t testing.TB, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// TestSustainedLoad applies single-row UPDATE transactions (pgbench's
// accounts update) through the Sink as fast as the mirror takes them, with
// the default group bounds, and reports commits per second, fsyncs, and
// bytes written to Badger per changed row: log and catalog records plus
// compressed nodes, and the data directory's growth.
func TestSustainedLoad(t *testing.T) {
	if !*benchLoad {
		t.Skip("run with -mirror.load")
	}
	opts := Options{}
	if *loadGroup > 0 {
		opts = Options{GroupMaxAge: *loadGroup, GroupMaxRows: 1 << 30, GroupMaxCommits: 1 << 30, GroupMaxBytes: 1 << 40}
	}
	if *loadCommits > 0 {
		opts = Options{GroupMaxAge: time.Hour, GroupMaxRows: 1 << 30, GroupMaxCommits: *loadCommits}
	}
	h := newMHarness(t, opts)
	rel := pgbenchRel()
	rows := *loadRows
	row := accountRow
	if *loadHex {
		row = hexAccountRow
	}
	ctx := t.Context()
	h.copyAccounts(rel, rows, row)
	if err := h.m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	h.m = nil
	if err := h.db.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirBytes(t, h.dir)
	ioBefore := procWriteBytes()
	h.open()
	st0 := h.m.Stats()
	rng := rand.New(rand.NewPCG(1, 2))
	n := *loadTxns
	start := time.Now()
	var every time.Duration
	if *loadRate > 0 {
		every = time.Second / time.Duration(*loadRate)
	}
	for i := range n {
		if every > 0 {
			if d := time.Until(start.Add(time.Duration(i) * every)); d > 0 {
				time.Sleep(d)
			}
		}
		info := h.begin()
		aid := 1 + rng.IntN(rows)
		c := &wal.Change{Kind: wal.Update, Relation: rel, New: row(aid, i)}
		if err := h.m.Change(ctx, c); err != nil {
			t.Fatal(err)
		}
		h.commit(info)
	}
	applied := time.Since(start)
	if err := h.m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	st := h.m.Stats()
	if *loadCrash {
		// The group's commits are only in the log now: Open replays them.
		h.m.abandon()
		h.m = nil
		if err := h.db.Close(); err != nil {
			t.Fatal(err)
		}
		var ms runtime.MemStats
		runtime.GC()
		t0 := time.Now()
		h.open()
		took := time.Since(t0)
		runtime.ReadMemStats(&ms)
		t.Logf("open after a crash: %v (replays the commits since group %s); heap in use after %d MiB",
			took.Round(time.Millisecond), h.m.lastGroup, ms.HeapInuse>>20)
	}
	if err := h.m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	h.m = nil
	if err := h.db.Close(); err != nil {
		t.Fatal(err)
	}
	h.db = nil
	after := dirBytes(t, h.dir)
	ioAfter := procWriteBytes()
	written := (st.LogBytes - st0.LogBytes) + (st.CatalogBytes - st0.CatalogBytes) + (st.NodeBytes - st0.NodeBytes)
	t.Logf("%d single-row commits on a %d-row table in %v: %.0f txn/s; %d fsyncs (%.1f commits each, %.2f ms avg); %d groups",
		n, rows, applied.Round(time.Millisecond), float64(n)/applied.Seconds(), st.Syncs, float64(n)/float64(max(st.Syncs, 1)),
		float64(st.SyncNanos)/float64(max(st.Syncs, 1))/1e6, st.Groups)
	t.Logf("written to Badger per changed row: %.0f B (log %.0f B, nodes %.0f B, catalog %.0f B); data dir (after close) grew %.0f B per row",
		float64(written)/float64(n), float64(st.LogBytes-st0.LogBytes)/float64(n), float64(st.NodeBytes-st0.NodeBytes)/float64(n),
		float64(st.CatalogBytes-st0.CatalogBytes)/float64(n), float64(after-before)/float64(n))
	if ioBefore >= 0 && ioAfter >= 0 {
		t.Logf("bytes the process wrote to disk (/proc/self/io write_bytes: Badger's value log, WAL, tables and compactions) per changed row: %.0f B",
			float64(ioAfter-ioBefore)/float64(n))
	}
}

// hexAccountRow is accountRow with a filler of 84 pseudo-random hex
// digits derived from aid (the same on every update of the row).
func hexAccountRow(aid, balance int) []wal.Value {
	r := accountRow(aid, balance)
	rng := rand.New(rand.NewPCG(uint64(aid), 7))
	b := make([]byte, 0, 84)
	for len(b) < 84 {
		b = strconv.AppendUint(b, rng.Uint64()|1<<60, 16)
	}
	r[3] = wal.Value{Kind: wal.Text, Bytes: b[:84]}
	return r
}

// procWriteBytes returns the bytes this process caused to be written to
// storage, or -1 where /proc does not say.
func procWriteBytes() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// TestHugeTransaction: a transaction far beyond the spill bounds is
// applied in chunks to scratch trees, so the mirror's memory stays
// bounded; its commit is a group of its own, its abort leaves nothing.
// With -mirror.big=5000000 it reports the heap's high-water mark.
func TestHugeTransaction(t *testing.T) {
	rows := 60_000
	opts := Options{SpillRows: 5_000}
	if *bigRows > 0 {
		rows, opts = *bigRows, Options{SpillRows: *spillRows, SpillBytes: *spillBytes}
	}
	h := newMHarness(t, opts)
	rel := pgbenchRel()
	ctx := t.Context()
	h.lsn = 1000
	if err := h.m.TableCopied(ctx, rel, h.lsn); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stopPeak := heapPeak(t)
	insertAll := func() wal.TxnInfo {
		info := h.begin()
		for aid := 1; aid <= rows; aid++ {
			if err := h.m.Change(ctx, &wal.Change{Kind: wal.Insert, Relation: rel, New: accountRow(aid, aid)}); err != nil {
				t.Fatal(err)
			}
		}
		return info
	}
	// Aborted first: nothing of it may remain.
	info := insertAll()
	if err := h.m.Abort(ctx, info); err != nil {
		t.Fatal(err)
	}
	h.lsn -= 100
	if got := h.treeRows("public.pgbench_accounts", ^wal.LSN(0)); len(got) != 0 {
		t.Fatalf("%d rows after the abort", len(got))
	}
	start := time.Now()
	info = insertAll()
	h.commit(info)
	took := time.Since(start)
	peak := stopPeak()
	if st := h.m.Stats(); st.Spills < 2 {
		t.Fatalf("%d spills, want both transactions spilled", st.Spills)
	}
	tr, err := h.m.TreeAt(ctx, "public.pgbench_accounts", info.EndLSN)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tr.Count(ctx); err != nil || n != uint64(rows) {
		t.Fatalf("count %d (%v), want %d", n, err, rows)
	}
	if row, ok, err := tr.Get(ctx, strconv.Itoa(rows/2)); err != nil || !ok || len(row) < 84 {
		t.Fatalf("get: %q %v %v", row, ok, err)
	}
	h.reopen(true)
	if got := h.m.Head().EndLSN; got != info.EndLSN {
		t.Fatalf("head after reopen %s, want %s", got, info.EndLSN)
	}
	t.Logf("%d-row transaction applied in %v (%.0f rows/s); heap in use %d MiB before, peaked at %d MiB",
		rows, took.Round(time.Millisecond), float64(rows)/took.Seconds(), base.HeapInuse>>20, peak>>20)
}

// TestBigUpdate applies one UPDATE transaction of -mirror.bigupdate rows
// (every other row of a table twice that size, as the replication
// benchmark's 500k-row UPDATE) through the Sink and reports its apply
// time, the process's CPU time, spills, heap high-water mark and bytes
// written: the cost of the spill chunk size.
func TestBigUpdate(t *testing.T) {
	if *bigUpdate <= 0 {
		t.Skip("run with -mirror.bigupdate")
	}
	h := newMHarness(t, Options{SpillRows: *spillRows, SpillBytes: *spillBytes})
	rel := pgbenchRel()
	ctx := t.Context()
	rows := 2 * *bigUpdate
	h.copyAccounts(rel, rows, hexAccountRow)
	if err := h.m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	stopPeak := heapPeak(t)
	st0 := h.m.Stats()
	cpu0 := processCPU()
	start := time.Now()
	info := h.begin()
	for aid := 2; aid <= rows; aid += 2 {
		if err := h.m.Change(ctx, &wal.Change{Kind: wal.Update, Relation: rel, New: hexAccountRow(aid, 1)}); err != nil {
			t.Fatal(err)
		}
	}
	h.commit(info)
	if err := h.m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// An unspilled transaction is applied to the trees by its group's
	// flush: count it in.
	h.m.mu.Lock()
	err := h.m.flushGroup(ctx)
	h.m.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	cpu := processCPU() - cpu0
	peak := stopPeak()
	st := h.m.Stats()
	tr, err := h.m.TreeAt(ctx, "public.pgbench_accounts", info.EndLSN)
	if err != nil {
		t.Fatal(err)
	}
	old, err := h.m.TreeAt(ctx, "public.pgbench_accounts", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tr.Count(ctx); err != nil || n != uint64(rows) {
		t.Fatalf("count %d (%v), want %d", n, err, rows)
	}
	for _, aid := range []int{1, 2, rows/2 + 1, rows} {
		a, ok, err := old.Get(ctx, strconv.Itoa(aid))
		if err != nil || !ok {
			t.Fatalf("get %d before: %v %v", aid, ok, err)
		}
		b, ok, err := tr.Get(ctx, strconv.Itoa(aid))
		if err != nil || !ok {
			t.Fatalf("get %d after: %v %v", aid, ok, err)
		}
		if changed := string(a) != string(b); changed != (aid%2 == 0) {
			t.Fatalf("row %d changed %v by the update of the even rows", aid, changed)
		}
	}
	written := (st.LogBytes - st0.LogBytes) + (st.CatalogBytes - st0.CatalogBytes) + (st.NodeBytes - st0.NodeBytes)
	t.Logf("%d-row UPDATE of a %d-row table applied in %v, process CPU %v; %d spills; heap peaked at %d MiB; %.0f MiB written to Badger",
		rows/2, rows, took.Round(time.Millisecond), cpu.Round(time.Millisecond), st.Spills-st0.Spills, peak>>20, float64(written)/(1<<20))
}

// processCPU is the user+system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCopy1M: 1M pgbench_accounts rows through CopyRange (4 ranges
// written concurrently, rows in an order unrelated to the key) and
// TableCopied (merge of the sorted runs, bulk build, node flush).
func BenchmarkCopy1M(b *testing.B) {
	rel := pgbenchRel()
	const rows, ranges = 1_000_000, 4
	perm := rand.New(rand.NewPCG(3, 4)).Perm(rows)
	for b.Loop() {
		b.StopTimer()
		h := newMHarness(b, Options{})
		b.StartTimer()
		ranged, built := h.copyRanges(rel, ranges, func(r int, write func([]wal.Value) error) error {
			for i := r; i < rows; i += ranges {
				if err := write(accountRow(1+perm[i], i)); err != nil {
					return err
				}
			}
			return nil
		})
		b.ReportMetric(ranged.Seconds(), "ranges-s")
		b.ReportMetric(built.Seconds(), "build-s")
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkTreeAtInGroup reads one row at versions inside a group of
// 10k single-row commits over a 100k-row table: "head" extends the cached
// tree by one commit per read, "random" materialises an arbitrary
// version of the group from its base each time.
func BenchmarkTreeAtInGroup(b *testing.B) {
	h := newMHarness(b, Options{GroupMaxAge: time.Hour, GroupMaxRows: 1 << 30, GroupMaxCommits: 1 << 30})
	rel := pgbenchRel()
	ctx := b.Context()
	const rows = 100_000
	commits := *groupCommits
	h.copyAccounts(rel, rows, accountRow)
	rng := rand.New(rand.NewPCG(5, 6))
	var ends []wal.LSN
	apply := func(i int) {
		info := h.begin()
		if err := h.m.Change(ctx, &wal.Change{Kind: wal.Update, Relation: rel, New: accountRow(1+rng.IntN(rows), i)}); err != nil {
			b.Fatal(err)
		}
		h.commit(info)
		ends = append(ends, info.EndLSN)
	}
	for i := range commits {
		apply(i)
	}
	if err := h.m.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	read := func(lsn wal.LSN) {
		tr, err := h.m.TreeAt(ctx, "public.pgbench_accounts", lsn)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok, err := tr.Get(ctx, "1"); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
	b.Run("head", func(b *testing.B) {
		read(ends[len(ends)-1])
		i := 0
		for b.Loop() {
			b.StopTimer()
			apply(commits + i)
			i++
			if err := h.m.Sync(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			read(ends[len(ends)-1])
		}
	})
	b.Run("random", func(b *testing.B) {
		for b.Loop() {
			read(ends[rng.IntN(commits)])
		}
	})
}

var recoveryRows = flag.Int("mirror.recovery.rows", 1_000_000, "rows of BenchmarkRecoveryFlush's table")

// BenchmarkRecoveryFlush: what a restart after a crash under the restart
// test's load (cmd/sidecar TestRestartAvailability: 51-row UPDATEs of
// consecutive ids, 200 of them since the last group) costs before the
// first read of HEAD: Open, then the flush of the replayed commits
// (Recovered), with the process's caches cold (a new store each time).
func BenchmarkRecoveryFlush(b *testing.B) {
	h := newMHarness(b, Options{GroupMaxAge: time.Hour, GroupMaxRows: 1 << 30, GroupMaxCommits: 1 << 30})
	rel := pgbenchRel()
	ctx := b.Context()
	rows := *recoveryRows
	h.copyAccounts(rel, rows, accountRow)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 200 {
		info := h.begin()
		lo := 1 + rng.IntN(rows-51)
		for id := lo; id <= lo+50; id++ {
			if err := h.m.Change(ctx, &wal.Change{Kind: wal.Update, Relation: rel, New: accountRow(id, i+1)}); err != nil {
				b.Fatal(err)
			}
		}
		h.commit(info)
	}
	if err := h.m.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	h.m.abandon()
	h.m = nil
	if err := h.db.Close(); err != nil {
		b.Fatal(err)
	}
	h.db = nil
	// Each iteration opens a copy of the crashed directory.
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		if out, err := exec.Command("cp", "-a", h.dir+"/.", dir).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		b.StartTimer()
		db, err := store.Open(store.Options{Dir: dir, CacheBytes: 8 << 20})
		if err != nil {
			b.Fatal(err)
		}
		m, err := Open(ctx, Options{DB: db, TempDir: b.TempDir(), GroupMaxAge: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		<-m.Recovered()
		tr, err := m.TreeAt(ctx, "public.pgbench_accounts", m.Head().EndLSN)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok, err := tr.Get(ctx, "7"); err != nil || !ok {
			b.Fatal(ok, err)
		}
		b.StopTimer()
		if err := m.Close(ctx); err != nil {
			b.Fatal(err)
		}
		db.Close()
		b.StartTimer()
	}
}

// BenchmarkFirstGetAfterCrash (issue 21 item 11): the first point get at
// HEAD after a crash left 200 commits of 50 random rows each after the
// last group record (a 1M-row table under the restart test's update
// load leaves about that): "rows" reads through RowsAt, over the base
// tree and the replayed edits; "tree" through TreeAt, which waits for
// Open's flush of those commits. Each iteration commits, crashes and
// opens again (not timed).
func BenchmarkFirstGetAfterCrash(b *testing.B) {
	for _, mode := range []string{"rows", "tree"} {
		b.Run(mode, func(b *testing.B) {
			h := newMHarness(b, Options{GroupMaxAge: time.Hour, GroupMaxRows: 1 << 30, GroupMaxCommits: 1 << 30})
			rel := pgbenchRel()
			ctx := b.Context()
			const rows = 200_000
			h.copyAccounts(rel, rows, accountRow)
			rng := rand.New(rand.NewPCG(5, 6))
			n := 0
			for b.Loop() {
				b.StopTimer()
				for range 200 {
					info := h.begin()
					for range 50 {
						n++
						if err := h.m.Change(ctx, &wal.Change{Kind: wal.Update, Relation: rel, New: accountRow(1+rng.IntN(rows), n)}); err != nil {
							b.Fatal(err)
						}
					}
					h.commit(info)
				}
				if err := h.m.Sync(ctx); err != nil {
					b.Fatal(err)
				}
				h.reopen(true)
				b.StartTimer()
				at := h.m.RowsAt
				if mode == "tree" {
					at = h.m.TreeAt
				}
				tr, err := at(ctx, "public.pgbench_accounts", h.m.Head().EndLSN)
				if err != nil {
					b.Fatal(err)
				}
				if _, ok, err := tr.Get(ctx, "7"); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
