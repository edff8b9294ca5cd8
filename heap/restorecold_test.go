package heap

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"weak"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// coldSource is a heap of modelSchema with inserts, updates (some moved),
// deletes and a vacuum behind it, checkpointed into a MemStore: every
// kind of summary (NULLs, text, numeric specials and wide values, floats,
// stale min/max) and dead slots are in its pages.
func coldSource(t *testing.T, r *rand.Rand, cfg Config) (*Heap, *MemStore) {
	t.Helper()
	h := mustNew(t, modelSchema, cfg)
	var b Batch
	for i := range 4000 {
		b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
	}
	b.LSN = 10
	ids := mustApply(t, h, b)
	b = Batch{LSN: 20}
	for i, id := range ids {
		switch {
		case i%7 == 0:
			b.Ops = append(b.Ops, Op{Kind: OpDelete, ID: id})
		case i%5 == 0:
			b.Ops = append(b.Ops, Op{Kind: OpUpdate, ID: id, Row: randRow(r, int64(i))})
		}
	}
	mustApply(t, h, b)
	store := NewMemStore()
	if _, err := h.Checkpoint(store, "t"); err != nil {
		t.Fatal(err)
	}
	return h, store
}

// sameHeaps fails unless b holds a's LSN, rows (by row id), page count and
// table summaries, and b's pages (cold ones decoded for the check) are
// consistent with their summaries.
func sameHeaps(t *testing.T, a, b *Snapshot) {
	t.Helper()
	if err := checkInvariants(b); err != nil {
		t.Fatal(err)
	}
	if a.LSN() != b.LSN() || a.Rows() != b.Rows() || a.NumPages() != b.NumPages() {
		t.Fatalf("lsn/rows/pages %d/%d/%d, want %d/%d/%d", b.LSN(), b.Rows(), b.NumPages(), a.LSN(), a.Rows(), a.NumPages())
	}
	a.ForEach(func(id RowID, row []byte) bool {
		got, ok := b.Row(nil, id)
		if !ok || string(got) != string(row) {
			t.Fatalf("row %d = %q, want %q", id, got, row)
		}
		return true
	})
	for c, col := range modelSchema.Columns {
		sa, sb := a.Stats(c), b.Stats(c)
		if err := sameStats(col.Kind, &sa, &sb); err != nil {
			t.Fatalf("column %s: %v", col.Name, err)
		}
		for i := range a.NumPages() {
			pa, pb := a.PageStats(i, c), b.PageStats(i, c)
			if err := sameStats(col.Kind, &pa, &pb); err != nil {
				t.Fatalf("page %d column %s: %v", i, col.Name, err)
			}
		}
	}
}

