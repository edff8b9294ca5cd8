package head

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

// churnedCheckpoint copies n rows of public.a through a model with
// persist, applies a seeded mix of inserts, updates and deletes (the
// index gets free slots, the key pages garbage), stops the subscription
// and checkpoints: the model and the reference rows.
func churnedCheckpoint(t *testing.T, f *feed, persist *Persist, budget *heap.PageBudget, n int, rng *rand.Rand) (*Model, map[int]int) {
	t.Helper()
	a := relation(1, "a")
	rows := map[int]int{}
	for i := range n {
		rows[i] = i % 1000
	}
	hcfg := heapSmallPages
	hcfg.Budget = budget
	mod := New(Options{Heap: hcfg, Persist: persist})
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.copyTable(a, rows)
	for range n / 4 {
		id := rng.IntN(2 * n)
		var c wal.Change
		if _, ok := rows[id]; ok && rng.IntN(2) == 0 {
			c = wal.Change{Kind: wal.Delete, Relation: a, Old: vals(id, 0, ""), OldKind: wal.OldKey}
			delete(rows, id)
		} else {
			kind := wal.Insert
			if _, ok := rows[id]; ok {
				kind = wal.Update
			}
			rows[id] = rng.IntN(1000)
			c = wal.Change{Kind: kind, Relation: a, New: vals(id, rows[id], strconv.Itoa(rng.IntN(1e6)))}
		}
		f.commit([]wal.Change{c})
	}
	f.waitDelivered(sub)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	return mod, rows
}

// churnCommits commits k single-row changes to a, keys drawn from [0,
// span): of a key present, every every-th a delete, else an update; of
// an absent one an insert. rows follows.
func churnCommits(f *feed, a *wal.Relation, rows map[int]int, rng *rand.Rand, k, every, span int, note string) {
	for i := range k {
		id := rng.IntN(span)
		if _, ok := rows[id]; ok && i%every == 0 {
			f.commit([]wal.Change{{Kind: wal.Delete, Relation: a, Old: vals(id, 0, ""), OldKind: wal.OldKey}})
			delete(rows, id)
			continue
		}
		kind := wal.Insert
		if _, ok := rows[id]; ok {
			kind = wal.Update
		}
		rows[id] = i
		f.commit([]wal.Change{{Kind: kind, Relation: a, New: vals(id, i, note)}})
	}
}

// sameReads reads seeded random point gets and ranges from both models at
// the checkpoint's LSN and fails on the first difference.
func sameReads(t *testing.T, rng *rand.Rand, want, got *Model, at wal.LSN, n, reads int) {
	t.Helper()
	for range reads {
		id := rng.IntN(2 * n)
		k := benchKey(id)
		wr, wf, werr := want.Get("public.a", k, at, nil)
		gr, gf, gerr := got.Get("public.a", k, at, nil)
		if werr != nil || gerr != nil || wf != gf || !bytes.Equal(wr, gr) {
			t.Fatalf("get %d: restored %q %v %v, before %q %v %v", id, gr, gf, gerr, wr, wf, werr)
		}
		lo := rng.IntN(2 * n)
		from, to := benchKey(lo), benchKey(lo+rng.IntN(200))
		collect := func(m *Model) ([]string, error) {
			var out []string
			err := m.Range("public.a", from, to, 0, at, func(key, row []byte) bool {
				out = append(out, string(key)+"="+string(row))
				return true
			})
			return out, err
		}
		wrs, werr := collect(want)
		grs, gerr := collect(got)
		if werr != nil || gerr != nil || len(wrs) != len(grs) {
			t.Fatalf("range [%d, +200): restored %d rows (%v), before %d (%v)", lo, len(grs), gerr, len(wrs), werr)
		}
		for i := range wrs {
			if wrs[i] != grs[i] {
				t.Fatalf("range from %d: row %d: restored %q, before %q", lo, i, grs[i], wrs[i])
			}
		}
	}
}

