package head

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestKeyPagesChangedByDeletesReleased: a restored model whose key pages
// change only by deletes (no insert or update moves a page's key bytes)
// gives back the restored generation's key parts at the next checkpoint,
// which rewrote those parts and whose sweep unlinked the old files: no key
// page is a view of them any more, so no mapping of them is left (their
// disk space is free), and the model, and one restored from that
// checkpoint, read as the trees. Before, a delete copied only the page's
// slot bookkeeping and kept its key bytes a view of the mapped part: the
// part stayed mapped (its unlinked file's space held) until exit.
func TestKeyPagesChangedByDeletesReleased(t *testing.T) {
	sd := seed(t)
	f := openFeed(t)
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m}
	back, rows, gen := restoredMapped(t, f, persist, rand.New(rand.NewPCG(sd, 31)))
	dir := persist.imageDir()
	keyParts := func() []string {
		var out []string
		for _, l := range mappedImageFiles(t, dir, gen) {
			if strings.Contains(l, ".k-") {
				out = append(out, l)
			}
		}
		return out
	}
	if len(keyParts()) == 0 {
		t.Fatalf("no key part of generation %d mapped after the restore", gen)
	}

	// Every third row deleted, nothing else: each key page (64 rows a
	// heap page here) loses keys and gains none.
	a := relation(1, "a")
	sub, err := f.m.Subscribe(back, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Chosen page by page (the first of every three rows a key page
	// holds), so that every page loses a key: a page the deletes missed
	// (a last page of one or two rows, seed 1796655145940117832) is
	// rightly still a view of its part and keeps it mapped.
	tb := back.Table("public.a")
	byPage := map[uint32][]int{}
	for id := range rows {
		rid, ok := tb.ix.Get(benchKey(id))
		if !ok {
			t.Fatalf("seed %d: key %d not in the restored index", sd, id)
		}
		pg := heap.RowID(rid).Page()
		byPage[pg] = append(byPage[pg], id)
	}
	var ids []int
	for _, onPage := range byPage {
		slices.Sort(onPage)
		for i, id := range onPage {
			if i%3 == 0 {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	var batch []wal.Change
	for _, id := range ids {
		batch = append(batch, wal.Change{Kind: wal.Delete, Relation: a, Old: vals(id, 0, ""), OldKind: wal.OldKey})
		delete(rows, id)
		if len(batch) == 500 {
			f.commit(batch)
			batch = nil
		}
	}
	if len(batch) > 0 {
		f.commit(batch)
	}
	f.waitDelivered(sub)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := back.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if left := keyParts(); len(left) != 0 {
		t.Fatalf("seed %d: %d key parts of generation %d still mapped after the checkpoint that rewrote and swept them (released %d B):\n%s",
			sd, len(left), gen, st.ReleasedBytes, strings.Join(left, "\n"))
	}
	releasedReadsAsTrees(t, f, persist, back, rows, sd)
}
