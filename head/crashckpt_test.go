package head

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/wal"
)

// errKilled is what the test hook returns: the checkpoint stops there, as
// a SIGKILL would stop it.
var errKilled = errors.New("killed")

// TestCheckpointKilledMidway: a checkpoint stopped at any of its steps
// (before or after each table's heap pages and manifest, between two
// batches of a table's page images, the chunks, the
// position record, the sync, the sweeps) leaves a checkpoint the next
// start restores (no rebuild from the trees), mapping its index and key
// store files (record version 5): the previous one when the
// new position record was not written, else the new one. The restored
// model equals the trees row by row at its LSN, catches up to the head,
// and counts and sums as the reference does; its next checkpoint leaves
// one generation on disk. Before heap manifests had generations, a stop
// after the first table's heap checkpoint gave no usable checkpoint (issue
// 21 item 11: an 8-minute rebuild at 10M rows).
func TestCheckpointKilledMidway(t *testing.T) {
	sd := seed(t)
	rng := rand.New(rand.NewPCG(sd, 21))
	f := openFeed(t)
	a, b := relation(1, "a"), relation(2, "b")
	rels := map[string]*wal.Relation{"public.a": a, "public.b": b}
	ref := map[string]map[int]int{"public.a": {}, "public.b": {}}
	for i := range 2000 {
		ref["public.a"][i] = i % 97
		ref["public.b"][i*3] = i % 13
	}
	// One image a batch: the kill between two batches of a table's
	// images is a step of its own.
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m, batchBytes: 1}
	opts := Options{Heap: heapSmallPages, Persist: persist}
	mod := New(opts)
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.copyTable(a, ref["public.a"])
	f.copyTable(b, ref["public.b"])
	work := func(n int) {
		for range n {
			name := []string{"public.a", "public.b"}[rng.IntN(2)]
			id := rng.IntN(6000)
			rows := ref[name]
			var c wal.Change
			if _, ok := rows[id]; ok && rng.IntN(3) == 0 {
				c = wal.Change{Kind: wal.Delete, Relation: rels[name], Old: vals(id, 0, ""), OldKind: wal.OldKey}
				delete(rows, id)
			} else {
				kind := wal.Insert
				if _, ok := rows[id]; ok {
					kind = wal.Update
				}
				bal := rng.IntN(1000)
				c = wal.Change{Kind: kind, Relation: rels[name], New: vals(id, bal, strconv.Itoa(rng.IntN(1e6)))}
				rows[id] = bal
			}
			f.commit([]wal.Change{c})
		}
	}
	steps := []string{"heap public.a", "heap public.a batch 1", "chunks public.a", "heap public.b", "heap public.b batch 2",
		"index file public.b", "chunks", "record", "sync", "sweep", "retain public.a", "retain public.b"}
	for _, step := range steps {
		f.waitDelivered(sub)
		if err := sub.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := mod.Checkpoint(); err != nil { // the checkpoint a kill must not lose
			t.Fatalf("seed %d: %v", sd, err)
		}
		before := mod.LSN()
		// Changes on both tables, so the next checkpoint writes pages of each.
		if sub, err = f.m.Subscribe(mod, mirror.SubscribeOptions{}); err != nil {
			t.Fatal(err)
		}
		work(60)
		f.waitDelivered(sub)
		if err := sub.Close(); err != nil {
			t.Fatal(err)
		}
		after := mod.LSN()
		persist.crashAt = func(s string) error {
			if s != step {
				return nil
			}
			if s == "index file public.b" {
				// Killed while writing the key store file after the
				// index file: the new generation's files are torn.
				tearNewestImageFile(t, persist.imageDir())
			}
			return errKilled
		}
		_, err := mod.Checkpoint()
		persist.crashAt = nil
		if !errors.Is(err, errKilled) {
			t.Fatalf("checkpoint stopped at %q: %v", step, err)
		}
		work(30) // the mirror moves on while the process is down

		back := Restore(opts)
		if len(back.Tables()) != 2 {
			t.Fatalf("seed %d: killed at %q: restored %d tables (rebuilt from the trees), want the checkpoint", sd, step, len(back.Tables()))
		}
		for _, name := range back.Tables() {
			if back.Table(name).images == nil {
				t.Fatalf("killed at %q: %s restored without mapping its image files", step, name)
			}
		}
		recordWritten := step == "sync" || step == "sweep" || strings.HasPrefix(step, "retain")
		want := before
		if recordWritten {
			want = after
		}
		if back.LSN() != want || back.Durable().LSN != want {
			t.Fatalf("seed %d: killed at %q: restored at %s (durable %s), want %s", sd, step, back.LSN(), back.Durable().LSN, want)
		}
		if _, err := back.Compare(t.Context(), f.m); err != nil {
			t.Fatalf("seed %d: killed at %q: restored model: %v", sd, step, err)
		}
		if sub, err = f.m.Subscribe(back, mirror.SubscribeOptions{}); err != nil {
			t.Fatal(err)
		}
		f.waitDelivered(sub)
		if back.LSN() != f.m.Head().EndLSN {
			t.Fatalf("killed at %q: caught up to %s, head %s", step, back.LSN(), f.m.Head().EndLSN)
		}
		if n, err := back.Compare(t.Context(), f.m); err != nil || n != len(ref["public.a"])+len(ref["public.b"]) {
			t.Fatalf("seed %d: killed at %q: after catch-up: %d rows, %v", sd, step, n, err)
		}
		for name, rows := range ref {
			count, sum := countSum(back.Table(name).hp)
			wantSum := 0
			for _, bal := range rows {
				wantSum += bal
			}
			if count != len(rows) || sum != int64(wantSum) {
				t.Fatalf("seed %d: killed at %q: %s count %d sum %d, want %d %d", sd, step, name, count, sum, len(rows), wantSum)
			}
		}
		mod = back
	}
	f.waitDelivered(sub)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	// A checkpoint keeps the restored generation's images while pages
	// still read them (a mapped restore not yet warmed, or versions from
	// before it still reachable): wait until none does.
	waitUnpinned(t, mod)
	if _, err := mod.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	// What the kills left is gone: one generation of chunks, of heap
	// manifests and of nothing newer.
	if gens := chunkGenerations(t, f.db); len(gens) != 1 || gens[mod.gen] == 0 {
		t.Fatalf("after a checkpoint at generation %d the chunks are of %v", mod.gen, gens)
	}
	if top, err := f.db.HeapPages().TopGeneration(); err != nil || top != mod.gen {
		t.Fatalf("after a checkpoint at generation %d the heap pages reach generation %d (%v)", mod.gen, top, err)
	}
	for name := range ref {
		if _, err := f.db.HeapPages().GetManifest(name, mod.gen-1); !errors.Is(err, heap.ErrNoCheckpoint) {
			t.Fatalf("%s: a superseded manifest survived: %v", name, err)
		}
	}
}

