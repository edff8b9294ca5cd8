package radixindex

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"sync"
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
		churn := func(lsn uint64) { churnIndex(ix, lsn, 1500, rng, g, rs) }
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

// slabCopy is a deep copy of a slab's chunks.
func slabCopy[T any](s *slab[T]) [][]T {
	c := make([][]T, len(s.chunks))
	for i, ch := range s.chunks {
		c[i] = slices.Clone(ch)
	}
	return c
}

// sameSlab reports whether s still holds exactly the nodes of copy c.
func sameSlab[T comparable](s *slab[T], c [][]T) bool {
	if len(s.chunks) != len(c) {
		return false
	}
	for i := range c {
		if !slices.Equal(s.chunks[i], c[i]) {
			return false
		}
	}
	return true
}

// ownsAll reports whether the writer owns every chunk of s.
func ownsAll[T any](s *slab[T]) bool {
	for _, e := range s.own {
		if e != s.epoch {
			return false
		}
	}
	return true
}

type treeCopy struct {
	n4   [][]node4
	n16  [][]node16
	n48  [][]node48
	n256 [][]node256
}

func copyTree(tr *Tree) treeCopy {
	return treeCopy{slabCopy(&tr.n4), slabCopy(&tr.n16), slabCopy(&tr.n48), slabCopy(&tr.n256)}
}

func (c treeCopy) same(tr *Tree) bool {
	return sameSlab(&tr.n4, c.n4) && sameSlab(&tr.n16, c.n16) && sameSlab(&tr.n48, c.n48) && sameSlab(&tr.n256, c.n256)
}

// TestFreezeNeverWritesFrozenChunks: after a freeze the writer changes
// no byte of any chunk the frozen view holds, whatever it does (replace,
// split, grow, shrink, end slots, collapse, slot reuse), checked after
// every single write, and the view's encoding stays the checkpoint of its
// moment. A second view taken in the middle stays untouched after the
// first is released (the writer owns its chunks again only when no view
// is left), and once both are released the writer changes chunks in
// place again.
func TestFreezeNeverWritesFrozenChunks(t *testing.T) {
	forEachGen(t, 301, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs := &rows{}
		ix := NewIndex(rs.keyOf)
		var live [][]byte
		op := func(tr *Tree) {
			if len(live) > 0 && rng.IntN(5) < 2 {
				i := rng.IntN(len(live))
				if rng.IntN(2) == 0 {
					tr.Delete(live[i])
					live[i] = live[len(live)-1]
					live = live[:len(live)-1]
					return
				}
				tr.Put(live[i], rs.add(live[i])) // a replace: the row moved
				return
			}
			k := g.gen(rng)
			if _, ok := tr.Put(k, rs.add(k)); !ok {
				live = append(live, k)
			}
		}
		ix.Update(1, func(tr *Tree) {
			for range 1500 {
				op(tr)
			}
		})
		freeze := func() (*Frozen, treeCopy, []byte) {
			var want bytes.Buffer
			if _, _, err := ix.Checkpoint(&want); err != nil {
				t.Fatal(err)
			}
			f := ix.Freeze()
			return f, copyTree(f.t), want.Bytes()
		}
		check := func(f *Frozen, c treeCopy, want []byte, step int) {
			t.Helper()
			if !c.same(f.t) {
				t.Fatalf("seed %d, step %d: the writer changed a chunk of the frozen view", seed, step)
			}
			var got bytes.Buffer
			if _, err := f.WriteCheckpoint(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("seed %d, step %d: the frozen view encodes %d bytes, %d at its moment, not the same", seed, step, got.Len(), len(want))
			}
		}
		f1, c1, want1 := freeze()
		var f2 *Frozen
		var c2 treeCopy
		var want2 []byte
		for step := range 900 {
			ix.Update(uint64(step+2), op)
			if step%50 == 0 || step == 899 {
				if f1 != nil {
					check(f1, c1, want1, step)
				}
				if f2 != nil {
					check(f2, c2, want2, step)
				}
			} else if f1 != nil && !c1.same(f1.t) {
				t.Fatalf("seed %d, step %d: the writer changed a chunk of the first view", seed, step)
			} else if f2 != nil && !c2.same(f2.t) {
				t.Fatalf("seed %d, step %d: the writer changed a chunk of the second view", seed, step)
			}
			switch step {
			case 300:
				f2, c2, want2 = freeze()
			case 500:
				f1.Release()
				f1.Release() // twice: harmless
				f1 = nil
			}
		}
		f2.Release()
		// No view left: every chunk is the writer's again, so a write
		// copies nothing.
		ix.View(func(tr *Tree, _ uint64) {
			if !ownsAll(&tr.n4) || !ownsAll(&tr.n16) || !ownsAll(&tr.n48) || !ownsAll(&tr.n256) {
				t.Fatalf("seed %d: a chunk is still shared after every view was released", seed)
			}
		})
	})
}

// TestFreezeConcurrentEncoders: views are frozen between batches and
// encoded by other goroutines, several at once and each several times,
// while the writer goes on (puts, deletes, Compact); each encodes the
// checkpoint of its moment, and the views are released in any order.
// Under -race, a write into a chunk a view still shares is reported as a
// race with its encoder.
func TestFreezeConcurrentEncoders(t *testing.T) {
	forEachGen(t, 302, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs := &rows{}
		ix := NewIndex(rs.keyOf)
		type job struct {
			f    *Frozen
			want []byte
		}
		jobs := make(chan job, 4)
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range jobs {
					for range 3 {
						var got bytes.Buffer
						if _, err := j.f.WriteCheckpoint(&got); err != nil {
							t.Error(err)
						} else if !bytes.Equal(got.Bytes(), j.want) {
							t.Errorf("seed %d: a view frozen at LSN %d encodes %d bytes, %d at its moment, not the same", seed, j.f.LSN(), got.Len(), len(j.want))
						}
					}
					j.f.Release()
				}
			}()
		}
		batches := 120
		if testing.Short() {
			batches = 40
		}
		for b := range batches {
			churnIndex(ix, uint64(b+1), 40, rng, g, rs)
			if b%37 == 36 {
				ix.Compact()
			}
			if b%3 == 0 {
				var want bytes.Buffer
				if _, _, err := ix.Checkpoint(&want); err != nil {
					t.Fatal(err)
				}
				jobs <- job{ix.Freeze(), want.Bytes()}
			}
		}
		close(jobs)
		wg.Wait()
		ix.View(func(tr *Tree, _ uint64) {
			if err := tr.Verify(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		})
		if ix.frozen != 0 {
			t.Fatalf("%d views still counted after every one was released", ix.frozen)
		}
	})
}

// churnIndex applies one batch at lsn of n random writes: a third
// deletes, the rest puts of new rows.
func churnIndex(ix *Index, lsn uint64, n int, rng *rand.Rand, g keyGen, rs *rows) {
	ix.Update(lsn, func(tr *Tree) {
		for range n {
			k := g.gen(rng)
			if rng.IntN(3) == 0 {
				tr.Delete(k)
				continue
			}
			tr.Put(k, rs.add(k))
		}
	})
}
