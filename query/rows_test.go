package query

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// rowsHeap is modelSchema's table with a and t never NULL (they are key
// columns in some of the keys TestScanRowsModel orders by) and ids
// inserted in random order, updated in place or moved, and deleted, in
// pages small enough that the heap's order is far from the key's.
func rowsHeap(t *testing.T, r *rand.Rand) *heap.Heap {
	h, err := heap.New(modelSchema, heap.Config{PageRows: 8 << r.IntN(4)})
	if err != nil {
		t.Fatal(err)
	}
	row := func(id int64) []byte {
		vals := make([][]byte, len(modelSchema.Columns))
		vals[0] = strconv.AppendInt(nil, id, 10)
		for c := 1; c < len(vals); c++ {
			vals[c] = randCell(r, c)
			for (c == 1 || c == 6) && vals[c] == nil {
				vals[c] = randCell(r, c)
			}
			if c == 6 && r.IntN(2) == 0 { // longer texts: moves on update
				vals[c] = append(vals[c], strings.Repeat("x", r.IntN(200))...)
			}
		}
		return rowenc.Append(nil, vals)
	}
	n := 50 + r.IntN(1500)
	keys := r.Perm(n * 2)
	next := 0
	type live struct {
		id  heap.RowID
		key int64
	}
	var rows []live
	for lsn := uint64(1); lsn < 6; lsn++ {
		var ops []heap.Op
		var opKeys []int64
		touched := map[heap.RowID]bool{}
		for range n / 5 {
			switch k := r.IntN(10); {
			case k < 7 || len(rows) == 0:
				if next == len(keys) {
					continue
				}
				ops = append(ops, heap.Op{Kind: heap.OpInsert, Row: row(int64(keys[next]))})
				opKeys = append(opKeys, int64(keys[next]))
				next++
			case k < 9:
				i := r.IntN(len(rows))
				if touched[rows[i].id] {
					continue
				}
				touched[rows[i].id] = true
				ops = append(ops, heap.Op{Kind: heap.OpUpdate, ID: rows[i].id, Row: row(rows[i].key)})
				opKeys = append(opKeys, rows[i].key)
				rows = slices.Delete(rows, i, i+1)
			default:
				i := r.IntN(len(rows))
				if touched[rows[i].id] {
					continue
				}
				touched[rows[i].id] = true
				ops = append(ops, heap.Op{Kind: heap.OpDelete, ID: rows[i].id})
				opKeys = append(opKeys, -1)
				rows = slices.Delete(rows, i, i+1)
			}
		}
		got, err := h.Apply(heap.Batch{LSN: lsn, Ops: ops})
		if err != nil {
			t.Fatal(err)
		}
		for i, op := range ops {
			if op.Kind != heap.OpDelete {
				rows = append(rows, live{got[i], opKeys[i]})
			}
		}
	}
	return h
}

// refScanRows is the row-at-a-time answer: the live rows in key order,
// filtered, offset, limited, projected to cols (texts, nil for NULL).
func refScanRows(rows []refRow, req RowRequest) [][]*string {
	key := make([]int, len(req.Key))
	for i, k := range req.Key {
		key[i] = colIndex(k)
	}
	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, func(a, b refRow) int {
		for _, c := range key {
			var x int
			if modelSchema.Columns[c].Kind == heap.KindText {
				x = strings.Compare(*a[c], *b[c])
			} else {
				ai, _ := strconv.ParseInt(*a[c], 10, 64)
				bi, _ := strconv.ParseInt(*b[c], 10, 64)
				x = cmp64(ai, bi)
			}
			if x != 0 {
				return x
			}
		}
		return 0
	})
	var out [][]*string
	skip := req.Offset
	for _, row := range sorted {
		if req.Where != nil && refEval(req.Where, row) != 1 {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		var proj []*string
		for _, name := range req.Cols {
			if c := colIndex(name); c < len(row) {
				proj = append(proj, row[c])
			} else {
				proj = append(proj, nil)
			}
		}
		out = append(out, proj)
		if req.Limit > 0 && int64(len(out)) >= req.Limit {
			break
		}
	}
	return out
}

func showTexts(rows [][]*string) string {
	var b strings.Builder
	for i, r := range rows {
		if i == 6 {
			b.WriteString("…")
			break
		}
		b.WriteString("[")
		for j, v := range r {
			if j > 0 {
				b.WriteString(" ")
			}
			if v == nil {
				b.WriteString("NULL")
			} else {
				b.WriteString(strconv.Quote(*v))
			}
		}
		b.WriteString("] ")
	}
	return b.String()
}

