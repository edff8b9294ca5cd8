package head

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestCheckpointBesideApply: a checkpoint started from Apply is written
// by the model's goroutine while Apply goes on. With its writer held
// after the cut, commits are applied and the HEAD holds them (the model
// at the mirror's head, equal to the trees); once let go, Close waits for
// it, and a restore gives the model at the cut, which catches up to the
// head. Before, the checkpoint ran inside Apply under the model's writer
// lock: after a 10M-row copy the subscription delivered nothing for ~9
// min, and the HEAD was not ready meanwhile (scale-2026-12-05.md).
func TestCheckpointBesideApply(t *testing.T) {
	f := openFeed(t)
	a := relation(1, "a")
	rows := map[int]int{}
	for i := range 2000 {
		rows[i] = i % 100
	}
	entered := make(chan struct{})
	release := make(chan struct{})
	var writes atomic.Int32
	persist := &Persist{DB: f.db, Every: time.Nanosecond, Mirror: f.m, batchBytes: 8 << 10}
	persist.beforeWrite = func() {
		if writes.Add(1) == 1 { // the first checkpoint is held; later ones pass
			close(entered)
			<-release
		}
	}
	opts := Options{Heap: heapSmallPages, Persist: persist}
	mod := New(opts)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
		mod.Close()
	})
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	f.copyTable(a, rows)
	f.waitDelivered(sub) // the first batch: the clock starts
	f.commit([]wal.Change{{Kind: wal.Update, Relation: a, New: vals(1, 7, "x")}})
	rows[1] = 7
	select {
	case <-entered:
	case <-time.After(time.Minute):
		t.Fatal("no checkpoint started from Apply")
	}
	cutAt := mod.LSN()
	// The writer is held: commits go on being applied.
	for i := range 50 {
		id := 5000 + i
		f.commit([]wal.Change{
			{Kind: wal.Insert, Relation: a, New: vals(id, i, "new"+strconv.Itoa(i))},
			{Kind: wal.Update, Relation: a, New: vals(i*7, 1, "upd")},
		})
		rows[id], rows[i*7] = i, 1
	}
	f.waitDelivered(sub) // fails after a minute when Apply is blocked
	if mod.LSN() != f.m.Head().EndLSN || mod.LSN() <= cutAt {
		t.Fatalf("with the checkpoint held the model is at %s, head %s (cut at %s)", mod.LSN(), f.m.Head().EndLSN, cutAt)
	}
	if n, err := mod.Compare(t.Context(), f.m); err != nil || n != len(rows) {
		t.Fatalf("with the checkpoint held: %d rows, %v; want %d", n, err, len(rows))
	}
	if got := writes.Load(); got != 1 {
		t.Fatalf("%d checkpoints started while one was being written, want none", got-1)
	}
	close(release)
	mod.Close() // waits for the writer
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	restoreAtCut(t, f, opts, cutAt, len(rows))
}

