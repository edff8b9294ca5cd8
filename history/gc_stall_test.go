package history

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// TestStalledMergeClientBlocksNeitherTagsNorGC: a merge kept as a branch
// whose client stops reading (a pager left open) holds its read open.
// GC waits for it only up to ReaderWait and then defers the collection
// (ErrReadersBusy), and tag creation is never held behind the GC (review
// finding: the merge held gcMu shared while streaming, a GC queued for it
// exclusively, and every CreateTag waited behind the GC).
func TestStalledMergeClientBlocksNeitherTagsNorGC(t *testing.T) {
	f := historytest.New(t)
	svc := New(f.DB, f.Mirror)
	ctx := t.Context()
	rel, _ := f.KVTable(50)
	for i := range 20 {
		f.Commit(func(tx *historytest.Tx) {
			tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(i)), historytest.S("v" + strconv.Itoa(i+1))})
		})
	}
	stalled, release := make(chan struct{}), make(chan struct{})
	mergeDone := make(chan error, 1)
	go func() {
		first := true
		_, err := svc.Merge(context.Background(), MergeRequest{Ours: "HEAD", Theirs: "HEAD~10", Base: "HEAD~15", Branch: "b", Patch: true},
			func(*Event) error {
				if first {
					first = false
					close(stalled)
					<-release // the client stopped reading
				}
				return nil
			})
		mergeDone <- err
	}()
	<-stalled
	gcCtx, cancelGC := context.WithCancel(context.Background())
	gcDone := make(chan error, 1)
	go func() { _, err := svc.GC(gcCtx, GCRequest{ReaderWait: 500 * time.Millisecond}); gcDone <- err }()
	time.Sleep(100 * time.Millisecond) // GC queues for gcMu
	tagDone := make(chan error, 1)
	go func() { _, err := svc.CreateTag(context.Background(), "t1", "HEAD"); tagDone <- err }()
	select {
	case err := <-tagDone:
		t.Logf("tag created while a merge client stalls: %v", err)
	case <-time.After(30 * time.Second):
		// A regression blocks CreateTag until the stalled client goes on
		// (never, here): a long limit costs nothing when it passes, and a
		// loaded CI machine may take seconds for one tag.
		t.Errorf("CreateTag still blocked after 30 s while a merge client stalls and a GC runs")
	}
	select {
	case err := <-gcDone:
		if !errors.Is(err, ErrReadersBusy) {
			t.Errorf("GC beside a stalled read: %v, want ErrReadersBusy", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("GC still waits for a stalled read after 30 s (ReaderWait 0.5 s)")
	}
	close(release)
	cancelGC()
	if err := <-mergeDone; err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, svc, "b"); len(got) != 50 {
		t.Fatalf("merged branch has %d rows, want 50", len(got))
	}
	st, err := svc.GC(ctx, GCRequest{})
	if err != nil {
		t.Fatalf("GC once the read ended: %v", err)
	}
	t.Logf("GC after the stall: %d live, %d deleted", st.Live, st.Deleted)
}
