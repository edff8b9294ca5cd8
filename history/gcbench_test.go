package history_test

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

var (
	refVersions  = flag.Int("history.refs.versions", 0, "run TestRefBench on a history of this many single-row commits (0: skip)")
	refTableRows = flag.Int("history.refs.rows", 1000, "TestRefBench: rows of the table the commits update")
)

// versionsHistory is a long history of single-row commits on one table:
// the shape that makes the version catalog, not the trees, the thing
// being measured.
type versionsHistory struct {
	f     *historytest.Fixture
	rel   *wal.Relation
	rows  int         // rows of the table
	lsns  []wal.LSN   // end LSN of every commit, oldest first
	times []time.Time // commit time of every commit (one second apart)
	ids   []int32     // the row each commit updated
}

// buildVersions copies a table of rows rows and applies versions commits
// of one random upsert each (seeded: the same seed gives the same
// history), through historytest's mirror with its small groups (7 rows),
// so there are about versions/7 group roots as well. Commits are applied
// without waiting for each write (Fixture.Apply); the history is synced
// before it returns.
func buildVersions(t *testing.T, f *historytest.Fixture, rows, versions int, seed uint64) *versionsHistory {
	t.Helper()
	h := &versionsHistory{f: f, rows: rows,
		rel:   historytest.Rel(1, "public", "hist", 1, [2]string{"id", "int8"}, [2]string{"v", "text"}, [2]string{"n", "int8"}),
		lsns:  make([]wal.LSN, 0, versions),
		times: make([]time.Time, 0, versions),
		ids:   make([]int32, 0, versions),
	}
	start := time.Now()
	init := make([][]*string, 0, rows)
	for id := range rows {
		init = append(init, []*string{historytest.S(strconv.Itoa(id)), historytest.S(fmt.Sprintf("initial value of row %d", id)), historytest.S("0")})
	}
	f.CreateTable(h.rel, init)
	t.Logf("copy of %d rows: %s", rows, time.Since(start))
	rng := rand.New(rand.NewPCG(seed, 7))
	start = time.Now()
	lap := start
	for i := range versions {
		id := rng.IntN(rows)
		lsn := f.Apply(func(tx *historytest.Tx) {
			tx.Upsert(h.rel, []*string{historytest.S(strconv.Itoa(id)), historytest.S(fmt.Sprintf("value %d of row %d", i, id)), historytest.S(strconv.Itoa(i))})
		})
		h.lsns = append(h.lsns, lsn)
		h.times = append(h.times, f.Time)
		h.ids = append(h.ids, int32(id))
		if (i+1)%100_000 == 0 {
			t.Logf("%d commits: last 100k at %.0f commits/s, load %s", i+1, 100_000/time.Since(lap).Seconds(), loadavg())
			lap = time.Now()
		}
	}
	if err := f.Mirror.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	t.Logf("%d single-row commits in %s (%.0f commits/s), data directory %s on disk", versions, el, float64(versions)/el.Seconds(), humanBytes(diskBytes(f.Dir)))
	return h
}

// timed runs fn repeatedly (at least 5 times, at most 1001, stopping
// after about 2 s once 5 runs are done) and returns the median, minimum
// and maximum. fn's error fails the test: every call is also a check.
func timed(t *testing.T, bench, name string, target time.Duration, fn func() error) cellResult {
	t.Helper()
	res := cellResult{Bench: bench, Cell: name, LoadStart: loadavg(), At: time.Now().UTC()}
	var runs []float64
	begin := time.Now()
	for len(runs) < 5 || len(runs) < 1001 && time.Since(begin) < 2*time.Second {
		start := time.Now()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runs = append(runs, float64(time.Since(start).Nanoseconds())/1e6)
	}
	res.LoadEnd = loadavg()
	res.Runs = len(runs)
	res.Median, res.MinMS, res.MaxMS = median(runs), slices.Min(runs), slices.Max(runs)
	if target > 0 {
		res.TargetMS = ms(target)
		met := res.Median <= res.TargetMS
		res.Met = &met
	}
	t.Log(res)
	recordCell(t, res)
	return res
}

