package head

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/wal"
)

// samePages reports whether two key stores hold the same pages, layout
// and all (width, live bits, offsets, arena, garbage).
func samePages(a, b []*keyPage) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d pages, want %d", len(a), len(b))
	}
	for i := range a {
		p, q := a[i], b[i]
		if (p == nil) != (q == nil) {
			return fmt.Errorf("page %d: present %v, want %v", i, p != nil, q != nil)
		}
		if p == nil {
			continue
		}
		if p.width != q.width || p.garbage != q.garbage || !slices.Equal(p.live, q.live) || !slices.Equal(p.start, q.start) ||
			!slices.Equal(p.end, q.end) || !bytes.Equal(p.buf, q.buf) {
			return fmt.Errorf("page %d differs: width %d/%d garbage %d/%d arena %d/%d bytes", i, p.width, q.width, p.garbage, q.garbage, len(p.buf), len(q.buf))
		}
	}
	return nil
}

// TestKeyImageRoundTrip: a key store image (checkpoint record version 4)
// written from a frozen store reads back the store of the freeze exactly
// — pages in the fixed and the variable layout, garbage and all — whatever
// the writer did after the freeze, and the restored store goes on taking
// sets and drops (its arenas are its own: a set appends without touching
// a neighbour's keys).
func TestKeyImageRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed(t), 21))
	var s keyStore
	want := map[heap.RowID][]byte{}
	churn := func(s *keyStore, want map[heap.RowID][]byte, n int) { churnKeys(rng, s, want, n, 20) }
	check := func(what string, s *keyStore, want map[heap.RowID][]byte) {
		t.Helper()
		for p := range uint32(41) {
			for i := range 301 {
				id := heap.MakeRowID(p, i)
				if got := s.key(id); !bytes.Equal(got, want[id]) {
					t.Fatalf("%s: key(%v) = %x, want %x", what, id, got, want[id])
				}
			}
		}
	}
	churn(&s, want, 20000)
	for round := range 4 {
		atFreeze := make([]*keyPage, len(s.pages))
		for i, p := range s.pages {
			if p != nil {
				c := *p
				c.live, c.start, c.end, c.buf = slices.Clone(p.live), slices.Clone(p.start), slices.Clone(p.end), slices.Clone(p.buf)
				atFreeze[i] = &c
			}
		}
		wantAt := maps.Clone(want)
		f := s.freeze()
		churn(&s, want, 20000)
		var img bytes.Buffer
		if err := writeKeyImage(&img, f.pages); err != nil {
			t.Fatal(err)
		}
		var back keyStore
		r := bytes.NewReader(img.Bytes())
		if err := back.readKeyImage(r); err != nil || r.Len() != 0 {
			t.Fatalf("round %d: readKeyImage: %v (%d bytes left)", round, err, r.Len())
		}
		if err := samePages(back.pages, atFreeze); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		check(fmt.Sprintf("round %d, restored", round), &back, wantAt)
		churn(&back, wantAt, 5000)
		check(fmt.Sprintf("round %d, restored and changed", round), &back, wantAt)
		check(fmt.Sprintf("round %d, the store", round), &s, want)
	}
}