// TestCheckpointEncodesBesideApply (issue 24): the cut copies the radix
// index and key store under the model's writer lock and the checkpoint
// encodes the copies after, beside Apply. With the encoding held, commits
// that insert, update and delete rows of the table (new row ids, keys
// dropped, key pages changed) are applied and served; once let go, the
// checkpoint restores to the model at the cut, not later. Before, the
// encoding ran in the cut under the lock (1.2 s – 4 min by load and size,
// every commit after a copy waiting for it): with this hold at the
// encoding's place then, no commit was applied ("not delivered").
func TestCheckpointEncodesBesideApply(t *testing.T) {
	f := openFeed(t)
	a := relation(1, "a")
	rows := map[int]int{}
	for i := range 2000 {
		rows[i] = i % 100
	}
	entered := make(chan struct{})
	release := make(chan struct{})
	var held atomic.Int32
	var cutAt wal.LSN // the held checkpoint's cut
	persist := &Persist{DB: f.db, Every: time.Nanosecond, Mirror: f.m}
	persist.beforeEncode = func(_ string, cut wal.LSN) {
		if held.Add(1) == 1 { // the first checkpoint's encoding is held
			cutAt = cut
			close(entered)
			<-release
		}
	}
	opts := Options{Heap: heapSmallPages, Persist: persist}
	mod := New(opts)
	letGo := sync.OnceFunc(func() { close(release) })
	t.Cleanup(mod.Close)
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // before mod.Close: a held encoding may hold the subscription
		letGo()
		sub.Close()
	})
	f.copyTable(a, rows)
	f.waitDelivered(sub)
	f.commit([]wal.Change{{Kind: wal.Update, Relation: a, New: vals(1, 7, "x")}})
	rows[1] = 7
	select {
	case <-entered:
	case <-time.After(time.Minute):
		t.Fatal("no checkpoint reached its encoding")
	}
	for i := range 60 {
		id := 5000 + i
		ch := []wal.Change{
			{Kind: wal.Insert, Relation: a, New: vals(id, i, "new"+strconv.Itoa(i))},
			{Kind: wal.Update, Relation: a, New: vals(i*7, 1, "upd")},
		}
		rows[id], rows[i*7] = i, 1
		if d := 3 + i*11; d < 2000 && d%7 != 0 {
			ch = append(ch, wal.Change{Kind: wal.Delete, Relation: a, Old: vals(d, 0, ""), OldKind: wal.OldKey})
			delete(rows, d)
		}
		f.commit(ch)
	}
	f.waitDelivered(sub) // fails after a minute when Apply waits for the encoding
	if mod.LSN() != f.m.Head().EndLSN || mod.LSN() <= cutAt {
		t.Fatalf("with the encoding held the model is at %s, head %s (cut at %s)", mod.LSN(), f.m.Head().EndLSN, cutAt)
	}
	if n, err := mod.Compare(t.Context(), f.m); err != nil || n != len(rows) {
		t.Fatalf("with the encoding held: %d rows, %v; want %d", n, err, len(rows))
	}
	letGo()
	mod.Close() // waits for the checkpoint
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	restoreAtCut(t, f, opts, cutAt, len(rows))
}

