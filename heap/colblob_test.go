package heap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// coldHeap is a heap of modelSchema under cfg with 3,000 random rows
// (seeded by seed1, seed2) and most of its pages cold, and a snapshot
// of it.
func coldHeap(t *testing.T, cfg Config, seed1, seed2 uint64) (*Heap, *Snapshot) {
	t.Helper()
	h, err := New(modelSchema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed1, seed2))
	var ops []Op
	for i := range 3000 {
		ops = append(ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
	}
	mustApply(t, h, Batch{LSN: 1, Ops: ops})
	s := h.Snapshot()
	t.Cleanup(s.Release)
	if m := h.Memory(); m.ColdPages < 2*m.DecodedPages {
		t.Fatalf("the test wants most pages cold: %+v", m)
	}
	return h, s
}

// coldMemCfg keeps most of coldHeap's pages cold in memory.
var coldMemCfg = Config{PageRows: 64, PageBytes: 8 << 10, Memory: 32 << 10}

// TestColdImageColumnBlocked: a cold page is kept column-blocked; the
// blob decompresses to the very image encodePage made of the page; a
// reader of some columns reads the page although another column's
// section is damaged (it decompresses only its own sections), while a
// reader of the damaged column and a full read both get a *PageError;
// damage to a read section's bytes is caught by its checksum.
func TestColdImageColumnBlocked(t *testing.T) {
	h, s := coldHeap(t, coldMemCfg, 5, 6)
	checked := 0
	for i := range s.NumPages() {
		p := s.v.pages.at(i)
		if p.cold == nil {
			continue
		}
		if Codec(p.cold[0]) != codecS2Cols {
			t.Fatalf("page %d: cold image tagged %v, want the column-blocked form", i, Codec(p.cold[0]))
		}
		full, err := s.PageErr(i)
		if err != nil {
			t.Fatal(err)
		}
		img, err := h.z.decompress(nil, p.cold)
		if err != nil {
			t.Fatal(err)
		}
		if want := encodePage(nil, full.p, &h.schema); !bytes.Equal(img, want) {
			t.Fatalf("page %d: the blob decompresses to %d bytes, not the page's image (%d)", i, len(img), len(want))
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no cold page in memory")
	}

	// Damage column 3's (note) section of one cold page: flip a byte of
	// its s2 block. A new snapshot: s holds the pages it decoded.
	s = h.Snapshot()
	defer s.Release()
	victim := -1
	for i := range s.NumPages() {
		if p := s.v.pages.at(i); p.cold != nil {
			victim = i
			break
		}
	}
	p := s.v.pages.at(victim)
	good := bytes.Clone(p.cold)
	b, err := parseColBlob(p.cold)
	if err != nil {
		t.Fatal(err)
	}
	off := 0
	for sec := range 1 + 3 { // header, columns 0, 1, 2
		off += b.encLen(sec)
	}
	dataStart := 3 + b.nsec*colBlobEntry
	p.cold[dataStart+off+b.encLen(4)/2] ^= 0x55
	defer copy(p.cold, good)

	if _, err := s.ColReader([]int{0, 5}).Page(victim); err != nil {
		t.Fatalf("a reader of columns 0 and 5 read the damaged note section: %v", err)
	}
	var pe *PageError
	if _, err := s.ColReader([]int{0, 3}).Page(victim); !errors.As(err, &pe) || !errors.Is(err, ErrCorruptPage) {
		t.Fatalf("reader of the damaged column: %v, want a *PageError", err)
	}
	if _, err := s.PageErr(victim); !errors.As(err, &pe) {
		t.Fatalf("full read of the damaged page: %v, want a *PageError", err)
	}
}

// TestColBlobDamageNeverPanics: every truncation of a column-blocked
// image and damage to its table are errors, never a panic or a page.
func TestColBlobDamageNeverPanics(t *testing.T) {
	h, s := coldHeap(t, coldMemCfg, 5, 6)
	var blob []byte
	for i := range s.NumPages() {
		if p := s.v.pages.at(i); p.cold != nil {
			blob = bytes.Clone(p.cold)
			break
		}
	}
	want := []bool{true, false, false, true, false, true, false, false}
	for n := 0; n < len(blob); n += 1 + n/16 {
		if _, err := h.z.decompress(nil, blob[:n]); err == nil {
			t.Fatalf("%d of %d bytes decompressed", n, len(blob))
		}
		if _, _, err := h.thawCols(nil, blob[:n], 0, nil, want); err == nil {
			t.Fatalf("%d of %d bytes read for some columns", n, len(blob))
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		bad := bytes.Clone(blob)
		// a raw or block length in the table, or a head byte
		at := 3 + r.IntN(int(binary.LittleEndian.Uint16(blob[1:]))*colBlobEntry)
		bad[at] ^= byte(1 + r.IntN(255))
		_, err1 := h.z.decompress(nil, bad)
		_, _, err2 := h.thawCols(nil, bad, 0, nil, want)
		if err1 == nil && err2 == nil {
			// only a changed head byte of a column not read can pass
			// both; the full read then fails on the image's checksum.
			t.Fatalf("table byte %d changed: both reads passed", at)
		}
	}
}
