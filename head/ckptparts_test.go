package head

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// dataInodes is the inode of every image file of generation gen in dir
// but the index image's head and the key directory (written at every
// checkpoint), by name.
func dataInodes(t *testing.T, dir string, gen uint64) map[string]uint64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, e := range ents {
		g, ok := fileGeneration(e.Name())
		if !ok || g != gen || strings.HasSuffix(e.Name(), ".i") || strings.HasSuffix(e.Name(), ".d") {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi.Sys().(*syscall.Stat_t).Ino
	}
	return out
}

// linkedFrom counts the files of now whose inode is one of then's.
func linkedFrom(then, now map[string]uint64) int {
	old := map[uint64]bool{}
	for _, ino := range then {
		old[ino] = true
	}
	n := 0
	for _, ino := range now {
		if old[ino] {
			n++
		}
	}
	return n
}

// TestCheckpointLinksUnchangedParts: a checkpoint writes only the index
// and key store parts whose pages changed since the last one and takes
// the others over as hard links (the same inodes): all of them when
// nothing changed, most of them after a few inserted keys, all of them
// again for a model restored from it (its pages are views of those
// files); every generation restores to the trees' rows. Before (record
// version 5) every checkpoint wrote every byte anew, in new files.
func TestCheckpointLinksUnchangedParts(t *testing.T) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, 27))
	f := openFeed(t)
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m}
	const n = 40000
	mod, rows := churnedCheckpoint(t, f, persist, nil, n, rng)
	dir := persist.imageDir()
	g1 := dataInodes(t, dir, mod.gen)
	if len(g1) < 4 {
		t.Fatalf("%d image files past the head, want the parts of a %d-row table", len(g1), n)
	}

	// Nothing changed: every part linked, only the index head written.
	st, err := mod.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	g2 := dataInodes(t, dir, mod.gen)
	if got := linkedFrom(g1, g2); got != len(g2) || len(g2) != len(g1) {
		t.Fatalf("unchanged checkpoint: %d of %d files linked from the generation before (%d files)", got, len(g2), len(g1))
	}
	if st.FileBytes > 4096 || st.LinkedBytes < st.IndexBytes/2 {
		t.Fatalf("unchanged checkpoint wrote %d B, linked %d B (index %d B, keys %d B)", st.FileBytes, st.LinkedBytes, st.IndexBytes, st.KeyBytes)
	}

	// A few keys past every other: the parts holding them are written,
	// the rest linked.
	a := relation(1, "a")
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		id := 3*n + i
		rows[id] = i
		f.commit([]wal.Change{{Kind: wal.Insert, Relation: a, New: vals(id, i, "late")}})
	}
	f.waitDelivered(sub)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = mod.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	g3 := dataInodes(t, dir, mod.gen)
	if got := linkedFrom(g2, g3); got == len(g3) || got == 0 {
		t.Fatalf("20 keys inserted: %d of %d parts linked", got, len(g3))
	}
	if st.FileBytes == 0 || st.LinkedBytes == 0 || st.FileBytes+st.LinkedBytes < st.IndexBytes+st.KeyBytes {
		t.Fatalf("20 keys inserted: wrote %d B, linked %d B (index %d B, keys %d B)", st.FileBytes, st.LinkedBytes, st.IndexBytes, st.KeyBytes)
	}

	back := Restore(Options{Heap: heapSmallPages, Persist: persist})
	t.Cleanup(back.Close)
	back.WaitWarm()
	if got, err := back.Compare(t.Context(), f.m); err != nil || got != len(rows) || back.Unusable() {
		t.Fatalf("seed %d: restored %d rows (want %d), unusable %v: %v", sd, got, len(rows), back.Unusable(), err)
	}
	// Restored, unchanged: its pages are views of the files, all linked.
	if _, err := back.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	g4 := dataInodes(t, dir, back.gen)
	if got := linkedFrom(g3, g4); got != len(g4) || len(g4) != len(g3) {
		t.Fatalf("restored model's unchanged checkpoint: %d of %d files linked (%d before)", got, len(g4), len(g3))
	}

	// The restored model changes: deletes, updates, inserts; its
	// checkpoint restores to the trees' rows again.
	sub, err = f.m.Subscribe(back, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	churnCommits(f, a, rows, rng, 400, 2, 2*n, "again")
	f.waitDelivered(sub)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := back.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	again := Restore(Options{Heap: heapSmallPages, Persist: persist})
	t.Cleanup(again.Close)
	again.WaitWarm()
	if got, err := again.Compare(t.Context(), f.m); err != nil || got != len(rows) || again.Unusable() {
		t.Fatalf("seed %d: restored after changes %d rows (want %d), unusable %v: %v", sd, got, len(rows), again.Unusable(), err)
	}
}

// mappedImageFiles is the lines of /proc/self/maps naming a file of
// generation gen in dir.
func mappedImageFiles(t *testing.T, dir string, gen uint64) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	prefix := filepath.Join(dir, imageFileName(gen, 0, 'i'))
	prefix = strings.TrimSuffix(prefix, "-0.i")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// restoredMapped checkpoints a churned table of 20,000 rows into persist