// TestRestoreColdMapsPages: a restore with RestoreCold decodes no page —
// every page is cold right after it, its summaries from the manifest —
// and serves exactly the checkpointed heap (rows, row ids, page and table
// summaries); Warm then decodes pages in steps up to the bound (all of
// them without one), each step the same content, and the heap goes on
// applying batches as the source heap does. Before (no RestoreCold), a
// restore decoded every page that fit.
func TestRestoreColdMapsPages(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 24), 17))
	pf := testPageFile(t, 64<<10)
	for _, cfg := range []Config{
		{PageRows: 64, PageBytes: 4096},
		{PageRows: 64, PageBytes: 4096, Memory: 96 << 10},
		{PageRows: 64, PageBytes: 4096, Memory: 96 << 10, Pages: pf},
		{PageRows: 64, PageBytes: 4096, Budget: NewPageBudget(128 << 10), Pages: pf},
	} {
		t.Run(fmt.Sprintf("mem%d-budget%v-disk%v", cfg.Memory, cfg.Budget != nil, cfg.Pages != nil), func(t *testing.T) {
			src, store := coldSource(t, r, Config{PageRows: cfg.PageRows, PageBytes: cfg.PageBytes})
			defer src.Close() // the source, then the heap restored by decoding
			ocfg := cfg
			ocfg.RestoreCold = true
			g, err := Open(modelSchema, ocfg, store, "t")
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if m := g.Memory(); m.DecodedPages != 0 || g.Thaws() != 0 {
				t.Fatalf("right after the restore: %d pages decoded, %d thaws; want none", m.DecodedPages, g.Thaws())
			}
			if m := g.Memory(); m.CheckpointPages != m.ColdPages || int64(m.ColdPages) != g.CheckpointPins() {
				t.Fatalf("%d of %d cold pages read from the checkpoint (%d pins), want all", m.CheckpointPages, m.ColdPages, g.CheckpointPins())
			}
			a := src.Snapshot()
			b := g.Snapshot()
			sameHeaps(t, a, b)
			b.Release()
			steps := 0
			for {
				n, done, err := g.Warm(7)
				if err != nil {
					t.Fatal(err)
				}
				if n > 7 {
					t.Fatalf("Warm(7) decoded %d pages", n)
				}
				steps++
				b := g.Snapshot()
				sameHeaps(t, a, b)
				b.Release()
				if done {
					break
				}
				if steps > 1000 {
					t.Fatal("Warm never done")
				}
			}
			m := g.Memory()
			if m.CheckpointPages != 0 || (cfg.Pages != nil && m.DiskPages != m.ColdPages) {
				t.Fatalf("after Warm: %+v; want no page read from the checkpoint, every cold one in the page file", m)
			}
			switch {
			case cfg.Memory == 0 && cfg.Budget == nil:
				if m.ColdPages != 0 {
					t.Fatalf("unbounded: %d pages still cold after Warm", m.ColdPages)
				}
			default:
				if m.DecodedPages == 0 || m.DecodedBytes > g.allowed() {
					t.Fatalf("bounded: %d pages (%d bytes) decoded, allowed %d", m.DecodedPages, m.DecodedBytes, g.allowed())
				}
			}
			a.Release()
			// Once no version reaches them, nothing reads the checkpoint:
			// its images may go (the owner's Retain waits for this).
			for i := 0; g.CheckpointPins() != 0; i++ {
				if i == 100 {
					t.Fatalf("%d checkpoint pins left after Warm and 100 collections", g.CheckpointPins())
				}
				runtime.GC()
				runtime.Gosched()
			}
			// It goes on applying batches as a heap restored by decoding
			// does (the same free-space map: the same row ids).
			ecfg := cfg
			ecfg.Budget, ecfg.Pages = nil, nil
			src, err = Open(modelSchema, ecfg, store, "t")
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			for step := range 3 {
				b := Batch{LSN: uint64(30 + step)}
				var ids []RowID
				s := src.Snapshot()
				s.ForEach(func(id RowID, _ []byte) bool { ids = append(ids, id); return len(ids) < 200 })
				s.Release()
				for i, id := range ids {
					if i%3 == 0 {
						b.Ops = append(b.Ops, Op{Kind: OpUpdate, ID: id, Row: randRow(r, int64(10000+i))})
					} else if i%3 == 1 {
						b.Ops = append(b.Ops, Op{Kind: OpDelete, ID: id})
					}
				}
				b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: randRow(r, int64(20000+step))})
				ia, ib := mustApply(t, src, b), mustApply(t, g, b)
				if fmt.Sprint(ia) != fmt.Sprint(ib) {
					t.Fatalf("step %d: row ids %v, source %v", step, ib, ia)
				}
				sa, sb := src.Snapshot(), g.Snapshot()
				sameHeaps(t, sa, sb)
				sa.Release()
				sb.Release()
			}
		})
	}
}