// TestKeyImageCorrupt: a changed byte anywhere in a key store image, or a
// truncation, is refused with ErrCorruptCheckpoint.
func TestKeyImageCorrupt(t *testing.T) {
	var s keyStore
	for i := range 3000 {
		k := binary.BigEndian.AppendUint64(nil, uint64(i))
		if i%700 == 5 {
			k = append(k, "longer"...) // a variable page
		}
		s.set(heap.MakeRowID(uint32(i/1024), i%1024), k)
	}
	s.drop(heap.MakeRowID(0, 3))
	s.pages = append(s.pages, nil, nil) // absent pages
	var img bytes.Buffer
	if err := writeKeyImage(&img, s.pages); err != nil {
		t.Fatal(err)
	}
	good := img.Bytes()
	for i := 0; i < len(good); i += 1 + i%29 {
		bad := bytes.Clone(good)
		bad[i] ^= 0x10
		var back keyStore
		if err := back.readKeyImage(bytes.NewReader(bad)); !errors.Is(err, ErrCorruptCheckpoint) {
			t.Fatalf("byte %d of %d flipped: %v", i, len(good), err)
		}
	}
	for _, n := range []int{0, 5, 17, 18, 40, len(good) / 2, len(good) - 1} {
		var back keyStore
		if err := back.readKeyImage(bytes.NewReader(good[:n])); !errors.Is(err, ErrCorruptCheckpoint) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
}

// streamHead is the first bytes of chunk 0 of a table's stream.
func streamHead(t *testing.T, bdb *badger.DB, gen uint64, table string, kind byte, n int) []byte {
	t.Helper()
	var b []byte
	err := bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(chunkKey(gen, table, kind, 0))
		if err != nil {
			return err
		}
		b, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b[:min(n, len(b))]
}

// TestRestoreImagesAndOldStreams: a checkpoint writes record version 4
// (the index and key store as images) and a restore reads it back into
// the same nodes and key pages the model held; a version 3 checkpoint
// (decoded streams, as binaries before images wrote) still restores; both
// restored models equal the trees and catch up.
func TestRestoreImagesAndOldStreams(t *testing.T) {
	f := openFeed(t)
	a := relation(1, "a")
	rows := map[int]int{}
	for i := range 5000 {
		rows[i] = i
	}
	persist := &Persist{DB: f.db, Every: -1, Mirror: f.m, streams: true}
	opts := Options{Heap: heapSmallPages, Persist: persist}
	mod := New(opts)
	sub, err := f.m.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.copyTable(a, rows)
	for i := range 300 { // deletes: the index has free slots, the key pages garbage
		f.commit([]wal.Change{{Kind: wal.Delete, Relation: a, Old: vals(i*7, 0, ""), OldKind: wal.OldKey}})
	}
	f.waitDelivered(sub)
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	bdb := f.db.Badger()
	recordVersionOnDisk := func() byte {
		var v byte
		if err := bdb.View(func(txn *badger.Txn) error {
			p, err := readPosition(txn)
			v = p.version
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	restoreAndCompare := func(what string) *Model {
		t.Helper()
		back := Restore(opts)
		t.Cleanup(back.Close)
		if len(back.Tables()) != 1 || back.LSN() != mod.LSN() {
			t.Fatalf("%s: restored %d tables at %s, checkpoint at %s", what, len(back.Tables()), back.LSN(), mod.LSN())
		}
		if n, err := back.Compare(t.Context(), f.m); err != nil || n != 5000-300 {
			t.Fatalf("%s: restored model: %d rows, %v", what, n, err)
		}
		return back
	}
	// Version 3, as an older binary wrote it.
	if _, err := mod.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if v := recordVersionOnDisk(); v != recordStreams {
		t.Fatalf("record version %d, want %d", v, recordStreams)
	}
	if h := streamHead(t, bdb, mod.gen, "public.a", 'i', 8); !bytes.Equal(h, []byte("sradix\x01\x00")) {
		t.Fatalf("version 3 index stream starts %q", h)
	}
	restoreAndCompare("version 3")
	// Version 4: images, in chunks.
	persist.streams, persist.chunkImages = false, true
	if _, err := mod.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if v := recordVersionOnDisk(); v != recordVersion {
		t.Fatalf("record version %d, want %d", v, recordVersion)
	}
	if h := streamHead(t, bdb, mod.gen, "public.a", 'i', 8); !bytes.Equal(h, []byte("sradix\x03\x00")) {
		t.Fatalf("index stream starts %q, not an image", h)
	}
	if h := streamHead(t, bdb, mod.gen, "public.a", 'k', 6); !bytes.Equal(h, []byte("skeys\x01")) {
		t.Fatalf("key stream starts %q, not an image", h)
	}
	back := restoreAndCompare("version 4")
	src, got := mod.Table("public.a"), back.Table("public.a")
	if err := samePages(got.keys.pages, src.keys.pages); err != nil {
		t.Fatalf("restored key store: %v", err)
	}
	var wantImg, gotImg bytes.Buffer
	src.ix.View(func(tr *radixindex.Tree, lsn uint64) { _, err = tr.WriteImage(&wantImg, lsn) })
	got.ix.View(func(tr *radixindex.Tree, lsn uint64) {
		if err := tr.Verify(); err != nil {
			t.Fatalf("restored index: %v", err)
		}
		_, err = tr.WriteImage(&gotImg, lsn)
	})
	if !bytes.Equal(wantImg.Bytes(), gotImg.Bytes()) {
		t.Fatalf("the restored index's nodes differ from the checkpointed ones (%d vs %d image bytes)", gotImg.Len(), wantImg.Len())
	}
	// The restored model takes the next commits like the original.
	for i := range 200 {
		f.commit([]wal.Change{{Kind: wal.Insert, Relation: a, New: vals(10000+i, i, "new")}})
	}
	sub, err = f.m.Subscribe(back, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.waitDelivered(sub)
	defer sub.Close()
	if n, err := back.Compare(t.Context(), f.m); err != nil || n != 5000-300+200 {
		t.Fatalf("after catch-up: %d rows, %v", n, err)
	}
}

// TestRestoreRefusesDamagedImagePage: one byte changed inside a page of
// the index or key store image, with the stream's own CRC made to match
// (so only the page's checksum can see it), refuses the checkpoint: the
// model is rebuilt from the trees.
func TestRestoreRefusesDamagedImagePage(t *testing.T) {
	f := openFeed(t)
	opts, mod := checkpointedCopy(t, f, relation(1, "a"), 3000)
	opts.Persist.chunkImages = true // version 4's images, in chunks
	bdb := f.db.Badger()
	for _, kind := range []byte{'i', 'k'} {
		if _, err := mod.Checkpoint(); err != nil {
			t.Fatal(err)
		}
		err := bdb.Update(func(txn *badger.Txn) error {
			pos, err := readPosition(txn)
			if err != nil {
				return err
			}
			key := chunkKey(pos.Gen, "public.a", kind, 0)
			item, err := txn.Get(key)
			if err != nil {
				return err
			}
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			v[len(v)-20] ^= 0x20 // inside the last page of the chunk
			tr := &pos.Tables[0]
			crc := crcOf(v)
			if kind == 'i' {
				tr.IndexCRC = crc
			} else {
				tr.KeysCRC = crc
			}
			rec, err := encodePosition(pos)
			if err != nil {
				return err
			}
			if err := txn.Set(key, v); err != nil {
				return err
			}
			return txn.Set(positionKey, rec)
		})
		if err != nil {
			t.Fatal(err)
		}
		err = New(opts).restore(&restoreProgress{})
		if err == nil {
			t.Fatalf("a damaged %c image page was restored", kind)
		}
		t.Logf("%c: %v", kind, err)
		if r := Restore(opts); len(r.Tables()) != 0 {
			t.Fatalf("a checkpoint with a damaged %c image page was restored: %d tables", kind, len(r.Tables()))
		}
	}
}

func crcOf(b []byte) uint32 { return crc32.Checksum(b, crcTable) }
