package head

import (
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// TestIndexKeysMemoryAtScale measures the two parts of the in-memory HEAD
// that no part of memory.limit bounds yet (issue 24 item 3): the radix
// index and the key store of a table with a bigint primary key, built the
// way applyOps builds them (keyStore.set, Tree.Put; 1024 rows a heap
// page), logging bytes per row every tenth of the way and the Go heap
// after a GC. It runs only with SIDECAR_SCALE_ROWS set to the number of
// rows (e.g. 100000000; run it under a memory cgroup: at 100M rows it
// holds about 1.7 GB).
func TestIndexKeysMemoryAtScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIDECAR_SCALE_ROWS"))
	if n <= 0 {
		t.Skip("set SIDECAR_SCALE_ROWS to the number of rows")
	}
	codec, err := rowenc.NewKeyCodec(rowenc.KindInt8)
	if err != nil {
		t.Fatal(err)
	}
	var ks keyStore
	tr := radixindex.New(func(dst []byte, id uint64) []byte { return ks.key(heap.RowID(id)) })
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	for i := range n {
		k, err := codec.Encode(strconv.Itoa(i + 1))
		if err != nil {
			t.Fatal(err)
		}
		id := heap.MakeRowID(uint32(i/1024), i%1024)
		ks.set(id, k)
		tr.Put(k, uint64(id))
		if (i+1)%(max(n/10, 1)) == 0 || i == n-1 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			rows := float64(i + 1)
			t.Logf("%d rows: radix index %d B (%.2f B/row), key store %d B (%.2f B/row), Go heap %d B (%.2f B/row)",
				i+1, tr.MemoryBytes(), float64(tr.MemoryBytes())/rows, ks.memoryBytes(), float64(ks.memoryBytes())/rows,
				ms.HeapAlloc-base, float64(ms.HeapAlloc-base)/rows)
		}
	}
	if tr.Len() != n {
		t.Fatalf("index holds %d keys, want %d", tr.Len(), n)
	}
}
