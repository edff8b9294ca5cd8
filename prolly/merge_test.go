package prolly

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// modelMerge is the reference three-way merge with conflicts reported.
func modelMerge(base, ours, theirs model) (model, []string) {
	out := ours.clone()
	var conflicts []string
	keys := model{}
	for _, m := range []model{base, ours, theirs} {
		for k := range m {
			keys[k] = ""
		}
	}
	for _, k := range keys.sortedKeys() {
		bv, bok := base[k]
		ov, ook := ours[k]
		tv, tok := theirs[k]
		theirsChanged := bok != tok || bv != tv
		oursChanged := bok != ook || bv != ov
		switch {
		case !theirsChanged:
		case !oursChanged:
			if tok {
				out[k] = tv
			} else {
				delete(out, k)
			}
		case ook == tok && ov == tv: // convergent
		default:
			conflicts = append(conflicts, k)
		}
	}
	return out, conflicts
}

func TestMergeAgainstModel(t *testing.T) {
	for seed := range seedList(t, 20) {
		rng := rand.New(rand.NewPCG(seed, 4))
		e, _ := newTestEngine(t)
		keySpace := 100 + rng.IntN(20000)
		base := randModel(rng, rng.IntN(keySpace/2), keySpace, 40)
		br := base.build(t, e)
		side := func() (model, Root) {
			eds := randEdits(rng, base, 1+rng.IntN(1+rng.IntN(2000)), keySpace)
			r, err := e.Mutate(t.Context(), br, eds)
			if err != nil {
				t.Fatal(err)
			}
			return base.apply(eds), r
		}
		om, or := side()
		tm, tr := side()
		res, err := e.Merge(t.Context(), br, or, tr, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want, wantConflicts := modelMerge(base, om, tm)
		mustCheck(t, e, res.Root)
		if err := sameModel(contents(t, e, res.Root), want); err != nil {
			t.Fatalf("seed %d: merged rows: %v", seed, err)
		}
		if len(res.Conflicts) != len(wantConflicts) {
			t.Fatalf("seed %d: %d conflicts, want %d", seed, len(res.Conflicts), len(wantConflicts))
		}
		ct := contents(t, e, res.ConflictRoot)
		for i, k := range wantConflicts {
			c := res.Conflicts[i]
			if string(c.Key) != k {
				t.Fatalf("seed %d: conflict %d key %x, want %x", seed, i, c.Key, k)
			}
			bv, bok := base[k]
			if c.Base.Exists != bok || string(c.Base.Value) != bv {
				t.Fatalf("seed %d: conflict %x base %+v", seed, k, c.Base)
			}
			dc, err := DecodeConflict([]byte(k), []byte(ct[k]))
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if dc.Kind != c.Kind || !dc.Ours.equal(c.Ours) || !dc.Theirs.equal(c.Theirs) || !dc.Base.equal(c.Base) {
				t.Fatalf("seed %d: conflict tree row %x = %+v, want %+v", seed, k, dc, c)
			}
		}
		if len(ct) != len(wantConflicts) {
			t.Fatalf("seed %d: conflict tree has %d rows, want %d", seed, len(ct), len(wantConflicts))
		}
		// merge(b, x, x) = x and merge(b, b, x) = x, by hash.
		for _, x := range []Root{or, tr} {
			for _, pair := range [][2]Root{{x, x}, {br, x}, {x, br}} {
				r, err := e.Merge(t.Context(), br, pair[0], pair[1], nil)
				if err != nil {
					t.Fatal(err)
				}
				if r.Root != x || len(r.Conflicts) != 0 {
					t.Fatalf("seed %d: merge(b, %s, %s) = %s with %d conflicts, want %s", seed, pair[0], pair[1], r.Root, len(r.Conflicts), x)
				}
			}
		}
		// Without conflicts, merging is symmetric by hash.
		if len(res.Conflicts) == 0 {
			rev, err := e.Merge(t.Context(), br, tr, or, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rev.Root != res.Root {
				t.Fatalf("seed %d: merge(b,o,t)=%s but merge(b,t,o)=%s", seed, res.Root, rev.Root)
			}
		}
	}
}

// TestMergeResolver checks that the resolver's answers land in the result:
// here it concatenates both values, or keeps the surviving one on deletes.
func TestMergeResolver(t *testing.T) {
	e, _ := newTestEngine(t)
	base := model{"a": "1", "b": "1", "c": "1", "d": "1"}
	ours := model{"a": "2", "b": "2", "d": "1", "e": "o"}
	theirs := model{"a": "3", "c": "3", "d": "4", "e": "t"}
	br, or, tr := base.build(t, e), ours.build(t, e), theirs.build(t, e)
	var kinds []string
	res, err := e.Merge(t.Context(), br, or, tr, func(c Conflict) (Resolution, error) {
		kinds = append(kinds, fmt.Sprintf("%s:%v", c.Key, c.Kind))
		switch {
		case c.Ours.Exists && c.Theirs.Exists:
			return Resolution{Resolved: true, Merged: KeyState{Value: append(bytes.Clone(c.Ours.Value), c.Theirs.Value...), Exists: true}}, nil
		case c.Ours.Exists:
			return Resolution{Resolved: true, Merged: c.Ours}, nil
		default:
			return Resolution{Resolved: true, Merged: c.Theirs}, nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := model{"a": "23", "b": "2", "c": "3", "d": "4", "e": "ot"}
	if err := sameModel(contents(t, e, res.Root), want); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(kinds); got != "[a:modify/modify b:modify/delete c:delete/modify e:modify/modify]" {
		t.Fatalf("resolver saw %s", got)
	}
	if res.Resolved != 4 || len(res.Conflicts) != 0 {
		t.Fatalf("resolved %d, conflicts %d", res.Resolved, len(res.Conflicts))
	}
}

func FuzzDecodeConflict(f *testing.F) {
	f.Add([]byte{1, 0, 1, 1, 'x', 0})
	f.Add(EncodeConflict(nil, Conflict{Kind: DeleteModify, Base: KeyState{[]byte("b"), true}, Theirs: KeyState{[]byte("t"), true}}))
	f.Fuzz(func(t *testing.T, v []byte) {
		c, err := DecodeConflict([]byte("k"), v)
		if err != nil {
			if !errors.Is(err, ErrCorruptConflict) {
				t.Fatalf("%x: error %v does not wrap ErrCorruptConflict", v, err)
			}
			return
		}
		if got := EncodeConflict(nil, c); !bytes.Equal(got, v) {
			t.Fatalf("re-encoding %x gives %x", v, got)
		}
	})
}

// TestMergeCost checks that merging reads O(k_theirs · height) nodes plus the
// writes' paths, however much ours changed.
func TestMergeCost(t *testing.T) {
	e, ms := newTestEngine(t)
	rng := seedRand(t, 71, 71)
	const n = 200000
	b := e.NewBuilder(t.Context())
	for i := 0; i < n; i++ {
		if err := b.Add([]byte(intKey(2*i)), []byte(randValue(rng, 27))); err != nil {
			t.Fatal(err)
		}
	}
	base, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := e.load(t.Context(), base.Hash)
	height := root.Level() + 1
	var oe, te []Edit
	for i := 0; i < n; i += 10 { // ours rewrites a tenth of the table
		oe = append(oe, Edit{Key: []byte(intKey(2 * i)), Value: []byte("ours")})
	}
	for i := 5; i < n; i += n / 10 { // theirs changes 10 rows
		te = append(te, Edit{Key: []byte(intKey(2 * i)), Value: []byte("theirs")})
	}
	ours, err := e.Mutate(t.Context(), base, oe)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := e.Mutate(t.Context(), base, te)
	if err != nil {
		t.Fatal(err)
	}
	ms.ResetCounters()
	res, err := e.Merge(t.Context(), base, ours, theirs, nil)
	if err != nil || res.Applied != len(te) || len(res.Conflicts) != 0 {
		t.Fatalf("merge: %v, applied %d, %d conflicts", err, res.Applied, len(res.Conflicts))
	}
	reads := ms.Reads()
	// Diff base→theirs (2 paths per change), a lookup and a rewrite in
	// ours (2 more): 6 reads per level per change is ample.
	if limit := int64(6 * (len(te) + 1) * height); reads > limit {
		t.Fatalf("merge read %d nodes for %d changes of theirs (height %d), limit %d", reads, len(te), height, limit)
	}
	t.Logf("merge of %d changes into a tree with %d changes of its own: %d node reads", len(te), len(oe), reads)
}