// tearNewestImageFile truncates the newest generation's last-written
// image file in dir to half, as a kill in the middle of writing it leaves
// (a part linked from the generation before is not written: skipped).
func tearNewestImageFile(t *testing.T, dir string) {
	t.Helper()
	gens, err := imageFileGenerations(dir)
	if err != nil {
		t.Fatal(err)
	}
	var top uint64
	for g := range gens {
		top = max(top, g)
	}
	var newest string
	var at time.Time
	for _, name := range gens[top] {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Sys().(*syscall.Stat_t).Nlink > 1 {
			continue
		}
		if newest == "" || st.ModTime().After(at) {
			newest, at = name, st.ModTime()
		}
	}
	st, err := os.Stat(filepath.Join(dir, newest))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, newest), st.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// countSum is count(*) and sum(bal) of a table's heap (column 1).
func countSum(h *heap.Heap) (int, int64) {
	s := h.Snapshot()
	defer s.Release()
	var n int
	var sum int64
	for i := range s.NumPages() {
		pv := s.Page(i)
		ints, live, nulls := pv.Int64s(1), pv.Live(), pv.Nulls(1)
		for slot := range pv.Slots() {
			if live[slot/64]&(1<<(slot%64)) != 0 {
				n++
				if nulls[slot/64]&(1<<(slot%64)) == 0 {
					sum += ints[slot]
				}
			}
		}
	}
	return n, sum
}
