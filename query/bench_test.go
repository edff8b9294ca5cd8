package query

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/rowenc"
)

const benchRows = 1_000_000

// benchScore is row i's score; PostgreSQL's copy computes the same
// ((i*7919) % 2000) - 1000, so both print one count:sum checksum.
func benchScore(i int64) int64 { return (i*7919)%2000 - 1000 }

// The benchmark table of issue 14: id bigint, k text, v text, score int,
// grp int (grp in 0..99, score in -1000..999), 1M rows.
var (
	benchOnce sync.Once
	benchHeap *heap.Heap
	benchSum  int64
)

var benchSchema = heap.Schema{Columns: []heap.Column{
	{Name: "id", Kind: heap.KindInt8}, {Name: "k", Kind: heap.KindText}, {Name: "v", Kind: heap.KindText},
	{Name: "score", Kind: heap.KindInt4}, {Name: "grp", Kind: heap.KindInt4},
}}

func benchTable(b *testing.B) *heap.Heap {
	benchOnce.Do(func() {
		h, err := heap.New(benchSchema, heap.Config{})
		if err != nil {
			b.Fatal(err)
		}
		const rows = benchRows
		var ops []heap.Op
		for i := range rows {
			score := benchScore(int64(i))
			benchSum += score
			vals := [][]byte{strconv.AppendInt(nil, int64(i), 10), []byte("key" + strconv.Itoa(i)), []byte("value-" + strconv.Itoa(i%977)),
				strconv.AppendInt(nil, score, 10), strconv.AppendInt(nil, int64(i%100), 10)}
			ops = append(ops, heap.Op{Kind: heap.OpInsert, Row: rowenc.Append(nil, vals)})
			if len(ops) == 1<<16 || i == rows-1 {
				if _, err := h.Apply(heap.Batch{LSN: uint64(i), Ops: ops}); err != nil {
					b.Fatal(err)
				}
				ops = ops[:0]
			}
		}
		benchHeap = h
	})
	return benchHeap
}

func benchRun(b *testing.B, req Request, opt Options) {
	h := benchTable(b)
	p, err := Bind(req, benchSchema)
	if err != nil {
		b.Fatal(err)
	}
	snap := h.Snapshot()
	defer snap.Release()
	var res *Result
	b.ResetTimer()
	for b.Loop() {
		if res, err = Run(b.Context(), p, FromSnapshot(snap), opt); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if len(res.Rows) > 0 && len(res.Rows[0]) == 2 && len(req.GroupBy) == 0 {
		c, _ := res.Text(0, 0)
		s, _ := res.Text(0, 1)
		b.Logf("checksum %s:%s (want sum %d)", c, s, benchSum)
	}
}

var countSum = []Agg{{Func: "count"}, {Func: "sum", Col: "score"}}

func BenchmarkScanFull(b *testing.B) {
	benchRun(b, Request{Aggs: countSum}, Options{NoSummaries: true})
}

func BenchmarkScanFullSummaries(b *testing.B) {
	benchRun(b, Request{Aggs: countSum}, Options{})
}

func BenchmarkScanProjected(b *testing.B) {
	benchRun(b, Request{Aggs: []Agg{{Func: "sum", Col: "score"}}, Where: &Expr{Op: "<", Col: "grp", Values: []string{"10"}}}, Options{})
}

func BenchmarkGroupHaving(b *testing.B) {
	benchRun(b, Request{Aggs: []Agg{{Func: "sum", Col: "score"}}, GroupBy: []string{"grp"},
		Having: &Expr{Op: ">", Col: "sum(score)", Values: []string{"0"}}}, Options{})
}

// BenchmarkGroupManyGroups: GROUP BY the dense integer key (1M groups of
// one row each), HAVING keeping none: the per-group cost of grouping,
// merging the workers' partials and finishing.
func BenchmarkGroupManyGroups(b *testing.B) {
	benchRun(b, Request{GroupBy: []string{"id"}, Aggs: []Agg{{Func: "count"}, {Func: "sum", Col: "score"}},
		Having: &Expr{Op: ">", Col: "count(*)", Values: []string{"1"}}}, Options{})
}

// BenchmarkGoLoopFloor: summing the score column held as one []int64 on
// one core, the floor a scan of that column approaches.
func BenchmarkGoLoopFloor(b *testing.B) {
	h := benchTable(b)
	snap := h.Snapshot()
	defer snap.Release()
	var col []int64
	for i := range snap.NumPages() {
		v := snap.Page(i)
		col = append(col, v.Int64s(3)[:v.Slots()]...)
	}
	var s int64
	for b.Loop() {
		s = 0
		for _, x := range col {
			s += x
		}
	}
	b.StopTimer()
	if s != benchSum {
		b.Fatal(fmt.Sprint(s, benchSum))
	}
}
