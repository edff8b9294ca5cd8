package heap

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// TestSummarySegmentsIncremental: a checkpoint writes only the summary
// segments whose pages changed (version 2 rewrote every page's summary in
// the manifest: 48 MB at 100M rows for a checkpoint of a few pages); the
// others stay named at their older generation, Retain keeps them, and a
// mapped restore of the newest checkpoint serves the heap exactly. A
// checkpoint stopped between its batches leaves the previous one whole.
func TestSummarySegmentsIncremental(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 26), 20))
	cfg := Config{PageRows: 16, PageBytes: 4096, SummarySegPages: 4}
	h := mustNew(t, modelSchema, cfg)
	defer h.Close()
	var b Batch
	for i := range 400 { // 25 pages: 7 segments
		b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
	}
	b.LSN = 10
	ids := mustApply(t, h, b)
	store := NewMemStore()
	st1, err := h.Checkpoint(store, "t")
	if err != nil {
		t.Fatal(err)
	}
	segs := func(gen uint64) []sumSeg {
		t.Helper()
		m, err := decodeManifest(store.manifests["t"][gen])
		if err != nil {
			t.Fatal(err)
		}
		if m.segs == nil || m.segPages != 4 {
			t.Fatalf("manifest of generation %d: %d segments of %d pages, want version 3", gen, len(m.segs), m.segPages)
		}
		return m.segs
	}
	first := segs(st1.Gen)
	if len(first) != 7 || st1.SummaryBytes == 0 {
		t.Fatalf("first checkpoint: %d segments, %d summary bytes", len(first), st1.SummaryBytes)
	}
	// One row of page 5 (segment 1) changes.
	upd := Batch{LSN: 20, Ops: []Op{{Kind: OpUpdate, ID: ids[5*16+3], Row: randRow(r, 999)}}}
	mustApply(t, h, upd)
	st2, err := h.Checkpoint(store, "t")
	if err != nil {
		t.Fatal(err)
	}
	second := segs(st2.Gen)
	for i, s := range second {
		switch {
		case i == 1 && s.gen != st2.Gen:
			t.Fatalf("segment 1 (the changed page's) kept generation %d", s.gen)
		case i != 1 && s != first[i]:
			t.Fatalf("segment %d rewritten (generation %d) though none of its pages changed", i, s.gen)
		}
	}
	if st2.SummaryBytes >= st1.SummaryBytes/3 {
		t.Fatalf("second checkpoint wrote %d summary bytes, the first %d: not incremental", st2.SummaryBytes, st1.SummaryBytes)
	}
	restoreSame := func(what string) {
		t.Helper()
		g, err := Open(modelSchema, Config{PageRows: 16, PageBytes: 4096, RestoreCold: true}, store, "t")
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer g.Close()
		if m := g.Memory(); m.DecodedPages != 0 {
			t.Fatalf("%s: %d pages decoded by a mapped restore", what, m.DecodedPages)
		}
		a, b := h.Snapshot(), g.Snapshot()
		defer a.Release()
		defer b.Release()
		sameHeaps(t, a, b)
	}
	restoreSame("after Retain of the second checkpoint")
	// A checkpoint stopped after its first batch (a kill): the second
	// checkpoint still restores whole; the next one completes.
	var more Batch
	more.LSN = 30
	for i := range 40 {
		more.Ops = append(more.Ops, Op{Kind: OpUpdate, ID: ids[i*9], Row: randRow(r, int64(2000+i))})
	}
	mustApply(t, h, more)
	stop := errors.New("killed")
	_, err = h.CutCheckpoint().Write(store, "t", st2.Gen+1, WriteOptions{BatchBytes: 1, BeforeBatch: func(n int) error {
		if n == 1 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) {
		t.Fatalf("stopped checkpoint: %v", err)
	}
	g, err := Open(modelSchema, Config{PageRows: 16, PageBytes: 4096, RestoreCold: true}, store, "t")
	if err != nil {
		t.Fatalf("the checkpoint before a stopped one: %v", err)
	}
	if s := g.Snapshot(); s.LSN() != 20 {
		t.Fatalf("restored LSN %d, want the second checkpoint's 20", s.LSN())
	}
	g.Close()
	if _, err := h.Checkpoint(store, "t"); err != nil {
		t.Fatal(err)
	}
	restoreSame("after the checkpoint following a stopped one")
}
