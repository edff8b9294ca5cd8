package store

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// leafGen builds node-shaped byte strings like the Prolly leaves the store
// will hold (issue #3's benchmark shape): a small header, 68 entries of a
// 24-byte ordered key (a per-table random 16-byte prefix and a big-endian
// counter) and a 27-byte value, with u16 key offsets and u32 value offsets.
// The exact prolly encoding differs; what matters for compression is this mix
// of shared prefixes, counters, offsets and value entropy.
type leafGen struct {
	rng    *rand.Rand
	prefix [16]byte
	next   uint64
	text   bool // text-like values (PostgreSQL text output) instead of random-ish
}

const leafEntries = 68

var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
	"india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"}

func newLeafGen(seed uint64, text bool) *leafGen {
	g := &leafGen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), text: text}
	for i := range g.prefix {
		g.prefix[i] = byte(g.rng.Uint32())
	}
	return g
}

func (g *leafGen) value(dst []byte) {
	if !g.text {
		// random-ish: a random 8-byte id, a small counter, a status byte and
		// a random tail, as a packed row of mixed columns would look.
		binary.BigEndian.PutUint64(dst[0:8], g.rng.Uint64())
		binary.BigEndian.PutUint32(dst[8:12], uint32(g.rng.IntN(100000)))
		dst[12] = byte(g.rng.IntN(5))
		for i := 13; i < len(dst); i++ {
			dst[i] = byte(g.rng.Uint32())
		}
		return
	}
	s := fmt.Sprintf("%d|%s %s|%d.%02d", g.rng.IntN(1e6), words[g.rng.IntN(len(words))],
		words[g.rng.IntN(len(words))], g.rng.IntN(1e4), g.rng.IntN(100))
	n := copy(dst, s)
	for i := n; i < len(dst); i++ {
		dst[i] = ' '
	}
}

// leaf returns the bytes of the next leaf.
func (g *leafGen) leaf() []byte {
	const keyLen, valLen = 24, 27
	hdr := 8
	offs := leafEntries*2 + leafEntries*4
	buf := make([]byte, hdr+offs+leafEntries*(keyLen+valLen))
	binary.LittleEndian.PutUint16(buf[0:2], leafEntries)
	buf[2] = 0 // level
	keys := buf[hdr+offs:]
	vals := keys[leafEntries*keyLen:]
	for i := range leafEntries {
		g.next += 1 + uint64(g.rng.IntN(3))
		k := keys[i*keyLen : (i+1)*keyLen]
		copy(k, g.prefix[:])
		binary.BigEndian.PutUint64(k[16:], g.next)
		g.value(vals[i*valLen : (i+1)*valLen])
		binary.LittleEndian.PutUint16(buf[hdr+2*i:], uint16(i*keyLen))
		binary.LittleEndian.PutUint32(buf[hdr+leafEntries*2+4*i:], uint32(i*valLen))
	}
	return buf
}

func (g *leafGen) leaves(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = g.leaf()
	}
	return out
}
