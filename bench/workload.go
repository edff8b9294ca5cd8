package bench

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
)

// KeySize and ValueSize are the seed's row shape: fixed 24-byte ordered keys
// and 27-byte values.
const (
	KeySize   = 24
	ValueSize = 27
)

// workload generates the rows of one benchmark size deterministically from
// a seed: the base table holds rows 0..n-1; edits insert new keys between
// base keys (sub > 0) or after the last one (append), so no two patterns
// collide unless asked to.
//
// Key layout: bytes 0..7 are big-endian pos<<8 | sub, which alone fixes the
// order (base row pos has sub 0; inserted keys sit just after base row pos);
// bytes 8..23 are a deterministic hash of (pos, sub), so keys are not mostly
// zero bytes and do not compress unrealistically well.
type workload struct {
	n    int
	seed uint64
}

// splitmix64 is a fixed, fast 64-bit mixer: the same input gives the same
// bytes on every machine and Go version (math/rand/v2's PCG is also fixed,
// but a mixer needs no state per row).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// putKey writes the key of (pos, sub) into k, which must hold KeySize bytes.
func (w *workload) putKey(k []byte, pos uint64, sub uint8) {
	id := pos<<8 | uint64(sub)
	binary.BigEndian.PutUint64(k[0:8], id)
	h := splitmix64(id ^ w.seed)
	binary.BigEndian.PutUint64(k[8:16], h)
	binary.BigEndian.PutUint64(k[16:24], splitmix64(h))
}

// key returns a fresh key for (pos, sub).
func (w *workload) key(pos uint64, sub uint8) []byte {
	k := make([]byte, KeySize)
	w.putKey(k, pos, sub)
	return k
}

// putValue writes the value of (pos, sub) at version ver into v (ValueSize
// bytes). Base rows are version 0; each repetition of a mutation writes its
// own version, so repetitions never reuse each other's nodes.
func (w *workload) putValue(v []byte, pos uint64, sub uint8, ver uint32) {
	x := splitmix64(pos<<8 | uint64(sub) ^ w.seed ^ uint64(ver)<<48 ^ 0x5bd1e995)
	for i := 0; i < ValueSize; i += 8 {
		x = splitmix64(x)
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], x)
		copy(v[i:], b[:])
	}
}

// value returns a fresh value for (pos, sub, ver).
func (w *workload) value(pos uint64, sub uint8, ver uint32) []byte {
	v := make([]byte, ValueSize)
	w.putValue(v, pos, sub, ver)
	return v
}

// rows returns a Build iterator over the base rows, reusing its buffers
// (Builder.Add copies).
func (w *workload) rows() func() (key, value []byte, ok bool, err error) {
	k, v := make([]byte, KeySize), make([]byte, ValueSize)
	var pos uint64
	return func() ([]byte, []byte, bool, error) {
		if pos >= uint64(w.n) {
			return nil, nil, false, nil
		}
		w.putKey(k, pos, 0)
		w.putValue(v, pos, 0, 0)
		pos++
		return k, v, true, nil
	}
}

// rng returns the deterministic generator of one (cell, repetition).
func (w *workload) rng(cell string, rep int) *rand.Rand {
	h := w.seed
	for _, c := range []byte(cell) {
		h = splitmix64(h ^ uint64(c))
	}
	return rand.New(rand.NewPCG(h, uint64(rep)+1))
}

// slot names one row: base position and sub (0 for base rows).
type slot struct {
	pos uint64
	sub uint8
}

// Edit patterns of the seed.
const (
	patAppend    = "append"
	patRandom    = "random"
	patClustered = "clustered"
)

// positions returns k distinct base positions, ascending: for random,
// uniform over [0, n); for clustered, the k consecutive positions centred on
// n/2 (shifted by shift·k, so two sides of a merge are adjacent and
// disjoint); for append, n+shift·k … (new positions past the last row).
func (w *workload) positions(pattern string, k int, r *rand.Rand, shift int) []uint64 {
	ps := make([]uint64, 0, k)
	switch pattern {
	case patAppend:
		start := uint64(w.n + shift*k)
		for i := range k {
			ps = append(ps, start+uint64(i))
		}
	case patClustered:
		start := int64(w.n/2-k/2) + int64(shift*k)
		start = max(0, min(start, int64(w.n-k)))
		for i := range k {
			ps = append(ps, uint64(start)+uint64(i))
		}
	case patRandom:
		seen := make(map[uint64]struct{}, k)
		for len(ps) < k {
			p := r.Uint64N(uint64(w.n))
			if _, dup := seen[p]; dup {
				continue
			}
			seen[p] = struct{}{}
			ps = append(ps, p)
		}
		slices.Sort(ps)
	default:
		panic("bench: unknown pattern " + pattern)
	}
	return ps
}

// inserts returns the slots of k new rows of the pattern: appended positions
// carry sub 0 (they are new base positions), others sub (1…255) so that they
// fall between existing rows.
func (w *workload) inserts(pattern string, k int, r *rand.Rand, shift int, sub uint8) []slot {
	ps := w.positions(pattern, min(k, w.maxEdits(pattern)), r, shift)
	out := make([]slot, len(ps))
	for i, p := range ps {
		s := sub
		if pattern == patAppend {
			s = 0
		}
		out[i] = slot{pos: p, sub: s}
	}
	return out
}

// maxEdits is the most distinct positions a pattern can draw.
func (w *workload) maxEdits(pattern string) int {
	if pattern == patAppend {
		return 1 << 40
	}
	return w.n
}

// samplePositions returns k base positions for reads: sorted when ordered
// is false is not required by the caller, so they are returned in draw order
// for random and ascending from a random start for ordered.
func (w *workload) samplePositions(k int, r *rand.Rand, ordered bool) []uint64 {
	ps := make([]uint64, k)
	if ordered {
		k = min(k, w.n)
		ps = ps[:k]
		start := r.Uint64N(uint64(w.n - k + 1))
		for i := range ps {
			ps[i] = start + uint64(i)
		}
		return ps
	}
	for i := range ps {
		ps[i] = r.Uint64N(uint64(w.n))
	}
	return ps
}