// (churnedCheckpoint) and returns a model restored from it, warmed, with
// its index and key store mapped from the checkpoint's parts, the rows,
// and the restored generation.
func restoredMapped(t *testing.T, f *feed, persist *Persist, rng *rand.Rand) (*Model, map[int]int, uint64) {
	t.Helper()
	mod, rows := churnedCheckpoint(t, f, persist, nil, 20000, rng)
	gen := mod.gen
	mod.Close()
	back := Restore(Options{Heap: heapSmallPages, Persist: persist})
	t.Cleanup(back.Close)
	back.WaitWarm()
	if back.Unusable() || back.Table("public.a").images == nil {
		t.Fatalf("not restored mapped (unusable %v)", back.Unusable())
	}
	if len(mappedImageFiles(t, persist.imageDir(), gen)) == 0 {
		t.Fatalf("no mapping of generation %d's files after the restore", gen)
	}
	return back, rows, gen
}

// releasedReadsAsTrees checks that back, whose restored parts a
// checkpoint gave back, and a model restored from that checkpoint read
// as the trees (rows).
func releasedReadsAsTrees(t *testing.T, f *feed, persist *Persist, back *Model, rows map[int]int, sd uint64) {
	t.Helper()
	if got, err := back.Compare(t.Context(), f.m); err != nil || got != len(rows) {
		t.Fatalf("seed %d: after the release %d rows (want %d): %v", sd, got, len(rows), err)
	}
	again := Restore(Options{Heap: heapSmallPages, Persist: persist})
	t.Cleanup(again.Close)
	again.WaitWarm()
	if got, err := again.Compare(t.Context(), f.m); err != nil || got != len(rows) || again.Unusable() {
		t.Fatalf("seed %d: restored %d rows (want %d), unusable %v: %v", sd, got, len(rows), again.Unusable(), err)
	}
}

// TestRestoredImagesReleased: a restored generation's mapped parts that
// nothing is a view of any more — here after a full compaction rebuilt
// the index and key store — are given back by the next checkpoint, whose
// sweep unlinked them: no mapping of them is left in the process (their
// disk space is free), and the model reads as the trees. Before, the
// mappings were kept until the process exited (an unlinked file's space
// with them): the check of /proc/self/maps failed.
func TestRestoredImagesReleased(t *testing.T) {
	sd := seed(t)
	f := openFeed(t)
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m}
	back, rows, gen := restoredMapped(t, f, persist, rand.New(rand.NewPCG(sd, 28)))
	dir := persist.imageDir()
	// Unchanged: the checkpoint links every part, releases nothing (every
	// page is still a view of its part).
	st, err := back.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if st.ReleasedBytes != 0 {
		t.Fatalf("released %d B of mappings the model still reads", st.ReleasedBytes)
	}
	// A full compaction rebuilds the index and key store in memory: no
	// page is a view of the files any more.
	if _, err := back.CompactTable("public.a"); err != nil {
		t.Fatal(err)
	}
	st, err = back.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if st.ReleasedBytes == 0 {
		t.Fatalf("nothing released after the compaction")
	}
	if left := mappedImageFiles(t, dir, gen); len(left) != 0 {
		t.Fatalf("generation %d's files still mapped after the checkpoint that swept them:\n%s", gen, strings.Join(left, "\n"))
	}
	releasedReadsAsTrees(t, f, persist, back, rows, sd)
}

// TestMappedPartDamaged: version 6's parts as version 5's files
// (TestMappedImageFileDamaged): a byte changed in a page of an index or
// key store part (the restore reads neither) is found by the warmer,
// which makes the model unusable; so is a key part's own directory (the
// restore maps the part by the key directory file's copy, keydir.go); a
// damaged index head or key directory file, or a part of the wrong
// length, refuses the checkpoint at the restore. Each damage is undone after its case (an unchanged checkpoint
// links the same files into the next generation).
func TestMappedPartDamaged(t *testing.T) {
	f := openFeed(t)
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m}
	mod, _ := churnedCheckpoint(t, f, persist, nil, 3000, rand.New(rand.NewPCG(seed(t), 29)))
	dir := persist.imageDir()
	opts := Options{Heap: heapSmallPages, Persist: persist}
	for _, c := range []struct {
		name    func(gen uint64) string
		at      func(size int) int
		refused bool
	}{
		{func(g uint64) string { return indexPartName(g, 0, 3, 0) }, func(size int) int { return size - 100 }, false},
		{func(g uint64) string { return keyPartName(g, 0, 0) }, func(int) int { return 64 }, false},
		{func(g uint64) string { return imageFileName(g, 0, 'i') }, func(int) int { return 20 }, true},
		{func(g uint64) string { return keyPartName(g, 0, 0) }, func(size int) int { return size - keyFileTrailer - 3 }, false},
		{func(g uint64) string { return imageFileName(g, 0, 'd') }, func(size int) int { return size / 2 }, true},
		{func(g uint64) string { return keyPartName(g, 0, 0) }, func(int) int { return -1 }, true},
		{func(g uint64) string { return indexPartName(g, 0, 0, 0) }, func(int) int { return -1 }, true},
	} {
		if _, err := mod.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, c.name(mod.gen))
		orig := damageAndRestore(t, opts, path, c.at, c.refused)
		if err := os.WriteFile(path, orig, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
