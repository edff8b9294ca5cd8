package heap

import (
	"math/rand/v2"
	"testing"
)

// FuzzDecodePage feeds arbitrary page bodies (the checksum is bypassed so
// the fuzzer reaches the decoder): decoding never panics, and a page that
// decodes re-encodes canonically, keeps the heap's invariants and prints
// rows that parse back under the schema.
func FuzzDecodePage(f *testing.F) {
	h, err := New(modelSchema, Config{PageRows: 16, PageBytes: 2048})
	if err != nil {
		f.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	var b Batch
	for i := range 40 {
		b.Ops = append(b.Ops, Op{Kind: OpInsert, Row: randRow(r, int64(i))})
	}
	ids, err := h.Apply(b)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := h.Apply(Batch{Ops: []Op{{Kind: OpDelete, ID: ids[3]}}}); err != nil {
		f.Fatal(err)
	}
	s := h.Snapshot()
	for i := range s.NumPages() {
		img := encodePage(nil, s.v.pages.at(i), &h.schema)
		f.Add(img[:len(img)-8])
	}
	s.Release()
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeBody(body, &h.schema, h.cfg.PageRows, 0)
		if err != nil {
			return
		}
		img := encodePage(nil, p, &h.schema)
		q, err := decodePage(img, &h.schema, h.cfg.PageRows, 0)
		if err != nil {
			t.Fatalf("re-encoded page does not decode: %v", err)
		}
		if string(encodePage(nil, q, &h.schema)) != string(img) {
			t.Fatal("encoding not canonical")
		}
		p.id = 0
		v := &version{stats: p.stats, rows: int64(p.nlive)}
		v.pages.push(p, 0)
		snap := &Snapshot{v: v, h: h}
		if err := checkInvariants(snap); err != nil {
			t.Fatal(err)
		}
		snap.ForEach(func(_ RowID, row []byte) bool {
			if err := h.parse(row); err != nil {
				t.Fatalf("printed row %q does not parse: %v", row, err)
			}
			return true
		})
	})
}