// TestRefBench measures ref resolution and `log -n 20` on a history of
// -history.refs.versions single-row commits (issue #7: ≤ 10 ms at 1M
// versions), in-process through history.Service and then through the
// sidecar binary. Every resolution is checked against the LSN the
// history recorded for it.
//
//	go test ./history -run TestRefBench -history.refs.versions 1000000 -v -timeout 1h
func TestRefBench(t *testing.T) {
	n := *refVersions
	if n == 0 {
		t.Skip("set -history.refs.versions N")
	}
	if n < 20_000 {
		t.Fatalf("-history.refs.versions %d: want at least 20000 (the cells reach HEAD~10000)", n)
	}
	bin := buildSidecar(t)
	f := historytest.NewSized(t, 256<<20)
	h := buildVersions(t, f, *refTableRows, n, 1)
	ctx := t.Context()
	svc := history.New(f.DB, f.Mirror)
	last, mid := len(h.lsns)-1, len(h.lsns)/2
	if _, err := svc.CreateTag(ctx, "mid", h.lsns[mid].String()); err != nil {
		t.Fatal(err)
	}
	resolves := func(ref string, want wal.LSN) func() error {
		return func() error {
			p, err := svc.Resolve(ctx, ref)
			if err != nil {
				return err
			}
			if p.LSN() != want {
				return fmt.Errorf("resolved to %s, want %s", p.LSN(), want)
			}
			return nil
		}
	}
	const target = 10 * time.Millisecond
	backs := []int{0, 1, 100, 10_000, n / 2, n - 1}
	for i, back := range backs {
		if slices.Contains(backs[:i], back) {
			continue
		}
		ref := "HEAD"
		if back > 0 {
			ref = fmt.Sprintf("HEAD~%d", back)
		}
		timed(t, "refs", fmt.Sprintf("resolve %s (%d versions)", ref, n), target, resolves(ref, h.lsns[last-back]))
	}
	timed(t, "refs", fmt.Sprintf("resolve LSN of the middle commit %s", h.lsns[mid]), target, resolves(h.lsns[mid].String(), h.lsns[mid]))
	between := h.lsns[mid] + 4 // after the middle commit, before the next
	timed(t, "refs", fmt.Sprintf("resolve LSN between commits %s", between), target, resolves(between.String(), h.lsns[mid]))
	at := "@" + h.times[mid].UTC().Format(time.RFC3339)
	timed(t, "refs", "resolve "+at+" (middle)", target, resolves(at, h.lsns[mid]))
	timed(t, "refs", "resolve a tag (mid)", target, resolves("mid", h.lsns[mid]))
	logN := func(req history.LogRequest, top wal.LSN) func() error {
		return func() error {
			var got []string
			if err := svc.Log(ctx, req, func(e history.LogEntry) error { got = append(got, e.LSN); return nil }); err != nil {
				return err
			}
			if len(got) != req.Limit || got[0] != top.String() {
				return fmt.Errorf("%d entries from %v, want %d from %s", len(got), got[:min(1, len(got))], req.Limit, top)
			}
			return nil
		}
	}
	timed(t, "refs", "Service.Log -n 20", target, logN(history.LogRequest{Limit: 20}, h.lsns[last]))
	timed(t, "refs", "Service.Log -n 20 --until mid", target, logN(history.LogRequest{Limit: 20, Until: "mid"}, h.lsns[mid]))

	dir := f.Dir
	f.Close()
	cfg := writeBenchConfig(t, dir, "127.0.0.1:1")
	for _, c := range []cliCell{
		{name: fmt.Sprintf("sidecar log -n 20 (%d versions)", n), args: []string{"log", "-n", "20"}, check: wantLines(20)},
		{name: "sidecar diff HEAD~1 HEAD --stat", args: []string{"diff", "HEAD~1", "HEAD", "--stat"}, check: wantContains("0 rows added, 0 removed, 1 changed")},
		{name: fmt.Sprintf("sidecar diff HEAD~%d HEAD --stat", n-1), args: []string{"diff", fmt.Sprintf("HEAD~%d", n-1), "HEAD", "--stat"}, check: wantContains("changed")},
	} {
		res := runCell(t, bin, cfg, c, 5)
		res.Bench = "refs"
		t.Log(res)
		recordCell(t, res)
	}
}

