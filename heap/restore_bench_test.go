package heap

import (
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// BenchmarkRestore restores a checkpoint of 200k rows shaped like the
// restart test's items table (int4 key, int8, a 45-byte text): where a
// restart's checkpoint restore spends its time (issue 21 item 11).
func BenchmarkRestore(b *testing.B) {
	schema := Schema{Columns: []Column{{"id", KindInt4}, {"n", KindInt8}, {"note", KindText}}}
	h, err := New(schema, Config{})
	if err != nil {
		b.Fatal(err)
	}
	var batch Batch
	for i := range 200_000 {
		id := strconv.Itoa(i)
		batch.Ops = append(batch.Ops, Op{Kind: OpInsert, Row: rowenc.Append(nil, [][]byte{[]byte(id), []byte("0"), []byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" + id)})})
	}
	batch.LSN = 10
	if _, err := h.Apply(batch); err != nil {
		b.Fatal(err)
	}
	store := NewMemStore()
	if _, err := h.Checkpoint(store, "t"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		r, err := OpenGen(schema, Config{}, store, "t", 0)
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

// BenchmarkRestoreSeed restores a checkpoint of 1M rows of the scale
// benchmark's shape (seedSchema): what a restart of `sidecar-bench scale`
// spends per million rows on the heap's pages, decoded (before) and
// mapped (Config.RestoreCold: images checked, summaries from the manifest).
func BenchmarkRestoreSeed(b *testing.B) {
	h, _ := buildSeed(b, 1_000_000, Config{})
	store := NewMemStore()
	if _, err := h.Checkpoint(store, "t"); err != nil {
		b.Fatal(err)
	}
	h.Close()
	for _, cold := range []bool{false, true} {
		name := "decoded"
		if cold {
			name = "mapped"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				r, err := OpenGen(seedSchema, Config{RestoreCold: cold}, store, "t", 0)
				if err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}
