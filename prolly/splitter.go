package prolly

import (
	"crypto/sha512"
	"encoding/binary"
	"math"

	"github.com/zeebo/xxh3"
)

// splitParams are the numeric parameters of the boundary rule, shared by
// every level of every tree of one Engine.
type splitParams struct {
	k        int
	lambda   float64
	min, max int
	seeds    [MaxLevel + 1]uint64
}

func newSplitParams(s Spec) *splitParams {
	p := &splitParams{k: s.WeibullK, lambda: float64(s.WeibullLambda), min: s.MinNodeSize, max: s.MaxNodeSize}
	for l := range p.seeds {
		sum := sha512.Sum512([]byte{byte(l + 1)})
		p.seeds[l] = binary.LittleEndian.Uint64(sum[:8])
	}
	return p
}

// hazard returns (size/λ)^k, the Weibull cumulative hazard. Each product is
// rounded explicitly (float64(...)) so that no platform fuses operations and
// every machine computes the same bits.
func (p *splitParams) hazard(size int) float64 {
	x := float64(size) / p.lambda
	h := 1.0
	for i := 0; i < p.k; i++ {
		h = float64(h * x)
	}
	return h
}

// splitter decides node boundaries at one level: Dolt's key splitter. The
// decision after an item depends only on the item's key and on the item
// bytes accumulated since the previous boundary, so the boundaries of a level
// are a function of its item sequence alone (history independence), and a
// builder that replays a node from its start reproduces its state exactly.
type splitter struct {
	p        *splitParams
	seed     uint64
	minCount int // 1 for leaves, 2 for internal levels
	size     int // item bytes since the last boundary
	count    int // items since the last boundary
}

func newSplitter(p *splitParams, level int) splitter {
	s := splitter{p: p, seed: p.seeds[level], minCount: 1}
	if level > 0 {
		// INVARIANT: an internal node only splits after ≥ 2 entries, so each
		// level has at most half the nodes of the one below (plus one) and
		// the tree's height is bounded even when every item is oversized.
		s.minCount = 2
	}
	return s
}

// reset starts a new node.
func (s *splitter) reset() { s.size, s.count = 0, 0 }

// before reports whether a boundary is forced before an item of itemSize
// bytes: an item larger than the maximum node size gets a node of its own
// (at internal levels, shared with one more entry), so that multi-MB rows do
// not make their neighbours' nodes, and every edit of a neighbour, huge.
func (s *splitter) before(itemSize int) bool {
	return itemSize > s.p.max && s.count >= s.minCount
}

// after accounts an item and reports whether the node ends after it.
//
// With S₀ the bytes before the item and S₁ after it: no boundary while
// S₁ < min; a boundary once S₁ > max; otherwise a boundary iff
// u < 1 − exp(−(H(S₁) − H(S₀))), where H is the Weibull cumulative hazard and
// u = low32(xxh3(key, seed_level)) / 2^32. That is the probability that a
// Weibull-distributed node size ends inside this item given it did not end
// before it: node sizes then follow Weibull(k, λ).
func (s *splitter) after(key []byte, itemSize int) bool {
	s0 := s.size
	s.size += itemSize
	s.count++
	if s.count < s.minCount || s.size < s.p.min {
		return false
	}
	if s.size > s.p.max {
		s.reset()
		return true
	}
	u := float64(uint32(xxh3.HashSeed(key, s.seed))) / (1 << 32)
	prob := -math.Expm1(s.p.hazard(s0) - s.p.hazard(s.size))
	if u < prob {
		s.reset()
		return true
	}
	return false
}