// fileSums is the content of every image file in dir.
func fileSums(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// TestMappedRestoreReadsAsBefore: a checkpoint of a store with a
// directory writes record version 5 and the index and key store as image
// files; a restore maps them (no page read: the index's chunks and the
// key pages are views of the files, none resident in the process) and
// answers seeded random point gets and ranges exactly as the model did
// before the restart; it then takes the next commits (each change copies
// what it touches: the files do not change) and equals the trees; its
// next checkpoint unlinks the files it maps, and it still reads right
// through the mappings.
func TestMappedRestoreReadsAsBefore(t *testing.T) {
	t.Run("v5", func(t *testing.T) { testMappedRestore(t, true) })
	t.Run("v6", func(t *testing.T) { testMappedRestore(t, false) })
}

// testMappedRestore is TestMappedRestoreReadsAsBefore with record version
// 5 (single) or 6.
func testMappedRestore(t *testing.T, single bool) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, 24))
	f := openFeed(t)
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m, singleFiles: single}
	const n = 6000
	mod, rows := churnedCheckpoint(t, f, persist, nil, n, rng)
	at := mod.LSN()
	var v byte
	if err := f.db.Badger().View(func(txn *badger.Txn) error {
		p, err := readPosition(txn)
		v = p.version
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantV, wantFiles := byte(recordParts), 3
	if single {
		wantV, wantFiles = recordFiles, 2
	}
	if v != wantV {
		t.Fatalf("record version %d, want %d", v, wantV)
	}
	dir := persist.imageDir()
	before := fileSums(t, dir)
	if len(before) < wantFiles || single && len(before) != wantFiles {
		t.Fatalf("%d image files, want an index and a key store file (or the parts of them)", len(before))
	}

	back := Restore(Options{Heap: heapSmallPages, Persist: persist})
	t.Cleanup(back.Close)
	if back.LSN() != at || len(back.Tables()) != 1 {
		t.Fatalf("seed %d: restored at %s with %d tables, checkpoint at %s", sd, back.LSN(), len(back.Tables()), at)
	}
	tb := back.Table("public.a")
	if tb.images == nil {
		t.Fatalf("the index and key store were not mapped")
	}
	tb.ix.View(func(tr *radixindex.Tree, _ uint64) {
		if tr.MappedBytes() == 0 || tb.keys.mappedBytes() == 0 {
			t.Fatalf("index %d B mapped of %d, key store %d B of %d", tr.MappedBytes(), tr.MemoryBytes(), tb.keys.mappedBytes(), tb.keys.memoryBytes())
		}
	})
	sameReads(t, rng, mod, back, at, n, 400)
	back.WaitWarm()
	if !back.verified.Load() || back.Unusable() {
		t.Fatalf("the warmer did not verify the mapped files (unusable %v)", back.Unusable())
	}

	// The restored model goes on: writes copy what they touch.
	a := relation(1, "a")
	churnCommits(f, a, rows, rng, 300, 3, 2*n, "after")
	sub, err := f.m.Subscribe(back, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.waitDelivered(sub)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := back.Compare(t.Context(), f.m); err != nil || got != len(rows) {
		t.Fatalf("seed %d: after catch-up: %d rows (want %d), %v", sd, got, len(rows), err)
	}
	after := fileSums(t, dir)
	for name, b := range before {
		if after[name] != b {
			t.Fatalf("image file %s changed under the restored model's writes", name)
		}
	}
	// Its next checkpoint sweeps the files it maps: the mappings stay.
	if _, err := back.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for name := range before {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the restored generation's %s survived the next checkpoint: %v", name, err)
		}
	}
	tb.images.evict() // pages read back from the unlinked files
	if got, err := back.Compare(t.Context(), f.m); err != nil || got != len(rows) {
		t.Fatalf("seed %d: after the sweep: %d rows (want %d), %v", sd, got, len(rows), err)
	}
	again := Restore(Options{Heap: heapSmallPages, Persist: persist})
	t.Cleanup(again.Close)
	if got, err := again.Compare(t.Context(), f.m); err != nil || got != len(rows) {
		t.Fatalf("seed %d: restored from the next checkpoint: %d rows (want %d), %v", sd, got, len(rows), err)
	}
}

// TestMappedImageFileDamaged: a byte changed in a page of the index or key
// store file (the restore reads neither) is found by the warmer, which
// makes the model unusable (rebuilt from the trees); a damaged header or
// key store directory, or a file of the wrong length, refuses the
// checkpoint at the restore.
func TestMappedImageFileDamaged(t *testing.T) {
	f := openFeed(t)
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m, singleFiles: true}
	mod, _ := churnedCheckpoint(t, f, persist, nil, 3000, rand.New(rand.NewPCG(seed(t), 25)))
	dir := persist.imageDir()
	opts := Options{Heap: heapSmallPages, Persist: persist}
	for _, c := range []struct {
		kind    byte
		at      func(size int) int
		refused bool
	}{
		{'i', func(size int) int { return size - 100 }, false},               // inside the last node256 page
		{'k', func(size int) int { return 64 }, false},                       // the first page's data
		{'i', func(int) int { return 20 }, true},                             // the header
		{'k', func(size int) int { return size - keyFileTrailer - 3 }, true}, // the directory
		{'k', func(size int) int { return -1 }, true},                        // truncated
	} {
		if _, err := mod.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		damageAndRestore(t, opts, filepath.Join(dir, imageFileName(mod.gen, 0, c.kind)), c.at, c.refused)
	}
}

