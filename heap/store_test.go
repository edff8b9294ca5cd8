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
	if err := checkInvariants(b); err != nil {
		t.Fatal(err)
	}
	if a.LSN() != b.LSN() || a.Rows() != b.Rows() || a.NumPages() != b.NumPages() {
		t.Fatalf("restored lsn/rows/pages %d/%d/%d, want %d/%d/%d", b.LSN(), b.Rows(), b.NumPages(), a.LSN(), a.Rows(), a.NumPages())
	}
	a.ForEach(func(id RowID, row []byte) bool {
		got, ok := b.Row(nil, id)
		if !ok || string(got) != string(row) {
			t.Fatalf("restored row %d = %q, want %q", id, got, row)
		}
		return true
	})
	for c, col := range modelSchema.Columns {
		sa, sb := a.Stats(c), b.Stats(c)
		if err := sameStats(col.Kind, &sa, &sb); err != nil {
			t.Fatalf("column %s: %v", col.Name, err)
		}
	}
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
