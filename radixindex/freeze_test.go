package radixindex

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestFreezeIsTheCheckpointOfItsMoment: a frozen index writes the
// checkpoint Index.Checkpoint wrote when it was frozen, whatever the index
// did since (puts, deletes, node growth and shrinking, slot reuse,
// Compact), and that checkpoint restores to a sound tree.
func TestFreezeIsTheCheckpointOfItsMoment(t *testing.T) {
	forEachGen(t, 300, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs := &rows{}
		ix := NewIndex(rs.keyOf)
		churn := func(lsn uint64) {
			ix.Update(lsn, func(tr *Tree) {
				for range 1500 {
					k := g.gen(rng)
					if rng.IntN(3) == 0 {
						tr.Delete(k)
						continue
					}
					tr.Put(k, rs.add(k))
				}
			})
		}
		churn(1)
		var want bytes.Buffer
		if _, _, err := ix.Checkpoint(&want); err != nil {
			t.Fatal(err)
		}
		f := ix.Freeze()
		if f.LSN() != 1 || f.Len() != ix.Len() {
			t.Fatalf("frozen at LSN %d with %d keys, the index at 1 with %d", f.LSN(), f.Len(), ix.Len())
		}
		churn(2)
		ix.Compact()
		churn(3)
		var got bytes.Buffer
		if _, err := f.WriteCheckpoint(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("seed %d: the frozen index wrote %d bytes, the index at the freeze %d, not the same", seed, got.Len(), want.Len())
		}
		back, lsn, err := Restore(got.Bytes(), rs.keyOf)
		if err != nil || lsn != 1 {
			t.Fatalf("seed %d: Restore: lsn %d, %v", seed, lsn, err)
		}
		if err := back.Verify(); err != nil {
			t.Fatalf("seed %d: Verify: %v", seed, err)
		}
	})
}
