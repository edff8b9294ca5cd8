package history_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/replication"
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
	rel   *replication.Relation
	rows  int               // rows of the table
	lsns  []replication.LSN // end LSN of every commit, oldest first
	times []time.Time       // commit time of every commit (one second apart)
	ids   []int32           // the row each commit updated
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
		lsns:  make([]replication.LSN, 0, versions),
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
	resolves := func(ref string, want replication.LSN) func() error {
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
	logN := func(req history.LogRequest, top replication.LSN) func() error {
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
	cfg := writeBenchConfig(t, dir)
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
