package radixindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zeebo/xxh3"
)

// TestImageRoundTrip: an image (checkpoint version 2) restores the tree
// exactly as it was in memory — the same nodes in the same slots, the
// same free lists — and the restored tree goes on taking writes like the
// original (free slots reused), checked against the model.
func TestImageRoundTrip(t *testing.T) {
	forEachGen(t, 400, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs, tr, m := churnTree(rng, g, 3000, 3)
		var buf bytes.Buffer
		n, err := tr.WriteImage(&buf, 11)
		if err != nil || n != int64(buf.Len()) {
			t.Fatalf("WriteImage = %d, %v (buffer %d)", n, err, buf.Len())
		}
		r := bytes.NewReader(buf.Bytes())
		back, lsn, err := ReadImage(r, rs.keyOf)
		if err != nil || lsn != 11 {
			t.Fatalf("seed %d: ReadImage: lsn %d, %v", seed, lsn, err)
		}
		if r.Len() != 0 {
			t.Fatalf("seed %d: %d bytes of the image not read", seed, r.Len())
		}
		if err := back.Verify(); err != nil {
			t.Fatalf("seed %d: Verify: %v", seed, err)
		}
		if back.root != tr.root || back.n != tr.n || !sameImageSlab(&back.n4, &tr.n4) || !sameImageSlab(&back.n16, &tr.n16) ||
			!sameImageSlab(&back.n48, &tr.n48) || !sameImageSlab(&back.n256, &tr.n256) {
			t.Fatalf("seed %d: the restored slabs differ from the written ones", seed)
		}
		// Restore (the whole-buffer entry point) reads images too.
		if b2, _, err := Restore(buf.Bytes(), rs.keyOf); err != nil || b2.Len() != tr.Len() {
			t.Fatalf("seed %d: Restore of an image: %v", seed, err)
		}
		runModel(t, rng, g, 2000, seed, back, rs, m)
	})
}

func sameImageSlab[T comparable](a, b *slab[T]) bool {
	if a.n != b.n || !slices.Equal(a.free, b.free) || len(a.chunks) != len(b.chunks) {
		return false
	}
	for c := range a.chunks {
		if !slices.Equal(a.chunks[c], b.chunks[c]) {
			return false
		}
	}
	return true
}

// TestImageOfFrozen: a frozen index writes the image the index had at the
// freeze, whatever the writer did since (writes, a Compact).
func TestImageOfFrozen(t *testing.T) {
	forEachGen(t, 500, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs := &rows{}
		ix := NewIndex(rs.keyOf)
		churnIndex(ix, 1, 1500, rng, g, rs)
		var want bytes.Buffer
		ix.View(func(tr *Tree, lsn uint64) {
			if _, err := tr.WriteImage(&want, lsn); err != nil {
				t.Fatal(err)
			}
		})
		f := ix.Freeze()
		churnIndex(ix, 2, 1500, rng, g, rs)
		ix.Compact()
		churnIndex(ix, 3, 1500, rng, g, rs)
		var got bytes.Buffer
		if _, err := f.WriteImage(&got); err != nil {
			t.Fatal(err)
		}
		f.Release()
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("seed %d: the frozen index wrote %d image bytes, the index at the freeze %d, not the same", seed, got.Len(), want.Len())
		}
		back, err := RestoreImageIndex(bytes.NewReader(got.Bytes()), rs.keyOf)
		if err != nil || back.LSN() != 1 {
			t.Fatalf("seed %d: RestoreImageIndex: %v", seed, err)
		}
		back.View(func(tr *Tree, _ uint64) {
			if err := tr.Verify(); err != nil {
				t.Fatalf("seed %d: Verify: %v", seed, err)
			}
		})
	})
}

// TestImageCorrupt: a changed byte anywhere in the image (header, free
// lists, any page or its checksum), a truncation, or an image of another
// node layout is refused with ErrCorrupt: the caller rebuilds.
func TestImageCorrupt(t *testing.T) {
	tr, rs := fixtureTree()
	for _, k := range []string{"dx", "e-a-very-long-shared-path-1", "c\x02"} {
		tr.Delete([]byte(k)) // free slots, so the free lists are not empty
	}
	var buf bytes.Buffer
	if _, err := tr.WriteImage(&buf, 9); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if _, _, err := ReadImage(bytes.NewReader(good), rs.keyOf); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(good); i++ {
		bad := bytes.Clone(good)
		bad[i] ^= 0x41
		if _, _, err := ReadImage(bytes.NewReader(bad), rs.keyOf); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d of %d flipped: err %v", i, len(good), err)
		}
		if i > imageHeaderSize+256 {
			i += 13 // the pages: every 14th byte is enough to reach each
		}
	}
	for _, n := range []int{0, 10, imageHeaderSize, imageHeaderSize + 9, len(good) / 2, len(good) - 1} {
		if _, _, err := ReadImage(bytes.NewReader(good[:n]), rs.keyOf); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d: err %v", n, err)
		}
	}
	bad := bytes.Clone(good)
	binary.LittleEndian.PutUint16(bad[32:], uint16(size4+8)) // another build's node4
	binary.LittleEndian.PutUint64(bad[56:], xxh3.Hash(bad[:56]))
	if _, _, err := ReadImage(bytes.NewReader(bad), rs.keyOf); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("another node layout: err %v", err)
	}
}
