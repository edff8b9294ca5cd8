package head

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/query"
)

var _ query.Heads = (*Model)(nil)

// TestBankQueriesSeeOneVersion moves money between accounts, two rows per
// transaction, while concurrent aggregates (count(*), sum(bal), through
// query.Engine as POST /api/query runs them) read HEAD: every answer must
// hold every account and the constant total, whether it was read from the
// model's heap snapshot or (the model being behind) from the tree, and
// most must come from the model (run with -race).
func TestBankQueriesSeeOneVersion(t *testing.T) {
	const accounts, each = 3000, 100
	b := newBank(t, 14, accounts, each)
	sd, rng, f, mod, rows := b.sd, b.rng, b.f, b.mod, b.rows

	eng := &query.Engine{Tree: history.New(f.db, f.m), Heads: mod}
	req := query.Request{Table: "public.bank", Aggs: []query.Agg{{Func: "count"}, {Func: "sum", Col: "bal"}, {Func: "min", Col: "id"}}}
	want := []string{strconv.Itoa(accounts), strconv.Itoa(accounts * each), "0"}
	var fromHead, fromTree atomic.Int64
	var failed atomic.Bool
	stop := b.readers(3, func(r int) error {
		res, hdr, err := eng.Run(t.Context(), req)
		if err != nil {
			failed.Store(true)
			return err
		}
		for c, w := range want {
			if got, _ := res.Text(0, c); got != w {
				failed.Store(true)
				return errorf("reader %d at %s (%s): %s = %s, want %s", r, hdr.LSN, res.Read, res.Columns[c].Name, got, w)
			}
		}
		if res.Read == query.ReadHead {
			fromHead.Add(1)
		} else {
			fromTree.Add(1)
		}
		return nil
	})
	b.transfers(300, func() string { return "x" })
	// One more answer after the last delivery, then stop.
	daemontest.Poll(0, func() bool { return fromHead.Load()+fromTree.Load() >= 3 || failed.Load() })
	stop()
	res, hdr, err := eng.Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != query.ReadHead || hdr.LSN != mod.LSN().String() {
		t.Fatalf("seed %d: quiet HEAD query read from the %s at %s, want the model at %s", sd, res.Read, hdr.LSN, mod.LSN())
	}
	if fromHead.Load() == 0 {
		t.Fatalf("seed %d: no concurrent answer came from the model (%d from the tree)", sd, fromTree.Load())
	}
	t.Logf("%d consistent answers from the model, %d from the tree", fromHead.Load(), fromTree.Load())

	// Key ranges: through the index (the model) and through the tree's
	// key order (no model) both equal the sum over the reference, and the
	// index range touches at most one page per key.
	tree := &query.Engine{Tree: eng.Tree}
	for range 20 {
		lo := rng.IntN(accounts+200) - 100
		hi := lo + rng.IntN(400)
		where := &query.Expr{Op: "and", Args: []*query.Expr{
			{Op: ">=", Col: "id", Values: []string{strconv.Itoa(lo)}},
			{Op: "<", Col: "id", Values: []string{strconv.Itoa(hi)}},
			{Op: "<>", Col: "bal", Values: []string{"7"}}}}
		if rng.IntN(3) == 0 {
			where = &query.Expr{Op: "between", Col: "id", Values: []string{strconv.Itoa(lo), strconv.Itoa(hi - 1)}}
		}
		kreq := query.Request{Table: "public.bank", Aggs: []query.Agg{{Func: "count"}, {Func: "sum", Col: "bal"}}, Where: where}
		n, sum := 0, 0
		for id := max(lo, 0); id < min(hi, accounts); id++ {
			if rows[id] != 7 || where.Op == "between" {
				n++
				sum += rows[id]
			}
		}
		wantSum := strconv.Itoa(sum)
		if n == 0 {
			wantSum = "" // NULL
		}
		for _, e := range []*query.Engine{eng, tree} {
			res, _, err := e.Run(t.Context(), kreq)
			if err != nil {
				t.Fatal(err)
			}
			gotN, _ := res.Text(0, 0)
			gotSum, _ := res.Text(0, 1)
			if gotN != strconv.Itoa(n) || gotSum != wantSum {
				t.Fatalf("seed %d: %s from the %s: count %s sum %s, want %d %s", sd, where, res.Read, gotN, gotSum, n, wantSum)
			}
			if res.Read == query.ReadHead && res.PagesScanned > max(hi-lo, 0)+1 {
				t.Fatalf("seed %d: %s scanned %d pages for at most %d keys", sd, where, res.PagesScanned, hi-lo)
			}
		}
	}
}
