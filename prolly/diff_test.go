package prolly

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// modelDiff lists the differences from a to b within [start, end).
func modelDiff(a, b model, start, end []byte) []DiffEntry {
	all := model{}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			all[k] = ""
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			all[k] = ""
		}
	}
	var out []DiffEntry
	for _, k := range all.sortedKeys() {
		if (start != nil && k < string(start)) || (end != nil && k >= string(end)) {
			continue
		}
		va, oka := a[k]
		vb, okb := b[k]
		switch {
		case oka && !okb:
			out = append(out, DiffEntry{Kind: Removed, Key: []byte(k), From: []byte(va)})
		case !oka && okb:
			out = append(out, DiffEntry{Kind: Added, Key: []byte(k), To: []byte(vb)})
		case va != vb:
			out = append(out, DiffEntry{Kind: Changed, Key: []byte(k), From: []byte(va), To: []byte(vb)})
		}
	}
	return out
}

func collectDiff(t testing.TB, e *Engine, a, b Root, opts DiffOptions) []DiffEntry {
	t.Helper()
	d, err := e.Diff(t.Context(), a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []DiffEntry
	for d.Next() {
		en := d.Entry()
		out = append(out, DiffEntry{Kind: en.Kind, Key: bytes.Clone(en.Key), From: bytes.Clone(en.From), To: bytes.Clone(en.To)})
	}
	if err := d.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameDiff(got, want []DiffEntry) error {
	for i := 0; i < len(got) || i < len(want); i++ {
		if i >= len(got) {
			return fmt.Errorf("missing entry %d: %v %x", i, want[i].Kind, want[i].Key)
		}
		if i >= len(want) {
			return fmt.Errorf("extra entry %d: %v %x", i, got[i].Kind, got[i].Key)
		}
		g, w := got[i], want[i]
		if g.Kind != w.Kind || !bytes.Equal(g.Key, w.Key) || !bytes.Equal(g.From, w.From) || !bytes.Equal(g.To, w.To) {
			return fmt.Errorf("entry %d: got %v %x (%q -> %q), want %v %x (%q -> %q)", i, g.Kind, g.Key, g.From, g.To, w.Kind, w.Key, w.From, w.To)
		}
	}
	return nil
}

func TestDiffAgainstModel(t *testing.T) {
	for seed := range seedList(t, 20) {
		rng := rand.New(rand.NewPCG(seed, 3))
		e, _ := newTestEngine(t)
		keySpace := 100 + rng.IntN(30000)
		base := randModel(rng, rng.IntN(keySpace/2), keySpace, 60)
		roots := []Root{base.build(t, e)}
		models := []model{base}
		m, r := base, roots[0]
		for step := 0; step < 6; step++ {
			eds := randEdits(rng, m, 1+rng.IntN(1+rng.IntN(3000)), keySpace)
			var err error
			if r, err = e.Mutate(t.Context(), r, eds); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			m = m.apply(eds)
			roots, models = append(roots, r), append(models, m)
		}
		for i := range roots {
			for _, j := range []int{0, (i + 1) % len(roots), rng.IntN(len(roots))} {
				opts := DiffOptions{}
				if rng.IntN(3) == 0 {
					opts.Start = []byte(intKey(rng.IntN(keySpace)))
				}
				if rng.IntN(3) == 0 {
					opts.End = []byte(intKey(rng.IntN(keySpace)))
				}
				got := collectDiff(t, e, roots[i], roots[j], opts)
				want := modelDiff(models[i], models[j], opts.Start, opts.End)
				if err := sameDiff(got, want); err != nil {
					t.Fatalf("seed %d: diff %d -> %d [%x, %x): %v", seed, i, j, opts.Start, opts.End, err)
				}
			}
		}
	}
}

// TestDiffCost asserts that a diff reads O((k+1) · height) nodes.
func TestDiffCost(t *testing.T) {
	e, ms := newTestEngine(t)
	rng := seedRand(t, 11, 11)
	const n = 200000
	b := e.NewBuilder(t.Context())
	for i := 0; i < n; i++ {
		if err := b.Add([]byte(intKey(i)), []byte(randValue(rng, 27))); err != nil {
			t.Fatal(err)
		}
	}
	base, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := e.load(t.Context(), base.Hash)
	height := root.Level() + 1
	for _, k := range []int{0, 1, 10, 100} {
		var eds []Edit
		seen := map[int]bool{}
		for len(eds) < k {
			i := rng.IntN(n)
			if !seen[i] {
				seen[i] = true
				eds = append(eds, Edit{Key: []byte(intKey(i)), Value: []byte(randValue(rng, 27))})
			}
		}
		sortEdits(eds)
		r, err := e.Mutate(t.Context(), base, eds)
		if err != nil {
			t.Fatal(err)
		}
		ms.ResetCounters()
		got := collectDiff(t, e, base, r, DiffOptions{})
		reads := ms.Reads()
		if len(got) != k {
			t.Fatalf("k=%d: diff has %d entries", k, len(got))
		}
		// Each changed region costs both sides' paths plus a neighbour
		// where a boundary moved: 4 reads per level per change is ample.
		if limit := int64(4 * (k + 1) * height); reads > limit {
			t.Fatalf("k=%d: diff read %d nodes, limit %d (height %d)", k, reads, limit, height)
		}
		t.Logf("k=%d: %d node reads (height %d)", k, reads, height)
	}
}
