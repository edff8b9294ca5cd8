package head

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
)

// A bigint primary key's keys all have one length: the key store keeps
// them without per-slot offsets (issue 24 item 3: at 100M rows the offsets
// alone were 800 MB outside every memory budget).
func TestKeyStoreFixedWidthBytesPerKey(t *testing.T) {
	var s keyStore
	const pages, perPage = 50, 1000
	for p := range pages {
		for i := range perPage {
			k := binary.BigEndian.AppendUint64([]byte{0x10}, uint64(p*perPage+i))
			s.set(heap.MakeRowID(uint32(p), i), k)
		}
	}
	per := float64(s.memoryBytes()) / (pages * perPage)
	if per > 11.5 {
		t.Fatalf("key store holds %.1f bytes per 9-byte key, want ≤ 11.5 (no offsets)", per)
	}
	for p := range pages {
		for i := range perPage {
			want := binary.BigEndian.AppendUint64([]byte{0x10}, uint64(p*perPage+i))
			if got := s.key(heap.MakeRowID(uint32(p), i)); !bytes.Equal(got, want) {
				t.Fatalf("key(%d,%d) = %x, want %x", p, i, got, want)
			}
		}
	}
}

// The key store against a map: random sets (mostly one length, some
// another, slots in and out of order, slots written again after a drop),
// drops, a checkpoint round trip; and every slice it handed out keeps its
// bytes (readers and a compaction's pairs hold them past later writes).
func TestKeyStoreModel(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			var s keyStore
			model := map[heap.RowID][]byte{}
			type handed struct {
				b, want []byte
			}
			var out []handed
			next := map[uint32]int{}
			for range 5000 {
				page := uint32(rng.IntN(4))
				var slot int
				switch r := rng.IntN(10); {
				case r < 6: // append order, as the heap fills a page
					slot = next[page]
					next[page]++
				case r < 8: // anywhere, possibly written before
					slot = rng.IntN(next[page] + 3)
				default:
					slot = -1
				}
				if slot < 0 {
					if next[page] == 0 {
						continue
					}
					id := heap.MakeRowID(page, rng.IntN(next[page]))
					s.drop(id)
					delete(model, id)
					continue
				}
				n := 9
				if seed%2 == 1 && rng.IntN(20) == 0 {
					n = 1 + rng.IntN(20)
				}
				k := make([]byte, n)
				for i := range k {
					k[i] = byte(rng.Uint32())
				}
				id := heap.MakeRowID(page, slot)
				s.set(id, k)
				model[id] = k
				got := s.key(id)
				out = append(out, handed{got, bytes.Clone(got)})
			}
			check := func(s *keyStore) {
				t.Helper()
				for p := range uint32(4) {
					for i := range next[p] + 3 {
						id := heap.MakeRowID(p, i)
						if got, want := s.key(id), model[id]; !bytes.Equal(got, want) {
							t.Fatalf("key(%d,%d) = %x, want %x", p, i, got, want)
						}
					}
				}
			}
			check(&s)
			for _, h := range out {
				if !bytes.Equal(h.b, h.want) {
					t.Fatalf("a handed-out key changed: %x, was %x", h.b, h.want)
				}
			}
			var back keyStore
			if err := back.decode(s.encode(nil)); err != nil {
				t.Fatal(err)
			}
			check(&back)
		})
	}
}

// A frozen key store encodes what the store held at the freeze, whatever
// the writer did since: sets of new and old slots (fixed pages turning
// variable, pages compacting their arenas), drops, new pages; and the
// store itself stays right. The checkpoint's cut freezes the store under
// the writer's lock and encodes it after (issue 24: the encoding under
// the lock stalled apply 1.2 s – 4 min).
func TestKeyStoreFreeze(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(7), 11))
	var s keyStore
	want := map[heap.RowID][]byte{}
	churn := func(n int) { churnKeys(rng, &s, want, n, 10) }
	check := func(what string) {
		t.Helper()
		for id, k := range want {
			if got := s.key(id); !bytes.Equal(got, k) {
				t.Fatalf("%s: key(%v) = %x, want %x", what, id, got, k)
			}
		}
	}
	churn(20000)
	for round := range 4 {
		before := s.encode(nil)
		f := s.freeze()
		churn(20000)
		check(fmt.Sprintf("round %d, after the freeze", round))
		if got := f.encode(nil); !bytes.Equal(got, before) {
			t.Fatalf("round %d: the frozen store encodes %d bytes, the store at the freeze %d: not the same", round, len(got), len(before))
		}
		var back keyStore
		if err := back.decode(f.encode(nil)); err != nil {
			t.Fatal(err)
		}
	}
}

// churnKeys makes n random sets and drops of keys of 40 pages of 300
// slots in s, mirrored in want: 8-byte keys, one in otherLen of another
// length (pages turning variable).
func churnKeys(rng *rand.Rand, s *keyStore, want map[heap.RowID][]byte, n, otherLen int) {
	for range n {
		id := heap.MakeRowID(uint32(rng.IntN(40)), rng.IntN(300))
		switch rng.IntN(5) {
		case 0:
			s.drop(id)
			delete(want, id)
		default:
			k := binary.BigEndian.AppendUint64(nil, rng.Uint64())
			if rng.IntN(otherLen) == 0 {
				k = append(k, bytes.Repeat([]byte{'v'}, rng.IntN(40))...) // another length
			}
			s.set(id, k)
			want[id] = k
		}
	}
}