// TestRestoreColdRefusesDamage: a mapped restore reads no image, so a
// damaged summary section refuses the checkpoint at once, and a damaged
// image or one that is not the page its summary describes is refused by
// Warm, which checks every image it decodes or moves, with a *PageError
// naming the page (the owner then rebuilds from the trees); a version-1
// manifest (no summaries) is restored by decoding, as before.
func TestRestoreColdRefusesDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 24), 18))
	cfg := Config{PageRows: 64, PageBytes: 4096, RestoreCold: true}
	fresh := func() (*Heap, *MemStore) {
		return coldSource(t, r, Config{PageRows: 64, PageBytes: 4096})
	}
	t.Run("image", func(t *testing.T) {
		_, store := fresh()
		for k, v := range store.pages["t"] {
			if k.ID == 3 {
				v[len(v)/2] ^= 0x55
			}
		}
		warmFails(t, cfg, store, 3)
	})
	t.Run("summary", func(t *testing.T) {
		_, store := fresh()
		damaged := 0
		for k, v := range store.pages["t"] {
			if IsSummaryKey(k) {
				v[len(v)/2] ^= 0x55 // inside a stored summary segment
				damaged++
			}
		}
		if damaged == 0 {
			t.Fatal("no summary segment stored")
		}
		if _, err := Open(modelSchema, cfg, store, "t"); err == nil {
			t.Fatal("damaged summary segment: no error")
		}
	})
	t.Run("summary-missing", func(t *testing.T) {
		_, store := fresh()
		for k := range store.pages["t"] {
			if IsSummaryKey(k) {
				delete(store.pages["t"], k)
				break
			}
		}
		if _, err := Open(modelSchema, cfg, store, "t"); err == nil {
			t.Fatal("missing summary segment: no error")
		}
	})
	t.Run("summary-version2", func(t *testing.T) {
		// A version 2 manifest (summaries inside it, as session 17 wrote)
		// still restores mapped; damage to its summary section refuses it.
		src, store := fresh()
		var v2 []byte
		for g, mb := range store.manifests["t"] {
			m, err := decodeManifest(mb)
			if err != nil {
				t.Fatal(err)
			}
			if err := loadSummaries(m, store, "t"); err != nil {
				t.Fatal(err)
			}
			m.segs = nil
			v2 = m.encode()
			if string(v2[:4]) != manifestMagic2 {
				t.Fatalf("re-encoded manifest is %q", v2[:4])
			}
			store.manifests["t"][g] = v2
		}
		g, err := Open(modelSchema, cfg, store, "t")
		if err != nil {
			t.Fatal(err)
		}
		if m := g.Memory(); m.DecodedPages != 0 {
			t.Fatalf("version-2 manifest: %d pages decoded at the restore, want none", m.DecodedPages)
		}
		a, b := src.Snapshot(), g.Snapshot()
		sameHeaps(t, a, b)
		a.Release()
		b.Release()
		g.Close()
		for g, mb := range store.manifests["t"] {
			m, err := decodeManifest(mb)
			if err != nil {
				t.Fatal(err)
			}
			mb[len(mb)-8-len(m.sums)/2] ^= 0x55 // inside the stored summaries
			store.manifests["t"][g] = mb
		}
		if _, err := Open(modelSchema, cfg, store, "t"); err == nil {
			t.Fatal("damaged version-2 summary section: no error")
		}
	})
	t.Run("swapped", func(t *testing.T) {
		// Pages 1 and 2's images swapped: each checks, but not as the
		// page its summary describes.
		_, store := fresh()
		var k1, k2 PageKey
		for k := range store.pages["t"] {
			switch k.ID {
			case 1:
				k1 = k
			case 2:
				k2 = k
			}
		}
		store.pages["t"][k1], store.pages["t"][k2] = store.pages["t"][k2], store.pages["t"][k1]
		warmFails(t, cfg, store, 1)
	})
	t.Run("version1", func(t *testing.T) {
		src, store := fresh()
		for g, mb := range store.manifests["t"] {
			m, err := decodeManifest(mb)
			if err != nil {
				t.Fatal(err)
			}
			m.sums, m.segs = nil, nil
			store.manifests["t"][g] = m.encode()
		}
		g, err := Open(modelSchema, cfg, store, "t")
		if err != nil {
			t.Fatal(err)
		}
		if m := g.Memory(); m.ColdPages != 0 {
			t.Fatalf("version-1 manifest: %d pages cold, want every page decoded", m.ColdPages)
		}
		a, b := src.Snapshot(), g.Snapshot()
		sameHeaps(t, a, b)
		a.Release()
		b.Release()
	})
}

