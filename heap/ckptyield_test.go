package heap

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestCheckpointWriteYieldsBetweenPages: a checkpoint's Write lets other
// goroutines run between the pages it encodes. With one processor, a
// goroutine that only counts and yields gets a turn for (about) every
// page written; before, it ran only when the scheduler preempted the
// writer (every 10 ms) or the writer blocked handing a batch over — at
// 30M rows a point get beside the post-copy checkpoint took 34.6 ms.
// Counting turns, not timing them, keeps the test independent of load.
func TestCheckpointWriteYieldsBetweenPages(t *testing.T) {
	cfg := Config{PageRows: 64, PageBytes: 8192, Codec: CodecS2}
	h, _, _ := filledHeap(t, cfg, 11, 20000)
	store := NewMemStore()
	cut := h.CutCheckpoint()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var stop atomic.Bool
	var turns atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			turns.Add(1)
			runtime.Gosched()
		}
	}()
	// One batch for the whole write: no hand-off to the image writer
	// before the end gives the counter a turn.
	st, err := cut.Write(store, "t", 1, WriteOptions{BatchBytes: 1 << 30})
	stop.Store(true)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages < 200 {
		t.Fatalf("the heap has %d pages, want ≥ 200 for the count to mean something", st.Pages)
	}
	if n := turns.Load(); n < int64(st.Pages)/2 {
		t.Fatalf("another goroutine ran %d times while the checkpoint encoded %d pages on one processor: the writer does not yield between pages", n, st.Pages)
	}
}
