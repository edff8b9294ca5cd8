package heap

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// TestCheckpointRestore: a checkpoint writes every page once, the next
// only the pages changed since, and Open gives back the same rows, row
// ids, summaries and LSN, for each codec; a full compaction's dropped
// pages leave the store.
func TestCheckpointRestore(t *testing.T) {
	for _, codec := range []Codec{CodecS2, CodecZstd, CodecNone} {
		t.Run(codec.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 3), uint64(codec)))
			cfg := Config{PageRows: 128, PageBytes: 8192, Codec: codec}
			h := mustNew(t, modelSchema, cfg)
			defer h.Close()
			var b Batch
			for i := range 3000 {
				b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
			}
			b.LSN = 10
			ids := mustApply(t, h, b)
			store := NewMemStore()
			st, err := h.Checkpoint(store, "t")
			if err != nil {
				t.Fatal(err)
			}
			all := h.Snapshot().NumPages()
			if st.Pages != all || store.Puts != 1 {
				t.Fatalf("first checkpoint wrote %d pages in %d puts, want %d in 1", st.Pages, store.Puts, all)
			}
			// Change rows on two pages only.
			b = Batch{LSN: 20, Ops: []Op{
				{Kind: OpUpdate, ID: ids[0], Row: randRow(r, 0)},
				{Kind: OpDelete, ID: ids[len(ids)-1]},
			}}
			mustApply(t, h, b)
			st, err = h.Checkpoint(store, "t")
			if err != nil {
				t.Fatal(err)
			}
			if st.Pages > 3 || st.LSN != 20 { // a moved update may touch a third page
				t.Fatalf("second checkpoint: %+v", st)
			}
			if store.Len("t") != all+1 && store.Len("t") != all {
				t.Fatalf("store holds %d images for %d pages", store.Len("t"), all)
			}
			compareRestored(t, h, store, cfg)

			h.Compact()
			if _, err := h.Checkpoint(store, "t"); err != nil {
				t.Fatal(err)
			}
			if n, pages := store.Len("t"), h.Snapshot().NumPages(); n != pages {
				t.Fatalf("after full compaction the store holds %d images for %d pages", n, pages)
			}
			compareRestored(t, h, store, cfg)
		})
	}
}

