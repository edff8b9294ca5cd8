package query

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// damagedSource is a snapshot whose page at cannot be read back: Page
// panics there as heap.Snapshot.Page does for a damaged page file record
// (with its *heap.PageError), or with bug when set (a programming error).
type damagedSource struct {
	Source
	at    int
	bug   any
	reads atomic.Int64
}

func (s *damagedSource) Page(i int) heap.PageView {
	s.reads.Add(1)
	if i == s.at {
		if s.bug != nil {
			panic(s.bug)
		}
		panic(&heap.PageError{Page: uint32(i), Off: 4096, Path: "pages", Err: fmt.Errorf("%w: checksum mismatch", heap.ErrCorruptPage)})
	}
	return s.Source.Page(i)
}

// TestScanWorkerPageError (issue 24 item 2): a page that cannot be read
// back in a parallel scan's worker goroutine fails the run with the
// page's error (carrying the corruption marker: XX001 on the SQL port)
// instead of ending the process; any other panic of a worker is raised
// again on the caller's goroutine, where a recover (the SQL session's)
// can catch it. Before, both ended the test binary.
func TestScanWorkerPageError(t *testing.T) {
	h := cancelHeap(t, 100_000)
	snap := h.Snapshot()
	defer snap.Release()
	req := Request{Aggs: []Agg{{Func: "count"}, {Func: "sum", Col: "score"}}, GroupBy: []string{"grp"}}
	p, err := Bind(req, h.Schema())
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 4} {
		t.Run("workers="+strconv.Itoa(workers), func(t *testing.T) {
			src := &damagedSource{Source: FromSnapshot(snap), at: snap.NumPages() - 3}
			res, err := Run(t.Context(), p, src, Options{Workers: workers, NoSummaries: true})
			var pe *heap.PageError
			if !errors.As(err, &pe) || pe.Page != uint32(src.at) || !errors.Is(err, corrupt.Err) {
				t.Fatalf("run over a damaged page: %v, %v; want its *heap.PageError carrying corrupt.Err", res, err)
			}
			// A bug's panic reaches the caller's goroutine.
			bug := &damagedSource{Source: FromSnapshot(snap), at: 1, bug: "index out of range (a bug)"}
			func() {
				defer func() {
					r := recover()
					if s, ok := r.(string); !ok || !strings.Contains(s, "index out of range (a bug)") {
						t.Fatalf("a worker's bug reached the caller as %v", r)
					}
				}()
				Run(t.Context(), p, bug, Options{Workers: workers, NoSummaries: true})
				t.Fatal("a worker's bug was swallowed")
			}()
		})
	}
}
