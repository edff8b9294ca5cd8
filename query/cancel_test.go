package query

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// cancelSource counts the pages a run reads and cancels the run's context
// when it reads page number at (counting from 1).
type cancelSource struct {
	Source
	at     int64
	cancel context.CancelFunc
	reads  atomic.Int64
	late   atomic.Int64 // pages read after Run returned
	done   atomic.Bool
	// after is the page count when cancel returned: until then another
	// worker may still see the context live (the canceller can be
	// descheduled between its read and its cancel under load), so the
	// bound on pages read is counted from here, not from at.
	after atomic.Int64
}

func (s *cancelSource) Page(i int) heap.PageView {
	if s.done.Load() {
		s.late.Add(1)
	}
	if s.reads.Add(1) == s.at {
		s.cancel()
		s.after.Store(s.reads.Load())
	}
	return s.Source.Page(i)
}

// cancelHeap is a table of n rows in pages of 256: id, grp (0..999), score.
func cancelHeap(t *testing.T, n int) *heap.Heap {
	h, err := heap.New(heap.Schema{Columns: []heap.Column{
		{Name: "id", Kind: heap.KindInt8}, {Name: "grp", Kind: heap.KindInt8}, {Name: "score", Kind: heap.KindInt4},
	}}, heap.Config{PageRows: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	var ops []heap.Op
	for i := range n {
		vals := [][]byte{strconv.AppendInt(nil, int64(i), 10), strconv.AppendInt(nil, int64(i*7919%1000)*1_000_003, 10),
			strconv.AppendInt(nil, int64(i%2000-1000), 10)}
		ops = append(ops, heap.Op{Kind: heap.OpInsert, Row: rowenc.Append(nil, vals)})
		if len(ops) == 1<<15 || i == n-1 {
			if _, err := h.Apply(heap.Batch{LSN: uint64(i + 1), Ops: ops}); err != nil {
				t.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	return h
}

// TestRunCancel: a context cancelled mid-run stops every worker within a
// page of it; Run returns the context's error once all have stopped, and
// no worker reads a page after.
func TestRunCancel(t *testing.T) {
	h := cancelHeap(t, 400_000)
	snap := h.Snapshot()
	defer snap.Release()
	pages := int64(snap.NumPages())
	reqs := map[string]Request{
		// grp spans more than the array grouping's range: hash groups.
		"grouped": {Aggs: []Agg{{Func: "count"}, {Func: "sum", Col: "score"}}, GroupBy: []string{"grp"},
			Where: &Expr{Op: ">", Col: "score", Values: []string{"-900"}}},
		"plain": {Aggs: []Agg{{Func: "sum", Col: "score"}, {Func: "max", Col: "id"}}},
	}
	for name, req := range reqs {
		for _, workers := range []int{1, 2, 4} {
			t.Run(name+"/workers="+strconv.Itoa(workers), func(t *testing.T) {
				p, err := Bind(req, h.Schema())
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				const at = 40
				src := &cancelSource{Source: FromSnapshot(snap), at: at, cancel: cancel}
				before := runtime.NumGoroutine()
				res, err := Run(ctx, p, src, Options{Workers: workers, NoSummaries: true})
				if res == nil {
					res = &Result{}
				}
				src.done.Store(true)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Run after cancel: %d rows, err %v; want context.Canceled", len(res.Rows), err)
				}
				// The worker that cancelled is in its page; each other one
				// may have passed its check just before.
				if got, after := src.reads.Load(), src.after.Load(); got > after+int64(workers)-1 || got >= pages {
					t.Errorf("%d pages read of %d; cancelled at page %d (%d read when cancel returned) with %d workers", got, pages, at, after, workers)
				}
				for deadline := time.Now().Add(20 * time.Second); runtime.NumGoroutine() > before; {
					if time.Now().After(deadline) {
						t.Fatalf("%d goroutines after Run, %d before", runtime.NumGoroutine(), before)
					}
					time.Sleep(time.Millisecond)
				}
				if n := src.late.Load(); n != 0 {
					t.Errorf("%d pages read after Run returned", n)
				}
			})
		}
	}
	t.Run("already cancelled", func(t *testing.T) {
		p, err := Bind(reqs["grouped"], h.Schema())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		src := &cancelSource{Source: FromSnapshot(snap), at: -1, cancel: cancel}
		if _, err := Run(ctx, p, src, Options{Workers: 2}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Run with a cancelled context: %v", err)
		}
		if n := src.reads.Load(); n != 0 {
			t.Errorf("%d pages read with a cancelled context", n)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		// A deadline that passes mid-run: the run ends with it, long
		// before a full scan would (generous bound: a loaded machine).
		p, err := Bind(reqs["grouped"], h.Schema())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
		defer cancel()
		src := &cancelSource{Source: FromSnapshot(snap), at: -1, cancel: cancel}
		_, err = Run(ctx, p, &slowSource{src}, Options{Workers: 2})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Run past its deadline: %v", err)
		}
		if n := src.reads.Load(); n >= pages {
			t.Errorf("read all %d pages past the deadline", n)
		}
	})
}

// slowSource takes at least 200 µs per page, so a full scan lasts far
// longer than the deadline whatever the machine's speed.
type slowSource struct{ *cancelSource }

func (s *slowSource) Page(i int) heap.PageView {
	time.Sleep(200 * time.Microsecond)
	return s.cancelSource.Page(i)
}