func compareRestored(t *testing.T, h *Heap, store PageStore, cfg Config) {
	t.Helper()
	g, err := Open(modelSchema, cfg, store, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	a, b := h.Snapshot(), g.Snapshot()
	defer a.Release()
	defer b.Release()
	sameHeaps(t, a, b)
	// The restored heap goes on applying.
	if _, err := g.Apply(Batch{LSN: b.LSN(), Ops: []Op{{Kind: OpInsert, Row: randRow(rand.New(rand.NewPCG(1, 1)), 99999)}}}); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreErrors: no checkpoint, another schema, a corrupt image.
func TestRestoreErrors(t *testing.T) {
	store := NewMemStore()
	if _, err := Open(modelSchema, Config{}, store, "t"); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("empty store: %v", err)
	}
	h := mustNew(t, modelSchema, Config{})
	mustApply(t, h, Batch{Ops: []Op{{Kind: OpInsert, Row: randRow(rand.New(rand.NewPCG(1, 2)), 1)}}})
	if _, err := h.Checkpoint(store, "t"); err != nil {
		t.Fatal(err)
	}
	other := Schema{Columns: append([]Column{}, modelSchema.Columns...)}
	other.Columns[1].Kind = KindInt8
	if _, err := Open(other, Config{}, store, "t"); err == nil {
		t.Fatal("other schema: no error")
	}
	for k, v := range store.pages["t"] {
		v[len(v)/2] ^= 0x55
		store.pages["t"][k] = v
	}
	if _, err := Open(modelSchema, Config{}, store, "t"); err == nil {
		t.Fatal("corrupt image: no error")
	}
}

// TestCheckpointGenKeepsThePrevious: CheckpointGen removes nothing, so
// the previous generation opens whole (its LSN, its rows) until Retain of
// the new one, which leaves exactly the new manifest and its images; a
// generation not above the last is refused.
func TestCheckpointGenKeepsThePrevious(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 5), 5))
	cfg := Config{PageRows: 64, PageBytes: 8192}
	h := mustNew(t, modelSchema, cfg)
	defer h.Close()
	var b Batch
	for i := range 1000 {
		b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
	}
	b.LSN = 10
	ids := mustApply(t, h, b)
	store := NewMemStore()
	if _, err := h.CheckpointGen(store, "t", 4); err != nil {
		t.Fatal(err)
	}
	if err := store.Retain("t", 4); err != nil {
		t.Fatal(err)
	}
	mustApply(t, h, Batch{LSN: 20, Ops: []Op{{Kind: OpDelete, ID: ids[0]}, {Kind: OpUpdate, ID: ids[500], Row: randRow(r, 500)}}})
	if _, err := h.CheckpointGen(store, "t", 4); err == nil {
		t.Fatal("a generation not above the last was written")
	}
	if _, err := h.CheckpointGen(store, "t", 9); err != nil {
		t.Fatal(err)
	}
	old, err := OpenGen(modelSchema, cfg, store, "t", 4)
	if err != nil {
		t.Fatalf("the previous generation before Retain: %v", err)
	}
	defer old.Close()
	s := old.Snapshot()
	lsn, rows := s.LSN(), s.Rows()
	s.Release()
	if lsn != 10 || rows != 1000 {
		t.Fatalf("previous generation: LSN %d rows %d, want 10 1000", lsn, rows)
	}
	compareRestored(t, h, store, cfg) // the newest, generation 9
	if err := store.Retain("t", 9); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenGen(modelSchema, cfg, store, "t", 4); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("the previous generation after Retain: %v", err)
	}
	if n, pages := store.Len("t"), h.Snapshot().NumPages(); n != pages || store.Manifests("t") != 1 {
		t.Fatalf("after Retain the store holds %d images and %d manifests for %d pages", n, store.Manifests("t"), pages)
	}
}

// TestCheckpointBatchesBounded: a checkpoint of a heap whose every page is
// dirty holds at most the batch ceiling (plus one image) of compressed
// images at a time, in several PutImages calls, and restores the same
// heap. Before, every image was held until one write (552 MB after a
// 10M-row copy).
func TestCheckpointBatchesBounded(t *testing.T) {
	cfg := Config{PageRows: 64, PageBytes: 8192, Codec: CodecNone}
	h, _, _ := filledHeap(t, cfg, 7, 4000)
	store := NewMemStore()
	const ceiling = 16 << 10
	st, err := h.CutCheckpoint().Write(store, "t", 1, WriteOptions{BatchBytes: ceiling})
	if err != nil {
		t.Fatal(err)
	}
	biggest := 0
	for _, img := range store.pages["t"] {
		biggest = max(biggest, len(img))
	}
	if st.Batches < 3 || store.Batches != st.Batches {
		t.Fatalf("%d bytes of images in %d batches (store saw %d), want several of ≤ %d", st.Bytes, st.Batches, store.Batches, ceiling)
	}
	if st.PeakBatchBytes >= ceiling+biggest || store.MaxBatchBytes != st.PeakBatchBytes {
		t.Fatalf("peak batch %d bytes (store saw %d), ceiling %d + one image %d", st.PeakBatchBytes, store.MaxBatchBytes, ceiling, biggest)
	}
	compareRestored(t, h, store, cfg)
}

