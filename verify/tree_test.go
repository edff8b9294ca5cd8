package verify

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// countingTree builds a tree of n int8-keyed vrow1 rows under the mirror's
// spec in a MemStore, with a row hash that counts its calls, and returns
// the rows sorted by key.
func countingTree(t *testing.T, seed uint64, n int) (*prolly.MemStore, *prolly.Engine, prolly.Root, *atomic.Int64, []mirrorRow) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 7))
	codec, err := rowenc.NewKeyCodec(rowenc.KindForType("bigint"))
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]mirrorRow, 0, n)
	seen := map[int64]bool{}
	for len(rows) < n {
		id := rnd.Int64N(int64(n) * 10)
		if seen[id] {
			continue
		}
		seen[id] = true
		key, err := codec.Encode(strconv.FormatInt(id, 10))
		if err != nil {
			t.Fatal(err)
		}
		val := rowenc.Encode([][]byte{[]byte(strconv.FormatInt(id, 10)), fmt.Appendf(nil, "row %d %x", id, rnd.Uint64())})
		rows = append(rows, mirrorRow{key: key, value: val})
	}
	sort.Slice(rows, func(i, j int) bool { return bytes.Compare(rows[i].key, rows[j].key) < 0 })
	ms := prolly.NewMemStore(prolly.MemStoreOptions{})
	spec, rh := mirror.Spec(rowhash.PGHash64)
	var calls atomic.Int64
	inner := rh.Fn
	rh.Fn = func(k, v []byte) uint64 { calls.Add(1); return inner(k, v) }
	eng, err := prolly.NewEngine(ms, spec, rh)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	root, err := eng.Build(t.Context(), func() ([]byte, []byte, bool, error) {
		if i == len(rows) {
			return nil, nil, false, nil
		}
		i++
		return rows[i-1].key, rows[i-1].value, true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ms, eng, root, &calls, rows
}

// TestTreeBucketsFromInternalEntries checks the mirror side of level 0:
// bucket digests equal a brute-force hash of the rows, no row is hashed
// to get them, and the node reads stay within O(buckets · height).
func TestTreeBucketsFromInternalEntries(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		rows, target int
	}{{1, 512}, {30, 512}, {5000, 512}, {60000, 512}, {60000, 64}, {60000, 100000}} {
		t.Run(fmt.Sprintf("%d rows by %d", tc.rows, tc.target), func(t *testing.T) {
			seed := uint64(tc.rows*31 + tc.target)
			ms, eng, root, calls, rows := countingTree(t, seed, tc.rows)
			tt, err := NewTreeTable(eng, root)
			if err != nil {
				t.Fatal(err)
			}
			st, err := eng.Stats(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			height := st.Height
			ms.ResetCounters()
			calls.Store(0)
			bs, err := tt.Buckets(ctx, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			reads := ms.Reads()
			if height > 1 && calls.Load() != 0 {
				t.Errorf("seed %d: %d rows hashed to cut buckets of a %d-level tree, want 0", seed, calls.Load(), height)
			}
			if bound := int64(len(bs) * height); reads > bound {
				t.Errorf("seed %d: %d node reads for %d buckets in a tree of height %d, want ≤ %d", seed, reads, len(bs), height, bound)
			}
			// Brute force: every row into the bucket whose Lo is the last ≤ its key.
			want := make([]rowhash.Digest, len(bs))
			for _, r := range rows {
				b := 0
				for b+1 < len(bs) && bytes.Compare(bs[b+1].Lo, r.key) <= 0 {
					b++
				}
				want[b] = want[b].Add(rowhash.PGHash64.Sum(r.value))
			}
			var total uint64
			for i, b := range bs {
				if b.Digest != want[i] {
					t.Fatalf("seed %d: bucket %d digest %v, brute force %v", seed, i, b.Digest, want[i])
				}
				if i > 0 && bytes.Compare(bs[i-1].Lo, b.Lo) >= 0 && bs[i-1].Lo != nil {
					t.Fatalf("seed %d: bucket %d Lo not ascending", seed, i)
				}
				if i < len(bs)-1 && b.Digest.Count < uint64(tc.target) {
					t.Errorf("seed %d: bucket %d of %d holds %d rows, want ≥ %d", seed, i, len(bs), b.Digest.Count, tc.target)
				}
				total += b.Digest.Count
			}
			if bs[0].Lo != nil || total != uint64(len(rows)) {
				t.Fatalf("seed %d: first Lo %x, %d rows in buckets, want nil and %d", seed, bs[0].Lo, total, len(rows))
			}
			if tc.rows >= 60000 && tc.target == 512 {
				t.Logf("%d rows, %d buckets, height %d: %d node reads, %d rows hashed", tc.rows, len(bs), height, reads, calls.Load())
				if leaves := int64(st.Nodes[0]); reads*4 > leaves {
					t.Errorf("seed %d: %d node reads for a tree of %d leaves: the walk should read far fewer nodes than a scan", seed, reads, leaves)
				}
			}
			// Digest and Bounds agree with the rows too.
			for i := 1; i < len(bs); i++ {
				d, err := tt.Digest(ctx, bs[i-1].Lo, bs[i].Lo)
				if err != nil {
					t.Fatal(err)
				}
				if d != want[i-1] {
					t.Fatalf("seed %d: Digest of bucket %d = %v, want %v", seed, i-1, d, want[i-1])
				}
			}
			// DigestsBetween at bounds that fall inside leaves.
			var cut [][]byte
			for i := 7; i < len(rows); i += 997 {
				cut = append(cut, rows[i].key)
			}
			ds, err := tt.DigestsBetween(ctx, cut)
			if err != nil {
				t.Fatal(err)
			}
			wantCut := make([]rowhash.Digest, len(cut)+1)
			for _, r := range rows {
				b := BoundaryBucket(r.key, cut)
				wantCut[b] = wantCut[b].Add(rowhash.PGHash64.Sum(r.value))
			}
			for i := range wantCut {
				if ds[i] != wantCut[i] {
					t.Fatalf("seed %d: DigestsBetween range %d = %v, brute force %v", seed, i, ds[i], wantCut[i])
				}
			}
			bounds, err := tt.Bounds(ctx, 10)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(bounds); i++ {
				if bytes.Compare(bounds[i-1], bounds[i]) >= 0 {
					t.Fatalf("seed %d: bounds not ascending at %d", seed, i)
				}
			}
		})
	}
}
