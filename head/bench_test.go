package head

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// The read benchmarks of issue 13, in process: a table shaped as in the
// query issue (id bigint PK, k text, v text, score int, grp int) loaded into
// a Table through the same apply path the mirror's batches take.

func benchRelation() *wal.Relation {
	return &wal.Relation{OID: 9, Schema: "public", Name: "bench", Identity: wal.IdentityDefault,
		Columns: []wal.Column{
			{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
			{Name: "k", TypeOID: 25, TypeName: "text", TypeMod: -1},
			{Name: "v", TypeOID: 25, TypeName: "text", TypeMod: -1},
			{Name: "score", TypeOID: 23, TypeName: "int4", TypeMod: -1},
			{Name: "grp", TypeOID: 23, TypeName: "int4", TypeMod: -1},
		}}
}

var benchCodec = func() *rowenc.KeyCodec {
	c, err := rowenc.NewKeyCodec(rowenc.KindInt8)
	if err != nil {
		panic(err)
	}
	return c
}()

func benchKey(id int) []byte {
	k, err := benchCodec.Encode(strconv.Itoa(id))
	if err != nil {
		panic(err)
	}
	return k
}

func benchRow(id, score int) []byte {
	return rowenc.Encode([][]byte{[]byte(strconv.Itoa(id)), []byte(fmt.Sprintf("key-%08d", id)),
		[]byte(fmt.Sprintf("value-%d-%x", id, id*7919)), []byte(strconv.Itoa(score)), []byte(strconv.Itoa(id % 100))})
}

// loadTable builds a table of n rows (ids 1..n) in batches of 100k edits.
func loadTable(tb testing.TB, n int) (*Model, *Table) {
	m := New(Options{})
	t, err := m.newTable("public.bench", benchRelation(), heap.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	m.tables["public.bench"] = t
	const batch = 100_000
	for lo := 1; lo <= n; lo += batch {
		hi := min(n, lo+batch-1)
		applyEdits(tb, t, uint64(hi), func(fn func(prolly.Edit) error) error {
			for id := lo; id <= hi; id++ {
				if err := fn(prolly.Edit{Key: benchKey(id), Value: benchRow(id, id%1000)}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	m.applied.Store(uint64(n))
	return m, t
}

func applyEdits(tb testing.TB, t *Table, lsn uint64, edits func(fn func(prolly.Edit) error) error) {
	var err error
	t.ix.Update(lsn, func(tr *radixindex.Tree) { err = t.applyLocked(tr, edits, lsn) })
	if err != nil {
		tb.Fatal(err)
	}
	t.lsn.Store(lsn)
}

func benchSizes() []int {
	if testing.Short() {
		return []int{100_000}
	}
	return []int{1_000_000, 10_000_000}
}

// BenchmarkHeadGet: a point get by primary key (index lookup, heap row),
// random keys, the version checked as a reader does.
func BenchmarkHeadGet(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			m, t := loadTable(b, n)
			rng := rand.New(rand.NewPCG(1, 2))
			keys := make([][]byte, 4096)
			for i := range keys {
				keys[i] = benchKey(1 + rng.IntN(n))
			}
			at := m.LSN()
			var buf []byte
			b.ResetTimer()
			for i := range b.N {
				row, found, err := m.get(t, keys[i&4095], at, buf[:0])
				if err != nil || !found {
					b.Fatal(err, found)
				}
				buf = row
			}
		})
	}
}

// BenchmarkHeadRange10k: 10,000 rows in key order from a random key.
func BenchmarkHeadRange10k(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			m, t := loadTable(b, n)
			rng := rand.New(rand.NewPCG(3, 4))
			at := m.LSN()
			b.ResetTimer()
			for range b.N {
				from := benchKey(1 + rng.IntN(n-10_000))
				got := 0
				if err := m.rangeOf(t, from, nil, 10_000, at, nil, func(_, row []byte) bool { got += len(row) & 1; return true }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRestoreKeysIndex: the key store and radix index part of a
// checkpoint restore (restoreIndex's decode work, without Badger), for a
// table of ids 1..n: the part of a restart's restore beside the heap's
// pages (heap.BenchmarkRestore measures those).
func BenchmarkRestoreKeysIndex(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			_, t := loadTable(b, n)
			var ib bytes.Buffer
			if _, _, err := t.ix.Checkpoint(&ib); err != nil {
				b.Fatal(err)
			}
			var kb []byte
			t.ix.View(func(*radixindex.Tree, uint64) { kb = t.keys.encode(nil) })
			b.ReportMetric(float64(len(kb)+ib.Len())/float64(n), "B/row")
			b.Run("keys", func(b *testing.B) {
				for b.Loop() {
					var s keyStore
					if err := s.decode(kb); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("index", func(b *testing.B) {
				for b.Loop() {
					if _, err := radixindex.RestoreIndex(ib.Bytes(), func(dst []byte, id uint64) []byte { return t.keys.key(heap.RowID(id)) }); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