// TestCheckpointKilledBetweenBatches: a checkpoint stopped between two of
// its batches of images leaves the previous generation whole (its
// manifest still the newest, every image it names readable), puts its
// dirty pages back so that the next checkpoint writes them all, and the
// next checkpoint's Retain removes the images the stopped one left.
func TestCheckpointKilledBetweenBatches(t *testing.T) {
	cfg := Config{PageRows: 64, PageBytes: 8192}
	h, ids, r := filledHeap(t, cfg, 8, 2000)
	store := NewMemStore()
	if _, err := h.Checkpoint(store, "t"); err != nil {
		t.Fatal(err)
	}
	before := store.Len("t")
	// Every page changed: the next checkpoint writes them all, in batches.
	b := Batch{LSN: 20}
	for i, id := range ids {
		if i%2 == 0 {
			b.Ops = append(b.Ops, Op{Kind: OpUpdate, ID: id, Row: randRow(r, int64(i))})
		}
	}
	mustApply(t, h, b)
	killed := errors.New("killed")
	_, err := h.CutCheckpoint().Write(store, "t", 2, WriteOptions{BatchBytes: 4 << 10, BeforeBatch: func(n int) error {
		if n == 2 {
			return killed
		}
		return nil
	}})
	if !errors.Is(err, killed) {
		t.Fatalf("stopped checkpoint: %v", err)
	}
	if store.Len("t") <= before {
		t.Fatalf("the stopped checkpoint wrote no batch: %d images, %d before", store.Len("t"), before)
	}
	if lsn, err := CheckpointLSN(store, "t", 0); err != nil || lsn != 10 {
		t.Fatalf("newest checkpoint after the stop: LSN %d, %v; want the previous, 10", lsn, err)
	}
	old, err := Open(modelSchema, cfg, store, "t")
	if err != nil {
		t.Fatalf("the previous generation after the stop: %v", err)
	}
	if s := old.Snapshot(); s.LSN() != 10 || s.Rows() != 2000 {
		t.Fatalf("previous generation: LSN %d rows %d", s.LSN(), s.Rows())
	}
	old.Close()
	st, err := h.CheckpointGen(store, "t", 3)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != st.TotalPages {
		t.Fatalf("after the stop the next checkpoint wrote %d of %d pages, want every one", st.Pages, st.TotalPages)
	}
	if err := store.Retain("t", 3); err != nil {
		t.Fatal(err)
	}
	if n := store.Len("t"); n != st.TotalPages || store.Manifests("t") != 1 {
		t.Fatalf("after Retain: %d images, %d manifests, for %d pages", n, store.Manifests("t"), st.TotalPages)
	}
	compareRestored(t, h, store, cfg)
}

// TestCheckpointCutWhileApplying: a cut is the heap as it was when taken,
// however many batches are applied before it is written: the checkpoint
// restores at the cut's LSN and rows, and the pages those batches changed
// are the next checkpoint's.
func TestCheckpointCutWhileApplying(t *testing.T) {
	cfg := Config{PageRows: 64, PageBytes: 8192}
	h, ids, r := filledHeap(t, cfg, 9, 1000)
	cut := h.CutCheckpoint()
	mustApply(t, h, Batch{LSN: 20, Ops: []Op{{Kind: OpDelete, ID: ids[0]}, {Kind: OpUpdate, ID: ids[900], Row: randRow(r, 900)}, {Kind: OpInsert, Row: randRow(r, 5000)}}})
	store := NewMemStore()
	if _, err := cut.Write(store, "t", 1, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	g, err := Open(modelSchema, cfg, store, "t")
	if err != nil {
		t.Fatal(err)
	}
	if s := g.Snapshot(); s.LSN() != 10 || s.Rows() != 1000 {
		t.Fatalf("checkpoint of the cut: LSN %d rows %d, want 10 1000", s.LSN(), s.Rows())
	}
	g.Close()
	st, err := h.Checkpoint(store, "t")
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages == 0 || st.Pages > 3 || st.LSN != 20 {
		t.Fatalf("next checkpoint: %+v", st)
	}
	compareRestored(t, h, store, cfg)
}

// filledHeap is a heap of cfg holding rows random rows inserted at LSN
// 10 (closed when the test ends), their row ids, and the random source
// (seeded by -seed, else by s) to go on with.
func filledHeap(t *testing.T, cfg Config, s uint64, rows int) (*Heap, []RowID, *rand.Rand) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, s), s))
	h := mustNew(t, modelSchema, cfg)
	t.Cleanup(h.Close)
	b := Batch{LSN: 10}
	for i := range rows {
		b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
	}
	return h, mustApply(t, h, b), r
}