// TestScanRowsModel compares ScanRows with the row-at-a-time reference on
// random heaps (ids inserted out of order, rows moved and deleted),
// random filters (with and without key ranges, then also scanned through
// Options.Only), random keys, projections, offsets and limits: the same
// rows, in the same order, with the same bytes.
func TestScanRowsModel(t *testing.T) {
	base := uint64(time.Now().UnixNano())
	var seeds []uint64
	for i := range uint64(25) {
		seeds = append(seeds, base+i)
	}
	keys := [][]string{{"id"}, {"a", "id"}, {"t", "id"}, {"t", "a", "id"}}
	names := make([]string, len(modelSchema.Columns))
	for i, c := range modelSchema.Columns {
		names[i] = c.Name
	}
	for sd := range seed.Each(t, seedFlag, seeds) {
		r := rand.New(rand.NewPCG(sd, sd))
		h := rowsHeap(t, r)
		snap := h.Snapshot()
		rows := refRows(t, snap)
		for q := range 60 {
			req := RowRequest{Key: keys[r.IntN(len(keys))]}
			if r.IntN(8) > 0 {
				req.Where = randExpr(r, 2)
			}
			if r.IntN(2) == 0 {
				// A key range on id, alone or with the rest.
				lo := strconv.Itoa(r.IntN(len(rows)*2 + 1))
				hi := strconv.Itoa(r.IntN(len(rows)*2 + 1))
				kr := []*Expr{{Op: "between", Col: "id", Values: []string{lo, hi}}, {Op: ">=", Col: "id", Values: []string{lo}},
					{Op: "<", Col: "id", Values: []string{hi}}}[r.IntN(3)]
				if req.Where == nil {
					req.Where = kr
				} else {
					req.Where = &Expr{Op: "and", Args: []*Expr{kr, req.Where}}
				}
			}
			for range 1 + r.IntN(4) {
				req.Cols = append(req.Cols, names[r.IntN(len(names))])
			}
			if r.IntN(3) == 0 {
				req.Offset = int64(r.IntN(20))
			}
			if r.IntN(2) == 0 {
				req.Limit = int64(1 + r.IntN(30))
			}
			p, err := BindRows(req, modelSchema)
			if err != nil {
				if errors.Is(err, ErrBadRequest) {
					continue // a literal the column's type refuses
				}
				t.Fatalf("seed %d query %d: bind: %v", sd, q, err)
			}
			want := refScanRows(rows, req)
			opts := []Options{{}}
			if kr, ok := p.where.KeyRangeOf("id"); ok && req.Key[0] == "id" {
				opts = append(opts, Options{Only: ptr(keyRangeRows(snap, kr, r))})
			}
			for _, opt := range opts {
				var got [][]*string
				_, err := ScanRows(t.Context(), p, FromSnapshot(snap), opt, func(row []byte) error {
					var vals []*string
					it := rowenc.NewIter(row)
					for it.Next() {
						if it.Null() {
							vals = append(vals, nil)
						} else {
							s := string(it.Value())
							vals = append(vals, &s)
						}
					}
					got = append(got, vals)
					return it.Err()
				})
				if err != nil {
					t.Fatalf("seed %d query %d: %v", sd, q, err)
				}
				if !slices.EqualFunc(got, want, func(a, b []*string) bool {
					return slices.EqualFunc(a, b, func(x, y *string) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y })
				}) {
					t.Fatalf("replay with -seed %d: query %d key %v where %s cols %v offset %d limit %d only %v:\n got %d: %s\nwant %d: %s",
						sd, q, req.Key, req.Where, req.Cols, req.Offset, req.Limit, opt.Only != nil, len(got), showTexts(got), len(want), showTexts(want))
				}
			}
		}
		snap.Release()
		h.Close()
	}
}

func ptr[T any](v T) *T { return &v }

// TestScanRowsStopsEarly: on a table loaded in key order, LIMIT reads
// only the pages its rows are on, and a cancelled context stops the scan
// before its next page.
func TestScanRowsStopsEarly(t *testing.T) {
	h := cancelHeap(t, 100_000)
	snap := h.Snapshot()
	defer snap.Release()
	p, err := BindRows(RowRequest{Key: []string{"id"}, Cols: []string{"id", "score"}, Limit: 300,
		Where: &Expr{Op: ">=", Col: "score", Values: []string{"0"}}}, h.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	st, err := ScanRows(t.Context(), p, FromSnapshot(snap), Options{}, func(row []byte) error {
		v, _, _ := rowenc.Column(row, 0)
		got = append(got, string(v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// score = i%2000-1000 >= 0 for ids 1000..1999: 300 rows from id 1000,
	// on pages 3..8 of 256 rows.
	if len(got) != 300 || got[0] != "1000" || got[299] != "1299" {
		t.Fatalf("%d rows, first %v", len(got), got[:min(3, len(got))])
	}
	if st.PagesScanned > 8 {
		t.Errorf("LIMIT 300 scanned %d pages of %d", st.PagesScanned, snap.NumPages())
	}
	ctx, cancel := context.WithCancel(t.Context())
	src := &cancelSource{Source: FromSnapshot(snap), at: 5, cancel: cancel}
	p.Req.Limit = 0
	_, err = ScanRows(ctx, p, src, Options{}, func([]byte) error { return nil })
	if !errors.Is(err, context.Canceled) || src.reads.Load() != 5 {
		t.Errorf("cancelled at page 5: %v after %d pages", err, src.reads.Load())
	}
	stop := errors.New("stop")
	n := 0
	_, err = ScanRows(t.Context(), p, FromSnapshot(snap), Options{}, func([]byte) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Errorf("emit's error: %v after %d rows", err, n)
	}
}
