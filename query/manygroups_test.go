package query

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// TestManyGroupsArray: GROUP BY an integer column whose value range is
// past 64 Ki but within arraySpan, so the array grouping and its merge by
// slot run (with NULL keys, repeated keys, several workers, a WHERE and a
// HAVING), against a map built row by row. Sparse ranges past arraySpan
// take the hash path; both must agree with the reference.
func TestManyGroupsArray(t *testing.T) {
	s := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(s, 0x6e))
	for _, tc := range []struct {
		name string
		rows int
		step int64 // key = (i / repeat) * step + offset
	}{
		{"dense", 150_000, 1},
		{"3 slots a value", 100_000, 3},
		{"sparse, hash path", 60_000, 1_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := heap.New(heap.Schema{Columns: []heap.Column{
				{Name: "g", Kind: heap.KindInt8}, {Name: "v", Kind: heap.KindInt4},
			}}, heap.Config{PageRows: 512})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			type agg struct{ n, sum int64 }
			want := map[string]agg{} // key text ("" is NULL) → count, sum(v) of rows with v > -900
			offset := int64(rng.IntN(1000) - 500)
			var ops []heap.Op
			for i := range tc.rows {
				var g []byte
				key := ""
				if rng.IntN(50) != 0 {
					x := int64(i/(1+rng.IntN(3)))*tc.step + offset
					g = strconv.AppendInt(nil, x, 10)
					key = string(g)
				}
				v := int64(rng.IntN(2000) - 1000)
				if v > -900 {
					a := want[key]
					a.n++
					a.sum += v
					want[key] = a
				}
				ops = append(ops, heap.Op{Kind: heap.OpInsert, Row: rowenc.Append(nil, [][]byte{g, strconv.AppendInt(nil, v, 10)})})
				if len(ops) == 1<<14 || i == tc.rows-1 {
					if _, err := h.Apply(heap.Batch{LSN: uint64(i + 1), Ops: ops}); err != nil {
						t.Fatal(err)
					}
					ops = ops[:0]
				}
			}
			// HAVING count(*) >= 1 keeps every group WHERE left.
			req := Request{GroupBy: []string{"g"}, Aggs: []Agg{{Func: "count"}, {Func: "sum", Col: "v"}},
				Where:  &Expr{Op: ">", Col: "v", Values: []string{"-900"}},
				Having: &Expr{Op: ">=", Col: "count(*)", Values: []string{"1"}}}
			p, err := Bind(req, h.Schema())
			if err != nil {
				t.Fatal(err)
			}
			snap := h.Snapshot()
			defer snap.Release()
			for _, workers := range []int{1, 2, 3} {
				res, err := Run(context.Background(), p, FromSnapshot(snap), Options{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Rows) != len(want) {
					t.Fatalf("seed %d: %d workers: %d groups, want %d", s, workers, len(res.Rows), len(want))
				}
				seen := map[string]bool{}
				for r := range res.Rows {
					k, ok := res.Text(r, 0)
					if !ok {
						k = ""
					}
					n, _ := res.Text(r, 1)
					sum, _ := res.Text(r, 2)
					w, in := want[k]
					if !in || seen[k] || n != strconv.FormatInt(w.n, 10) || sum != strconv.FormatInt(w.sum, 10) {
						t.Fatalf("seed %d: %d workers: group %q: count %s sum %s, want %+v (known %v, seen before %v)",
							s, workers, k, n, sum, w, in, seen[k])
					}
					seen[k] = true
				}
			}
		})
	}
}
