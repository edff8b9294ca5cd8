package exec_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/types"
)

// partialSource is memSource as a LateSource that, when the scan's
// reader offers to aggregate in the workers (ScanRequest.Partial), does
// what the HEAD's parallel scan does: batches of per rows go to workers
// goroutines in turn, each aggregating its batches (AggWorker.Add, at
// most limit groups each), and the batches a worker leaves rows in are
// handed on in the scan's order, a worker's error at its batch's place.
type partialSource struct {
	*memSource
	per, workers, limit int
	mu                  sync.Mutex
	partial, handed     int // scans with workers; batches handed on by them
	typed               int // values handed typed
}

func (m *partialSource) ScanTyped(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	return m.ScanLate(ctx, req, nil, fn)
}

func (m *partialSource) ScanLate(ctx context.Context, req *exec.ScanRequest, lf *exec.LateFilter, fn func(*exec.Batch) error) error {
	var batches []*exec.Batch
	rows := m.rows[req.Table.Name]
	for start := 0; start < len(rows); start += m.per {
		b, err := typedBatch(req, rows[start:min(start+m.per, len(rows))], m.per)
		if err != nil {
			return err
		}
		if lf != nil {
			if err := lf.Filter(b); err != nil {
				return err
			}
		}
		if req.Partial != nil || req.Small != nil {
			m.mu.Lock()
			m.typed += typeSmall(b, req)
			m.mu.Unlock()
		}
		batches = append(batches, b)
	}
	errs := make([]error, len(batches))
	if req.Partial != nil {
		exec.SetPartialGroups(req.Partial, m.limit)
		var wg sync.WaitGroup
		for w := range m.workers {
			aw, err := req.Partial.Worker()
			if err != nil {
				return err
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(batches); i += m.workers {
					if errs[i] = aw.Add(batches[i]); errs[i] != nil {
						return
					}
				}
			}()
		}
		wg.Wait()
		m.mu.Lock()
		m.partial++
		m.mu.Unlock()
	}
	for i, b := range batches {
		if errs[i] != nil {
			return errs[i]
		}
		if b.N == 0 {
			continue
		}
		if req.Partial != nil {
			m.mu.Lock()
			m.handed++
			m.mu.Unlock()
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// TestDifferentialPartial runs every differential file with partial
// aggregation in three workers of at most two groups each over batches
// of three rows: the answers are still PostgreSQL's.
func TestDifferentialPartial(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	ps := &partialSource{memSource: src, per: 3, workers: 3, limit: 2}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.diff.sql"))
	compareFiles(ctx, t, conn, cat, ps, files)
	if ps.partial == 0 || ps.handed == 0 {
		t.Fatalf("scans aggregated in workers %d, batches they handed on %d: both paths are reached only when both are nonzero", ps.partial, ps.handed)
	}
	t.Logf("scans aggregated in workers %d, batches handed on %d", ps.partial, ps.handed)
}

// TestPartialAggMatchesSequential: over 30,000 rows, the aggregations
// run in workers (in memory, and with the statement's goroutine
// spilling while the workers hold groups) answer the rows the
// statement's goroutine alone answers.
func TestPartialAggMatchesSequential(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	src := &memSource{rows: map[string][][]*string{"w": spillRows(rand.New(rand.NewPCG(seed.New(t, seedFlag), 5)), 30000)}}
	tmp := t.TempDir()
	stmts := []string{
		"SELECT grp, count(*), sum(y), max(x), avg(y), count(f) FROM w GROUP BY grp",
		"SELECT k, count(*), sum(y * x), avg(x), min(id) FROM w GROUP BY k",
		"SELECT id % 7, y, count(*) FILTER (WHERE f > 10), sum(x) FROM w GROUP BY id % 7, y",
		"SELECT count(*), sum(y), avg(y * 3.5), sum(x) FROM w WHERE k > 10",
		"SELECT grp, k, count(*) FROM w WHERE x > 100 GROUP BY grp, k HAVING count(*) > 1",
	}
	lines := func(s string) []string {
		l := strings.Split(s, "\n")
		slices.Sort(l)
		return l
	}
	for _, limit := range []int{16, 4096} {
		ps := &partialSource{memSource: src, per: 64, workers: 3, limit: limit}
		for _, q := range stmts {
			want := runSQL(cat, src, q, 1<<34)
			if strings.Contains(want, "error") {
				t.Fatalf("%s: %.300s", q, want)
			}
			for _, opts := range []exec.Options{{WorkMem: 1 << 34}, {WorkMem: 200 << 10, TempDir: tmp}} {
				got := runSQLWith(cat, ps, q, opts)
				if g, w := lines(got), lines(want); !slices.Equal(g, w) {
					t.Errorf("%s (limit %d, work_mem %d): the workers' answer differs (%d lines, want %d): %.300s", q, limit, opts.WorkMem, len(g), len(w), got)
				}
				if es, _ := os.ReadDir(tmp); len(es) != 0 {
					t.Errorf("%s: %d entries left in the temporary directory", q, len(es))
				}
			}
		}
		if ps.partial == 0 {
			t.Fatalf("limit %d: no scan aggregated in the workers", limit)
		}
	}
}

// TestPartialAggBytes: groups of long keys fill a worker by their bytes
// (partialBytes) before their count: the batches past it are handed on,
// and the answer is still the sequential one.
func TestPartialAggBytes(t *testing.T) {
	cat, err := plantest.LoadCatalog("testdata/tables.sql")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]*string
	for i := range 6000 {
		name, n := fmt.Sprintf("%04d%s", i%3000, strings.Repeat("x", 2000)), fmt.Sprint(i)
		rows = append(rows, []*string{&name, &n})
	}
	src := &memSource{rows: map[string][][]*string{"t1": rows}}
	q := "SELECT name, count(*), sum(n), min(n) FROM t1 GROUP BY name"
	want := runSQL(cat, src, q, 1<<34)
	ps := &partialSource{memSource: src, per: 256, workers: 2, limit: 4096}
	got := runSQL(cat, ps, q, 1<<34)
	if got != want && strings.Join(sortedLines(got), "\n") != strings.Join(sortedLines(want), "\n") {
		t.Fatalf("the workers' answer differs: %.300s", got)
	}
	if ps.partial == 0 || ps.handed == 0 {
		t.Fatalf("scans aggregated in workers %d, batches handed on %d: 3,000 keys of 2kB should fill the workers", ps.partial, ps.handed)
	}
}

func sortedLines(s string) []string {
	l := strings.Split(s, "\n")
	slices.Sort(l)
	return l
}

// typedBatch is rows of req's table decoded into a batch of req's
// columns with room for size rows.
func typedBatch(req *exec.ScanRequest, rows [][]*string, size int) (*exec.Batch, error) {
	b := &exec.Batch{N: len(rows), Vecs: make([][]types.Value, len(req.Ords))}
	for c, ord := range req.Ords {
		b.Vecs[c] = make([]types.Value, size)
		for i, r := range rows {
			if ord >= len(r) || r[ord] == nil {
				continue
			}
			v, err := types.In(req.OIDs[c], -1, *r[ord])
			if err != nil {
				return nil, fmt.Errorf("decode %s: %w", req.Table.Name, err)
			}
			b.Vecs[c][i] = v
		}
	}
	return b, nil
}

// typeSmall hands the vectors the partial aggregation reads only through
// its small path (PartialAgg.SmallCols) typed, as the HEAD's scan does
// (sqlfront's vexec_typed.go), and the vectors a scan under joins is
// asked for typed (ScanRequest.Small): an integer, or a numeric whose
// digits fit an int64, goes to the batch's SmallVec with its Vecs slot
// nil; NULL and any other numeric stay boxed. It returns how many values
// went typed.
func typeSmall(b *exec.Batch, req *exec.ScanRequest) int {
	want := req.Small
	if req.Partial != nil {
		want = req.Partial.SmallCols()
	}
	n := 0
	for c, want := range want {
		if !want || c >= len(b.Vecs) {
			continue
		}
		var sv *exec.SmallVec
		for i := 0; i < b.N; i++ {
			var x int64
			var scale int32
			switch v := b.Vecs[c][i].(type) {
			case int64:
				x = v
			case *types.Decimal:
				if v.NaN || v.Inf != 0 || !v.V.IsInt64() {
					continue
				}
				x, scale = v.V.Int64(), v.Scale
			default:
				continue
			}
			if sv == nil {
				_, numeric := b.Vecs[c][i].(*types.Decimal)
				sv = exec.NewSmallVec(numeric)
				for len(b.Small) < len(b.Vecs) {
					b.Small = append(b.Small, nil)
				}
				b.Small[c] = sv
			}
			sv.X[i], sv.Scale[i], sv.OK[i], b.Vecs[c][i] = x, scale, true, nil
			n++
		}
	}
	return n
}
