package history

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// TestReadersDuringApply runs diffs, scans, merges and branch creation
// while the mirror applies commits (the daemon's situation; run with
// -race). Every scan of HEAD~0 at a resolved LSN must see a consistent
// version: the sum of the counters equals the number of increments that
// version holds, since each commit moves one unit between two rows.
func TestReadersDuringApply(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "t", 1, [2]string{"id", "int8"}, [2]string{"n", "int8"})
	var init [][]*string
	for id := range 20 {
		init = append(init, []*string{historytest.S(strconv.Itoa(id)), historytest.S("100")})
	}
	f.CreateTable(rel, init)
	vals := map[int]int{}
	for id := range 20 {
		vals[id] = 100
	}
	for range 4 { // HEAD~3 exists before the readers start (a transaction that changes no row is no version: each rewrites a row as it is)
		f.Commit(func(tx *historytest.Tx) { tx.Upsert(rel, []*string{historytest.S("0"), historytest.S("100")}) })
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				p, err := svc.Resolve(ctx, "HEAD")
				if ctx.Err() != nil {
					return // stopped (errors from cancellation are expected)
				}
				if err != nil {
					t.Error(err)
					return
				}
				lsn := p.LSN().String()
				sum := 0
				err = svc.Scan(ctx, ReadRequest{Table: "public.t", AsOf: lsn}, func(ReadHeader) error { return nil }, func(row *Row) error {
					n, _ := strconv.Atoi(*row.Values[1])
					sum += n
					return nil
				})
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				if sum != 2000 {
					t.Errorf("reader %d: version %s sums to %d, want 2000", r, lsn, sum)
					return
				}
				if _, err := svc.Diff(ctx, DiffRequest{From: "HEAD~1", To: lsn}, func(*Event) error { return nil }); err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
				if r == 0 && i%5 == 0 {
					if _, err := svc.Merge(ctx, MergeRequest{Ours: lsn, Theirs: "HEAD~2", Base: "HEAD~3", Branch: "b" + strconv.Itoa(i)}, func(*Event) error { return nil }); err != nil && ctx.Err() == nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	for i := range 300 {
		from, to := i%20, (i*7+3)%20
		if from == to {
			continue
		}
		vals[from]--
		vals[to]++
		f.Commit(func(tx *historytest.Tx) {
			tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(from)), historytest.S(strconv.Itoa(vals[from]))})
			tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(to)), historytest.S(strconv.Itoa(vals[to]))})
		})
	}
	cancel()
	wg.Wait()
	bs, err := svc.Branches(t.Context())
	if err != nil || len(bs) == 0 {
		t.Fatalf("branches made during apply: %d, %v", len(bs), err)
	}
	// Every branch made during apply reads back whole.
	for _, b := range bs {
		n := 0
		if err := svc.Scan(t.Context(), ReadRequest{Table: "public.t", AsOf: b.Name}, func(ReadHeader) error { return nil }, func(*Row) error { n++; return nil }); err != nil || n != 20 {
			t.Fatalf("branch %s: %d rows, %v", b.Name, n, err)
		}
	}
}