// damageAndRestore damages the image file at path — a byte flipped at
// at(size), or its last byte cut (at < 0) — and restores opts: refused,
// the checkpoint must not be used; else it must restore (the restore
// reads no page) and the warmer must find the damage. It returns the
// file's bytes before.
func damageAndRestore(t *testing.T, opts Options, path string, at func(size int) int, refused bool) []byte {
	t.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Clone(orig)
	if i := at(len(b)); i < 0 {
		b = b[:len(b)-1]
	} else {
		b[i] ^= 0x10
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := Restore(opts)
	defer r.Close()
	switch {
	case refused && len(r.Tables()) != 0:
		t.Fatalf("%s damaged at its header, directory or length: restored %d tables", filepath.Base(path), len(r.Tables()))
	case !refused && len(r.Tables()) != 1:
		t.Fatalf("%s: a page damaged: the restore refused it (it reads no page)", filepath.Base(path))
	case !refused:
		r.WaitWarm()
		if !r.Unusable() {
			t.Fatalf("%s: a page damaged: the warmer did not find it", filepath.Base(path))
		}
	}
	return orig
}

// TestMappedIndexCharged: a restored table's charge to heap.memory is the
// index's and key store's own memory plus their mapped pages resident in
// the process — none right after the restore, some after reads — and when
// that takes the budget past its limit the mapped pages are dropped from
// the process, and reads go on right.
func TestMappedIndexCharged(t *testing.T) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, 26))
	f := openFeed(t)
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m}
	const n = 20000
	mod, _ := churnedCheckpoint(t, f, persist, nil, n, rng)
	at := mod.LSN()
	budget := heap.NewPageBudget(64 << 20)
	hcfg := heapSmallPages
	hcfg.Budget = budget
	back := Restore(Options{Heap: hcfg, Persist: persist})
	t.Cleanup(back.Close)
	back.WaitWarm()
	tb := back.Table("public.a")
	if tb == nil || tb.images == nil {
		t.Fatalf("not restored mapped")
	}
	var total, mapped int
	tb.ix.View(func(tr *radixindex.Tree, _ uint64) {
		total = tr.MemoryBytes() + tb.keys.memoryBytes()
		mapped = tr.MappedBytes() + tb.keys.mappedBytes()
	})
	own := int64(total - mapped)
	if c := tb.ChargeIndex(); c < own || c > own+tb.images.mappedLen() {
		t.Fatalf("charged %d B, own %d B, mapped %d B", c, own, mapped)
	}
	sameReads(t, rng, mod, back, at, n, 2000) // faults pages in
	tb.images.measured.Store(0)
	res := tb.images.residentBytes()
	if res == 0 {
		t.Fatalf("no mapped page resident after 2,000 reads")
	}
	if c := tb.ChargeIndex(); c != tb.charge.Bytes() || c < own+res/2 {
		t.Fatalf("charged %d B, own %d B, resident %d B", c, own, res)
	}
	// A budget the index's own memory and a few resident pages fill: the
	// mapped pages go.
	tight := heap.NewPageBudget(own + 4096)
	tb.charge = tight.NewCharge()
	tb.images.measured.Store(0)
	ev := tb.images.evicted.Load()
	c := tb.ChargeIndex()
	if tb.images.evicted.Load() == ev || c != own {
		t.Fatalf("over the budget (%d B): charged %d B, own %d B, evictions %d", tight.Limit(), c, own, tb.images.evicted.Load()-ev)
	}
	tb.images.measured.Store(0)
	if r := tb.images.residentBytes(); r != 0 {
		t.Fatalf("%d B of the mappings resident after the eviction", r)
	}
	sameReads(t, rng, mod, back, at, n, 300)
}