// restoreAtCut restores the checkpoint of opts, which must be at cutAt
// and equal the trees there, subscribes it and checks it catches up to
// the head's rows.
func restoreAtCut(t *testing.T, f *feed, opts Options, cutAt wal.LSN, rows int) {
	t.Helper()
	back := Restore(opts)
	if back.LSN() != cutAt || len(back.Tables()) != 1 {
		t.Fatalf("restored at %s with %d tables, want the cut's %s", back.LSN(), len(back.Tables()), cutAt)
	}
	if _, err := back.Compare(t.Context(), f.m); err != nil {
		t.Fatalf("restored model: %v", err)
	}
	sub2, err := f.m.Subscribe(back, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	f.waitDelivered(sub2)
	if n, err := back.Compare(t.Context(), f.m); err != nil || n != rows {
		t.Fatalf("after catch-up: %d rows, %v; want %d", n, err, rows)
	}
	back.Close()
}

// TestCheckpointHeapBatchesBounded: a checkpoint of a table whose every
// page is dirty (just copied) holds at most the batch ceiling plus one
// image of compressed page images at a time, and restores the model.
// Before, every image was held until one write (552 MB after a 10M-row
// copy, ≈ 55 B a row).
func TestCheckpointHeapBatchesBounded(t *testing.T) {
	f := openFeed(t)
	a := relation(1, "a")
	rows := map[int]int{}
	for i := range 5000 {
		rows[i] = i
	}
	const ceiling = 16 << 10
	opts := Options{Heap: heapSmallPages, Persist: &Persist{DB: f.db, Every: -1, Mirror: f.m, batchBytes: ceiling}}
	mod := New(opts)
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.copyTable(a, rows)
	f.waitDelivered(sub)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := mod.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	pages := numPages(mod.Table("public.a").hp)
	// An image of a 64-row page of this table is well under the ceiling.
	biggest := st.HeapBytes / st.HeapPages * 4
	if st.HeapPages != pages || st.HeapBatches < st.HeapBytes/(ceiling+biggest) || st.HeapBatches < 3 {
		t.Fatalf("%d of %d pages, %d bytes, in %d batches", st.HeapPages, pages, st.HeapBytes, st.HeapBatches)
	}
	if st.PeakBatchBytes > ceiling+biggest {
		t.Fatalf("a batch held %d bytes of images, ceiling %d", st.PeakBatchBytes, ceiling)
	}
	back := Restore(opts)
	if back.LSN() != mod.LSN() {
		t.Fatalf("restored at %s, checkpoint at %s", back.LSN(), mod.LSN())
	}
	if n, err := back.Compare(t.Context(), f.m); err != nil || n != len(rows) {
		t.Fatalf("restored: %d rows, %v", n, err)
	}
}

// TestCopyServedBeforeCheckpointCut (issue 21 item 2): a copy that takes
// longer than the checkpoint interval has its table's reset batch start
// the first checkpoint (the clock starts at the first batch: the
// subscription's catch-up, or a small table's copy). The table must be served as soon as that batch is
// applied, before the checkpoint's cut, which at 10M rows encodes the
// radix index and key store (~170 MB) under the model's writer lock:
// here the cut is held, and the batch must still be delivered and the
// table read at the mirror's head. Before, the cut was taken inside
// Apply, so the subscription stayed busy (the HEAD not ready) until it
// was done: 66 s after a 10M-row copy (scale-2026-12-05-s12.md).
func TestCopyServedBeforeCheckpointCut(t *testing.T) {
	f := openFeed(t)
	marker, a := relation(1, "marker"), relation(2, "a")
	rows := map[int]int{}
	for i := range 3000 {
		rows[i] = i % 100
	}
	entered := make(chan struct{})
	release := make(chan struct{})
	var armed atomic.Bool // the next cut is held, later ones pass
	persist := &Persist{DB: f.db, Every: time.Nanosecond, Mirror: f.m}
	persist.beforeCut = func() {
		if armed.CompareAndSwap(true, false) {
			close(entered)
			<-release
		}
	}
	opts := Options{Heap: heapSmallPages, Persist: persist}
	mod := New(opts)
	t.Cleanup(mod.Close)
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	letGo := sync.OnceFunc(func() { close(release) })
	t.Cleanup(func() { // before mod.Close: a held cut holds the subscription
		letGo()
		sub.Close()
	})
	f.copyTable(marker, map[int]int{1: 1})
	f.waitDelivered(sub)
	// Any checkpoint the marker's batch started written, the next batch
	// (the copied table's reset) starts one, whose cut is held.
	deadline := time.Now().Add(time.Minute)
	for len(mod.ckptSlot) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the marker's checkpoint was not written within a minute")
		}
		time.Sleep(time.Millisecond)
	}
	armed.Store(true)
	f.copyTable(a, rows)
	select {
	case <-entered:
	case <-time.After(time.Minute):
		t.Fatal("no checkpoint started by the copied table's batch")
	}
	// The cut is held: the batch that started it must be applied and
	// the table served at the mirror's head meanwhile.
	f.waitDelivered(sub) // fails after a minute when Apply waits for the cut
	head := f.m.Head().EndLSN
	snap, _, err := mod.SnapshotAt("public.a", head)
	if err != nil {
		t.Fatalf("copied table not served at the head %s with the checkpoint's cut held: %v", head, err)
	}
	n := snap.Rows()
	snap.Release()
	if n != int64(len(rows)) {
		t.Fatalf("served %d rows, want %d", n, len(rows))
	}
	letGo()
	// Once let go, the checkpoint is cut and written (a cut still
	// waiting at Close would be dropped: the owner checkpoints then).
	deadline = time.Now().Add(time.Minute)
	for len(mod.ckptSlot) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the held checkpoint was not written within a minute of letting it go")
		}
		time.Sleep(time.Millisecond)
	}
	mod.Close()
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	back := Restore(opts)
	if len(back.Tables()) != 2 || back.Len("public.a") != len(rows) {
		t.Fatalf("restored %d tables, %d rows of a; want the checkpoint of both", len(back.Tables()), back.Len("public.a"))
	}
	back.Close()
}
