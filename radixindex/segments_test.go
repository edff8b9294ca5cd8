package radixindex

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestImageParts: an image written in parts — WriteImageHead, then each
// kind's pages in runs (AppendImagePage) — is byte for byte WriteImage's;
// MapImageParts over read-only mappings of the runs gives the written
// tree, whose frozen pages all say mapped until a change copies one (then
// that one alone is not, the others still are); VerifyImagePages checks
// every run and refuses a flipped byte; the mapped index takes the
// model's writes without writing into the mappings.
func TestImageParts(t *testing.T) {
	forEachGen(t, 700, func(t *testing.T, rng *rand.Rand, g keyGen, seed uint64) {
		rs, tr, m := churnTree(rng, g, 3000, 3)
		var whole bytes.Buffer
		if _, err := tr.WriteImage(&whole, 17); err != nil {
			t.Fatal(err)
		}
		src := &Index{t: tr, lsn: 17, scanChunk: defaultScanChunk}
		f := src.Freeze()
		var head bytes.Buffer
		if _, err := f.WriteImageHead(&head); err != nil {
			t.Fatal(err)
		}
		const per = 3
		parts := [ImageKinds][][]byte{}
		joined := bytes.Clone(head.Bytes())
		for k := range ImageKinds {
			for from := 0; from < f.ImagePages(k); from += per {
				var part []byte
				for c := from; c < min(f.ImagePages(k), from+per); c++ {
					b, mapped := f.ImagePage(k, c)
					if mapped || len(b) != ImagePageSize(k, c) {
						t.Fatalf("seed %d: kind %d page %d: %d bytes (want %d), mapped %v", seed, k, c, len(b), ImagePageSize(k, c), mapped)
					}
					part = AppendImagePage(part, b)
				}
				joined = append(joined, part...)
				if err := VerifyImagePages(bytes.NewReader(part), k, from, min(f.ImagePages(k), from+per)); err != nil {
					t.Fatalf("seed %d: VerifyImagePages: %v", seed, err)
				}
				bad := bytes.Clone(part)
				bad[len(bad)/2] ^= 0x20
				if err := VerifyImagePages(bytes.NewReader(bad), k, from, min(f.ImagePages(k), from+per)); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("seed %d: VerifyImagePages of a flipped part: %v", seed, err)
				}
				parts[k] = append(parts[k], mapReadOnly(t, part))
			}
		}
		f.Release()
		if !bytes.Equal(joined, whole.Bytes()) {
			t.Fatalf("seed %d: the parts joined (%d B) are not the image (%d B)", seed, len(joined), whole.Len())
		}
		counts, err := ImageHeadPages(head.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		ix, err := MapImageParts(head.Bytes(), func(k, c int) ([]byte, error) {
			if k >= len(counts) || c >= counts[k] {
				t.Fatalf("page %d of kind %d asked for, the head has %d", c, k, counts[k])
			}
			part := parts[k][c/per]
			off := 0
			for i := c / per * per; i < c; i++ {
				off += ImagePageSize(k, i) + 8
			}
			return part[off : off+ImagePageSize(k, c)], nil
		}, rs.keyOf)
		if err != nil || ix.LSN() != 17 {
			t.Fatalf("seed %d: MapImageParts: lsn %d, %v", seed, ix.LSN(), err)
		}
		back := ix.t
		sameMappedTree(t, seed, back, tr)
		fm := ix.Freeze()
		for k := range ImageKinds {
			for c := range fm.ImagePages(k) {
				if _, mapped := fm.ImagePage(k, c); !mapped {
					t.Fatalf("seed %d: kind %d page %d of the mapped index not marked mapped", seed, k, c)
				}
			}
		}
		fm.Release()
		before := make([][]byte, 0)
		for k := range ImageKinds {
			for _, p := range parts[k] {
				before = append(before, bytes.Clone(p))
			}
		}
		runModel(t, rng, g, 2000, seed, back, rs, m)
		i := 0
		for k := range ImageKinds {
			for _, p := range parts[k] {
				if !bytes.Equal(p, before[i]) {
					t.Fatalf("seed %d: a mapped part changed under the writes", seed)
				}
				i++
			}
		}
		// What the writes copied is no longer mapped; what they did not
		// touch still is.
		fa := ix.Freeze()
		defer fa.Release()
		copied, still := 0, 0
		back.MappedPages(func(k, c int) { still++ })
		for k := range ImageKinds {
			for c := range fa.ImagePages(k) {
				if _, mapped := fa.ImagePage(k, c); !mapped {
					copied++
				}
			}
		}
		if copied == 0 {
			t.Fatalf("seed %d: 2,000 writes copied no page", seed)
		}
		total := 0
		for k := range ImageKinds {
			total += fa.ImagePages(k)
		}
		if still != total-copied {
			t.Fatalf("seed %d: MappedPages counts %d, the frozen view %d of %d", seed, still, total-copied, total)
		}
	})
}

// sameMappedTree fails unless back, mapped from tr's image, has tr's
// root, keys and slabs, and verifies.
func sameMappedTree(t *testing.T, seed uint64, back, tr *Tree) {
	t.Helper()
	if back.root != tr.root || back.n != tr.n || !sameImageSlab(&back.n4, &tr.n4) || !sameImageSlab(&back.n16, &tr.n16) ||
		!sameImageSlab(&back.n48, &tr.n48) || !sameImageSlab(&back.n256, &tr.n256) {
		t.Fatalf("seed %d: the mapped slabs differ from the written ones", seed)
	}
	if err := back.Verify(); err != nil {
		t.Fatalf("seed %d: Verify: %v", seed, err)
	}
}
