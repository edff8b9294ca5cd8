package heap

import (
	"strconv"
	"testing"
)

// TestApplyIntoReusesIDs: ApplyInto returns the row ids in the slice it is
// given when it has room (the copy's HEAD build applies a batch of 16k
// rows ~60 times per 1M rows: a fresh ids slice each time was fresh
// memory), the same ids Apply returns.
func TestApplyIntoReusesIDs(t *testing.T) {
	a, b := mustNew(t, kvSchema, Config{}), mustNew(t, kvSchema, Config{})
	buf := make([]RowID, 0, 64)
	for batch := range 3 {
		var ops []Op
		for i := range 50 {
			id := strconv.Itoa(batch*50 + i)
			ops = append(ops, Op{Kind: OpInsert, Row: row(id, "v"+id, "1")})
		}
		want := mustApply(t, a, Batch{LSN: uint64(batch + 1), Ops: ops})
		got, err := b.ApplyInto(Batch{LSN: uint64(batch + 1), Ops: ops}, buf)
		if err != nil {
			t.Fatal(err)
		}
		if &got[:1][0] != &buf[:1][0] {
			t.Fatalf("batch %d: ids not returned in the slice given", batch)
		}
		if len(got) != len(want) {
			t.Fatalf("batch %d: %d ids, want %d", batch, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("batch %d op %d: id %d, Apply gave %d", batch, i, got[i], want[i])
			}
		}
		buf = got[:0]
	}
}
