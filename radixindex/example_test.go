package radixindex_test

import (
	"bytes"
	"fmt"

	"github.com/sidecar-dev/sidecar/radixindex"
)

// The heap owns the rows; the index maps each key to a row id and reads
// keys back through the KeyFunc.
func Example() {
	heap := map[uint64][]byte{} // row id → key, standing in for heap rows
	keyOf := func(dst []byte, id uint64) []byte { return append(dst, heap[id]...) }
	ix := radixindex.NewIndex(keyOf)

	// One committed transaction: its changes in one Update, stamped with
	// its commit LSN.
	ix.Update(0x16B3748, func(t *radixindex.Tree) {
		for id, k := range []string{"apple", "apricot", "banana", "cherry"} {
			heap[uint64(id)] = []byte(k)
			t.Put([]byte(k), uint64(id))
		}
	})

	id, ok := ix.Get([]byte("banana"))
	fmt.Println("banana:", id, ok)

	// A prefix scan from a start key, chunked under the read lock.
	ix.Scan([]byte("ap"), nil, func(id uint64) bool {
		fmt.Println("ap*:", string(heap[id]))
		return true
	})

	// Checkpoint with the LSN, restore without a rebuild.
	var buf bytes.Buffer
	lsn, _, _ := ix.Checkpoint(&buf)
	back, err := radixindex.RestoreIndex(buf.Bytes(), keyOf)
	fmt.Printf("restored %d keys at %X, err %v\n", back.Len(), lsn, err)
	// Output:
	// banana: 2 true
	// ap*: apple
	// ap*: apricot
	// restored 4 keys at 16B3748, err <nil>
}
