package mirror

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/replication"
)

var (
	benchLoad = flag.Bool("mirror.load", false, "run TestSustainedLoad: single-row update commits through the Sink, reporting txn/s and bytes written per changed row")
	loadTxns  = flag.Int("mirror.load.txns", 300_000, "commits of TestSustainedLoad")
	loadRows  = flag.Int("mirror.load.rows", 100_000, "table size of TestSustainedLoad")
	loadGroup = flag.Duration("mirror.load.group", 0, "GroupMaxAge of TestSustainedLoad (0: the default; with a large value only the commit log is written)")
	loadRate  = flag.Int("mirror.load.rate", 0, "commits per second of TestSustainedLoad (0: as fast as the mirror goes)")
	bigRows   = flag.Int("mirror.big", 0, "rows of TestHugeTransaction's transaction when set (e.g. 5000000); default a small one")
)

// pgbenchRel is pgbench_accounts: aid int PK, bid int, abalance int,
// filler char(84).
func pgbenchRel() *replication.Relation {
	return &replication.Relation{OID: 16400, Schema: "public", Name: "pgbench_accounts", Identity: replication.IdentityDefault,
		Columns: []replication.Column{
			{Name: "aid", TypeOID: 23, TypeName: "int4", TypeMod: -1, Key: true},
			{Name: "bid", TypeOID: 23, TypeName: "int4", TypeMod: -1},
			{Name: "abalance", TypeOID: 23, TypeName: "int4", TypeMod: -1},
			{Name: "filler", TypeOID: 1042, TypeName: "bpchar", TypeMod: 88},
		}}
}

var filler = fmt.Sprintf("%-84s", "")

func accountRow(aid, balance int) []replication.Value {
	t := func(s string) replication.Value { return replication.Value{Kind: replication.Text, Bytes: []byte(s)} }
	return []replication.Value{t(strconv.Itoa(aid)), t(strconv.Itoa(1 + aid/100000)), t(strconv.Itoa(balance)), t(filler)}
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
	h := newMHarness(t, opts)
	rel := pgbenchRel()
	rows := *loadRows
	ctx := t.Context()
	w, err := h.m.CopyRange(ctx, rel, replication.BlockRange{Of: 1})
	if err != nil {
		t.Fatal(err)
	}
	for aid := 1; aid <= rows; aid++ {
		if err := w.WriteRow(accountRow(aid, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h.lsn = 1000
	if err := h.m.TableCopied(ctx, rel, h.lsn); err != nil {
		t.Fatal(err)
	}
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
		c := &replication.Change{Kind: replication.Update, Relation: rel, New: accountRow(aid, i)}
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
		rows, opts = *bigRows, Options{}
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
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	insertAll := func() replication.TxnInfo {
		info := h.begin()
		for aid := 1; aid <= rows; aid++ {
			if err := h.m.Change(ctx, &replication.Change{Kind: replication.Insert, Relation: rel, New: accountRow(aid, aid)}); err != nil {
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
	if got := h.treeRows("public.pgbench_accounts", ^replication.LSN(0)); len(got) != 0 {
		t.Fatalf("%d rows after the abort", len(got))
	}
	start := time.Now()
	info = insertAll()
	h.commit(info)
	took := time.Since(start)
	close(stop)
	wg.Wait()
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
		rows, took.Round(time.Millisecond), float64(rows)/took.Seconds(), base.HeapInuse>>20, peak.Load()>>20)
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
		start := time.Now()
		var wg sync.WaitGroup
		for r := range ranges {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w, err := h.m.CopyRange(b.Context(), rel, replication.BlockRange{Index: r, Of: ranges})
				if err != nil {
					b.Error(err)
					return
				}
				for i := r; i < rows; i += ranges {
					if err := w.WriteRow(accountRow(1+perm[i], i)); err != nil {
						b.Error(err)
						return
					}
				}
				if err := w.Close(); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		ranged := time.Since(start)
		if err := h.m.TableCopied(b.Context(), rel, 100); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(ranged.Seconds(), "ranges-s")
		b.ReportMetric(time.Since(start).Seconds()-ranged.Seconds(), "build-s")
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
	w, err := h.m.CopyRange(ctx, rel, replication.BlockRange{Of: 1})
	if err != nil {
		b.Fatal(err)
	}
	const rows, commits = 100_000, 10_000
	for aid := 1; aid <= rows; aid++ {
		if err := w.WriteRow(accountRow(aid, 0)); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	h.lsn = 1000
	if err := h.m.TableCopied(ctx, rel, h.lsn); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var ends []replication.LSN
	apply := func(i int) {
		info := h.begin()
		if err := h.m.Change(ctx, &replication.Change{Kind: replication.Update, Relation: rel, New: accountRow(1+rng.IntN(rows), i)}); err != nil {
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
	read := func(lsn replication.LSN) {
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