var (
	gcVersions = flag.Int("history.gc.versions", 0, "run TestGCBench on a history of this many single-row commits (0: skip)")
	gcRows     = flag.Int("history.gc.rows", 100_000, "TestGCBench: rows of the table the commits update")
	gcExpire   = flag.Float64("history.gc.expire", 0.9, "TestGCBench: fraction of the oldest versions that expire")
	gcVlog     = flag.Bool("history.gc.vlog", true, "TestGCBench: run Badger's value-log GC after the sweep")
	gcCompact  = flag.Bool("history.gc.compact", false, "TestGCBench: flush and compact the LSM before the value-log GC, as the offline `sidecar gc` does (the daemon does not)")
)

// TestGCBench measures retention and garbage collection on a history of
// -history.gc.versions single-row random updates of a -history.gc.rows
// table, with small groups (7 rows), so there are about versions/7 group
// roots, each a new leaf-to-root path: once the oldest 90% of versions
// expire, about 90% of the stored nodes are garbage. It reports expiry,
// mark, sweep and value-log GC times, nodes per second and bytes on disk
// before and after, then checks that retained versions (a sample, plus
// whole-table scans compared with a model) are intact, that expired
// versions are refused, and that a tagged version below the horizon
// survived. With -history.gc.vlog=false it also checks that exactly the
// live set stays stored (see the comment on that check for why not with
// Badger's value-log GC).
//
//	go test ./history -run TestGCBench -history.gc.versions 1000000 -v -timeout 1h
func TestGCBench(t *testing.T) {
	n := *gcVersions
	if n == 0 {
		t.Skip("set -history.gc.versions N")
	}
	f := historytest.NewSized(t, 256<<20)
	h := buildVersions(t, f, *gcRows, n, 2)
	ctx := t.Context()
	svc := history.New(f.DB, f.Mirror)
	last, tagged := n-1, n/2
	cut := int(float64(n) * *gcExpire)
	if cut <= tagged || cut >= last {
		t.Fatalf("-history.gc.expire %v: the cut (version %d) must fall between the tagged version %d and the head", *gcExpire, cut, tagged)
	}
	if _, err := svc.CreateTag(ctx, "kept", h.lsns[tagged].String()); err != nil {
		t.Fatal(err)
	}
	res := cellResult{Bench: "gc", Cell: fmt.Sprintf("GC: expire the oldest %.0f%% of %d versions, mark, sweep, value-log GC", *gcExpire*100, n),
		Runs: 1, LoadStart: loadavg(), At: time.Now().UTC()}
	before := diskBytes(f.Dir)
	start := time.Now()
	st, err := svc.GC(ctx, history.GCRequest{ExpireBefore: h.times[cut], Dir: f.Dir, ValueLogGC: *gcVlog, CompactFirst: *gcCompact})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("gc: %v", err)
	}
	after := diskBytes(f.Dir)
	res.LoadEnd = loadavg()
	res.Median = ms(took)
	e := st.Expired
	res.Note = fmt.Sprintf("expire %s (%d versions, %d groups, %d islands); mark %s (%d roots, %d live nodes, %.0f nodes/s); "+
		"sweep %s (%d scanned, %d deleted = %.1f%%, %.0f nodes/s); value-log GC %s; on disk %s → %s (%s reclaimed); dir size (GCStats) %s → %s",
		e.Took, e.Versions, e.Groups, e.Islands, st.Mark, st.Roots, st.Live, float64(st.Live)/st.Mark.Seconds(),
		st.Sweep, st.Scanned, st.Deleted, 100*float64(st.Deleted)/float64(max(st.Scanned, 1)), float64(st.Scanned)/st.Sweep.Seconds(),
		st.ValueLog, humanBytes(before), humanBytes(after), humanBytes(before-after), humanBytes(st.BytesBefore), humanBytes(st.BytesAfter))

	// The horizon is a group record at or before the cut; versions from it
	// on are retained, older ones (but the tagged one) are gone.
	hz := slices.Index(h.lsns, e.Horizon)
	if hz < 0 || hz > cut || cut-hz > 64 {
		t.Fatalf("horizon %s is version %d; the cut is version %d", e.Horizon, hz, cut)
	}
	// The tag keeps an island: its group base and the commits up to it
	// (at most a group's 7).
	if e.Versions < hz-8 || e.Versions > hz {
		t.Errorf("expired %d versions; %d are older than the horizon, a few of them kept for the tag", e.Versions, hz)
	}
	if st.Deleted == 0 || st.Deleted >= st.Scanned {
		t.Errorf("sweep deleted %d of %d nodes", st.Deleted, st.Scanned)
	}
	// What is stored is what was live: nothing unreachable stays, reading
	// retained versions writes no node, and a second collection finds only
	// what came back. Exact without the value-log GC: Badger's value-log
	// rewrite, and compactions after it, bring back some of the keys the
	// sweep deleted (about 1% after one GC here; see the report), and a
	// background compaction may bring back more at any time, so with it the
	// counts are reported, not asserted.
	exact := !*gcVlog
	stored := storedNodes(t, f)
	back := stored - int64(st.Live)
	res.Note += fmt.Sprintf("; afterwards %d nodes stored (%d deleted nodes came back)", stored, back)
	t.Log(res)
	recordCell(t, res)
	if back < 0 || back > 0 && exact {
		t.Errorf("after gc: %d nodes stored, %d were live", stored, st.Live)
	}
	checkRetained(t, svc, h, hz, tagged)
	if got := storedNodes(t, f); got != stored && exact {
		t.Errorf("reading retained versions changed the stored nodes: %d, then %d", stored, got)
	}

	// A second collection: the cost of marking the live set.
	start = time.Now()
	st2, err := svc.GC(ctx, history.GCRequest{ExpireBefore: h.times[cut], Dir: f.Dir})
	if err != nil {
		t.Fatalf("second gc: %v", err)
	}
	after2 := storedNodes(t, f)
	res2 := cellResult{Bench: "gc", Cell: "GC again (nothing expires, no value-log GC)", Runs: 1, Median: ms(time.Since(start)), LoadStart: res.LoadEnd, LoadEnd: loadavg(), At: time.Now().UTC(),
		Note: fmt.Sprintf("mark %s (%d live nodes, %.0f nodes/s), sweep %s (%d scanned, %d deleted); afterwards %d nodes stored",
			st2.Mark, st2.Live, float64(st2.Live)/st2.Mark.Seconds(), st2.Sweep, st2.Scanned, st2.Deleted, after2)}
	t.Log(res2)
	recordCell(t, res2)
	if st2.Expired.Versions != 0 || st2.Live != st.Live {
		t.Errorf("second gc expired %d versions and marked %d nodes, want none and the same %d live", st2.Expired.Versions, st2.Live, st.Live)
	}
	if exact && (st2.Deleted != 0 || after2 != int64(st.Live)) {
		t.Errorf("second gc deleted %d nodes and left %d, want none deleted and %d", st2.Deleted, after2, st.Live)
	}
	checkRetained(t, svc, h, hz, tagged)
}

