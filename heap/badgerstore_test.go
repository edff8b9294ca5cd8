package heap_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
)

// TestBadgerPageStore: checkpoints through store.HeapPages survive closing
// and reopening the data directory, a second checkpoint replaces only the
// changed pages' images, and Retain removes the manifests and images
// the kept generation does not name.
func TestBadgerPageStore(t *testing.T) {
	dir := t.TempDir()
	schema := heap.Schema{Columns: []heap.Column{{Name: "id", Kind: heap.KindInt8}, {Name: "v", Kind: heap.KindText}}}
	h, err := heap.New(schema, heap.Config{PageRows: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var b heap.Batch
	for i := range 1000 {
		b.Ops = append(b.Ops, heap.Op{Kind: heap.OpInsert, Row: rowenc.Encode([][]byte{[]byte(strconv.Itoa(i)), []byte("value " + strconv.Itoa(i))})})
	}
	b.LSN = 42
	ids, err := h.Apply(b)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(store.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	pages := db.HeapPages()
	if _, err := h.Checkpoint(pages, "public.t"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Apply(heap.Batch{LSN: 43, Ops: []heap.Op{{Kind: heap.OpDelete, ID: ids[5]}}}); err != nil {
		t.Fatal(err)
	}
	st, err := h.Checkpoint(pages, "public.t")
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != 1 {
		t.Fatalf("second checkpoint wrote %d pages, want 1", st.Pages)
	}
	// What a crash leaves: an image of a newer generation and its
	// manifest (a checkpoint its owner's record never named), and a
	// superseded image. Retain of the named generation removes them.
	m, err := pages.GetManifest("public.t", st.Gen)
	if err != nil {
		t.Fatal(err)
	}
	if err := pages.PutImages("public.t", []heap.PageImage{{Key: heap.PageKey{Gen: 99, ID: 0}, Data: []byte{1}}}); err != nil {
		t.Fatal(err)
	}
	if err := pages.PutManifest("public.t", 99, 43, m); err != nil {
		t.Fatal(err)
	}
	if top, err := pages.TopGeneration(); err != nil || top != 99 {
		t.Fatalf("top generation %d, %v; want 99", top, err)
	}
	if newest, err := pages.GetManifest("public.t", 0); err != nil || string(newest) != string(m) {
		t.Fatalf("newest manifest: %v", err)
	}
	if err := pages.Retain("public.t", st.Gen); err != nil {
		t.Fatal(err)
	}
	if top, err := pages.TopGeneration(); err != nil || top != st.Gen {
		t.Fatalf("after Retain(%d): top generation %d, %v", st.Gen, top, err)
	}
	if _, err := pages.GetManifest("public.t", 99); !errors.Is(err, heap.ErrNoCheckpoint) {
		t.Fatalf("the newer manifest survived Retain: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = store.Open(store.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := heap.Open(schema, heap.Config{}, db.HeapPages(), "public.t")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	want, got := h.Snapshot(), g.Snapshot()
	defer want.Release()
	defer got.Release()
	if got.LSN() != 43 || got.Rows() != 999 {
		t.Fatalf("restored LSN %d rows %d", got.LSN(), got.Rows())
	}
	want.ForEach(func(id heap.RowID, row []byte) bool {
		if r, ok := got.Row(nil, id); !ok || string(r) != string(row) {
			t.Fatalf("row %d: %q, want %q", id, r, row)
		}
		return true
	})
	if _, err := heap.Open(schema, heap.Config{}, db.HeapPages(), "other"); err == nil {
		t.Fatal("no checkpoint: no error")
	}
}
