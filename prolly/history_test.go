package prolly

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestHistoryIndependence builds the same final set of rows along many
// histories and requires one root hash: bulk build; random batches from
// empty; single-row puts in random order; a superset then deletes; values
// grown past the maximum node size and shrunk back. Each history crosses
// height changes, edits before the first and after the last key, and deletes
// of nodes' last keys.
func TestHistoryIndependence(t *testing.T) {
	for si, seed := range fixedSeeds(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 6))
			e, _ := newTestEngine(t)
			const n, keySpace = 10000, 1 << 20
			final := randModel(rng, n, keySpace, 60)
			keys := final.sortedKeys()
			want := final.build(t, e)
			fail := func(history string, got Root) {
				t.Helper()
				if got != want {
					t.Fatalf("seed %d: %s gives root %s, bulk build %s", seed, history, got, want)
				}
			}
			mutate := func(r Root, eds []Edit) Root {
				t.Helper()
				sortEdits(eds)
				nr, err := e.Mutate(t.Context(), r, eds)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				return nr
			}
			putsOf := func(ks []string) []Edit {
				eds := make([]Edit, len(ks))
				for i, k := range ks {
					eds[i] = Edit{Key: []byte(k), Value: []byte(final[k])}
				}
				return eds
			}

			// Random batches of random sizes, keys in random order.
			perm := rng.Perm(n)
			r := e.EmptyRoot()
			for i := 0; i < n; {
				j := min(n, i+1+rng.IntN(1500))
				var ks []string
				for _, p := range perm[i:j] {
					ks = append(ks, keys[p])
				}
				r = mutate(r, putsOf(ks))
				i = j
			}
			mustCheck(t, e, r)
			fail("random batches", r)

			// Single-row puts in random order (a smaller slice of the
			// seeds: they cost one Mutate per row).
			if si%10 == 0 {
				r = e.EmptyRoot()
				for _, p := range rng.Perm(n) {
					r = mutate(r, putsOf([]string{keys[p]}))
				}
				fail("single puts", r)
			}

			// A superset (extra keys everywhere, including before the
			// first and after the last), then the extras deleted in
			// random batches.
			extra := model{}
			for len(extra) < n/2 {
				k := intKey(rng.IntN(keySpace + 1000))
				if _, ok := final[k]; !ok {
					extra[k] = randValue(rng, 1+rng.IntN(60))
				}
			}
			extra[intKey(0)], extra[intKey(keySpace+5000)] = "first", "last"
			delete(extra, keys[0])
			super := final.clone()
			for k, v := range extra {
				super[k] = v
			}
			r = super.build(t, e)
			ek := extra.sortedKeys()
			rng.Shuffle(len(ek), func(i, j int) { ek[i], ek[j] = ek[j], ek[i] })
			for i := 0; i < len(ek); {
				j := min(len(ek), i+1+rng.IntN(800))
				var eds []Edit
				for _, k := range ek[i:j] {
					eds = append(eds, Edit{Key: []byte(k), Delete: true})
				}
				r = mutate(r, eds)
				i = j
			}
			mustCheck(t, e, r)
			fail("superset then deletes", r)

			// Values grown near and above the maximum node size, then
			// restored, in interleaved batches.
			var big []string
			for i := 0; i < 40; i++ {
				big = append(big, keys[rng.IntN(n)])
			}
			big = append(big, keys[0], keys[n-1])
			var grow []Edit
			seen := map[string]bool{}
			for _, k := range big {
				if !seen[k] {
					seen[k] = true
					grow = append(grow, Edit{Key: []byte(k), Value: []byte(randValue(rng, 16000+rng.IntN(40000)))})
				}
			}
			r = mutate(want, grow)
			mustCheck(t, e, r)
			var restore []string
			for k := range seen {
				restore = append(restore, k)
			}
			r = mutate(r, putsOf(restore))
			fail("values grown and restored", r)

			// Shrink to a handful of rows and grow back.
			var del []Edit
			for _, k := range keys[3:] {
				del = append(del, Edit{Key: []byte(k), Delete: true})
			}
			r = mutate(want, del)
			mustCheck(t, e, r)
			r = mutate(r, putsOf(keys[3:]))
			fail("shrink and regrow", r)
		})
	}
}