// checkRetained checks the history after GC: every version from index
// hz on answers a point read of the row it wrote (a sample of 300 and the
// ends), whole-table scans at three retained versions and at the tagged
// one equal the model, and versions older than hz (but the tagged one)
// are refused as unknown refs.
func checkRetained(t *testing.T, svc *history.Service, h *versionsHistory, hz, tagged int) {
	t.Helper()
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(uint64(hz), 3))
	last := len(h.lsns) - 1
	sample := []int{hz, last, tagged}
	for range 300 {
		sample = append(sample, hz+rng.IntN(last-hz+1))
	}
	for _, i := range sample {
		id := strconv.Itoa(int(h.ids[i]))
		g, err := svc.Get(ctx, history.ReadRequest{Table: "public.hist", AsOf: h.lsns[i].String(), PK: []string{id}})
		if err != nil {
			t.Fatalf("retained version %d (%s): %v", i, h.lsns[i], err)
		}
		want := fmt.Sprintf("value %d of row %s", i, id)
		if len(g.Rows) != 1 {
			t.Fatalf("version %d (%s): row %s missing", i, h.lsns[i], id)
		}
		if v, _ := g.Rows[0].Get("v"); v == nil || *v != want {
			t.Fatalf("version %d (%s): row %s has v=%v, want %q", i, h.lsns[i], id, v, want)
		}
	}
	for _, i := range []int{hz, hz + (last-hz)/2, last, tagged} {
		model := h.model(i)
		seen := 0
		err := svc.Scan(ctx, history.ReadRequest{Table: "public.hist", AsOf: h.lsns[i].String()}, func(history.ReadHeader) error { return nil },
			func(r *history.Row) error {
				idv, _ := r.Get("id")
				v, _ := r.Get("v")
				id, err := strconv.Atoi(*idv)
				if err != nil || id < 0 || id >= len(model) {
					return fmt.Errorf("row id %q out of the table", *idv)
				}
				if *v != model[id] {
					return fmt.Errorf("row %d: v=%q, want %q", id, *v, model[id])
				}
				seen++
				return nil
			})
		if err != nil {
			t.Fatalf("scan of version %d (%s): %v", i, h.lsns[i], err)
		}
		if seen != len(model) {
			t.Fatalf("scan of version %d (%s): %d rows, want %d", i, h.lsns[i], seen, len(model))
		}
	}
	for range 100 {
		i := rng.IntN(hz)
		if i == tagged {
			continue
		}
		if p, err := svc.Resolve(ctx, h.lsns[i].String()); !errors.Is(err, refs.ErrUnknownRef) {
			t.Fatalf("expired version %d (%s): resolved to %s, err %v; want ErrUnknownRef", i, h.lsns[i], p.LSN(), err)
		}
		if _, err := svc.Get(ctx, history.ReadRequest{Table: "public.hist", AsOf: h.lsns[i].String(), PK: []string{"0"}}); err == nil {
			t.Fatalf("expired version %d (%s): get succeeded", i, h.lsns[i])
		}
	}
	if _, err := svc.Resolve(ctx, fmt.Sprintf("HEAD~%d", last-hz+1)); !errors.Is(err, refs.ErrUnknownRef) {
		t.Fatalf("HEAD~%d (before the horizon): err %v, want ErrUnknownRef", last-hz+1, err)
	}
}

// model returns the table's v column as of version i.
func (h *versionsHistory) model(i int) []string {
	m := make([]string, h.rows)
	for id := range m {
		m[id] = fmt.Sprintf("initial value of row %d", id)
	}
	for j := 0; j <= i; j++ {
		m[h.ids[j]] = fmt.Sprintf("value %d of row %d", j, h.ids[j])
	}
	return m
}

// storedNodes counts the node keys in the store.
func storedNodes(t *testing.T, f *historytest.Fixture) int64 {
	t.Helper()
	var n int64
	err := f.DB.Badger().View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{store.PrefixNode}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