// warmFails opens store's checkpoint mapped and requires Warm to fail on
// page id with a *PageError, and reads of that page to fail too.
func warmFails(t *testing.T, cfg Config, store *MemStore, id uint32) {
	t.Helper()
	g, err := Open(modelSchema, cfg, store, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for range 1000 {
		_, done, err := g.Warm(16)
		if err != nil {
			var pe *PageError
			if !errors.As(err, &pe) || pe.Page != id {
				t.Fatalf("Warm: %v; want a *PageError of page %d", err, id)
			}
			s := g.Snapshot()
			defer s.Release()
			if _, err := s.PageErr(int(id)); err == nil {
				t.Fatalf("page %d read back from a damaged checkpoint", id)
			}
			return
		}
		if done {
			t.Fatalf("Warm done over a damaged image of page %d", id)
		}
	}
	t.Fatal("Warm never done")
}

// TestRestoreColdDroppedHeapCollected: a heap restored mapped and dropped
// before Warm ran (a table reset or dropped right after a restart) is
// collected, its checkpoint pins with it: the cleanups counting the pins
// must not keep the heap reachable.
func TestRestoreColdDroppedHeapCollected(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 24), 19))
	src, store := coldSource(t, r, Config{PageRows: 64, PageBytes: 4096})
	src.Close()
	g, err := Open(modelSchema, Config{PageRows: 64, PageBytes: 4096, RestoreCold: true}, store, "t")
	if err != nil {
		t.Fatal(err)
	}
	pins := g.pins
	if pins.Load() == 0 {
		t.Fatal("no page reads the checkpoint")
	}
	wg := weak.Make(g)
	g.Close()
	g = nil
	for i := 0; wg.Value() != nil || pins.Load() != 0; i++ {
		if i == 200 {
			t.Fatalf("after 200 collections: heap collected %v, %d pins left", wg.Value() == nil, pins.Load())
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// TestRestoreColdPageCache: with a page file, a page of a mapped restore
// read before the warmer reaches it is decoded once and then served from
// the page cache to later snapshots (before, every snapshot decoded its
// image from the checkpoint again); Warm drops the cached decode when it
// replaces the page, and the rows stay the source's throughout.
func TestRestoreColdPageCache(t *testing.T) {
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 25), 19))
	pf := testPageFile(t, 4<<20)
	cfg := Config{PageRows: 64, PageBytes: 4096, Pages: pf}
	src, store := coldSource(t, r, Config{PageRows: cfg.PageRows, PageBytes: cfg.PageBytes})
	defer src.Close()
	ocfg := cfg
	ocfg.RestoreCold = true
	g, err := Open(modelSchema, ocfg, store, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	a := src.Snapshot()
	defer a.Release()
	id := MakeRowID(3, 1)
	want, ok := a.Row(nil, id)
	if !ok {
		t.Fatalf("the source has no row %v", id)
	}
	for i := range 3 {
		b := g.Snapshot()
		got, ok := b.Row(nil, id)
		b.Release()
		if !ok || string(got) != string(want) {
			t.Fatalf("read %d: row %v = %q, want %q", i, id, got, want)
		}
		if n := g.Thaws(); n != 1 {
			t.Fatalf("after %d reads of one restored page through new snapshots: %d decodes, want 1", i+1, n)
		}
	}
	if st := pf.Cache().Stats(); st.Pages != 1 {
		t.Fatalf("page cache holds %d pages, want the one read", st.Pages)
	}
	for {
		_, done, err := g.Warm(16)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
	}
	if st := pf.Cache().Stats(); st.Pages != 0 {
		t.Fatalf("after warming, the page cache still holds %d pages of the checkpoint", st.Pages)
	}
	b := g.Snapshot()
	defer b.Release()
	sameHeaps(t, a, b)
}
