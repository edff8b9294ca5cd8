package heap

import "testing"

// TestFreezeAllocs: freezing a page (what a bounded heap does every
// 1,024 rows of a copy's build) allocates the cold page and its exact-size
// compressed image, nothing grown from empty: the image and the
// compressed bytes are made in the writer's scratch buffers. Before, the
// image was appended into nil (≈ a dozen doublings for a 1,024-row page)
// and s2 allocated its output before it was copied again: 4 % of a
// 10M-row copy's CPU.
func TestFreezeAllocs(t *testing.T) {
	for _, codec := range []Codec{CodecS2, CodecNone} {
		h := mustNew(t, seedSchema, Config{Codec: codec})
		var bt Batch
		for id := int64(1); id <= 3000; id++ {
			bt.Ops = append(bt.Ops, Op{Kind: OpInsert, Row: seedRow(nil, id, id%1000)})
		}
		mustApply(t, h, bt)
		p := h.cur.Load().pages.at(0)
		want := encodePage(nil, p, &h.schema)
		h.freeze(p) // the scratch buffers reach their size
		// Under the race detector allocation counts are not the
		// product's: s2.Encode takes its hash table from a sync.Pool,
		// which the detector empties on purpose, once per column section
		// of a column-blocked image. There only the image is checked.
		allocs := testing.AllocsPerRun(20, func() { h.freeze(p) })
		if allocs > 2 && !raceEnabled {
			t.Errorf("codec %d: freeze allocates %.0f times a page, want at most 2 (the cold page, its image)", codec, allocs)
		}
		// The cold page still decodes to the same page.
		q := h.freeze(p)
		blob, err := h.coldImage(q)
		if err != nil {
			t.Fatal(err)
		}
		img, err := h.z.decompress(nil, blob)
		if err != nil {
			t.Fatal(err)
		}
		if string(img) != string(want) {
			t.Fatalf("codec %d: the frozen image differs from the page's", codec)
		}
		h.Close()
	}
}
