package prolly

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/zeebo/xxh3"
)

// Spec names everything that decides the bytes (and so the hashes) of a tree:
// node layout, node hash, boundary rule and its parameters, and the row hash
// whose sums the internal entries carry. Two trees can share nodes, be
// diffed or merged only if their specs are equal; SpecID is stored beside
// every root so that a change of any field can never silently mix trees.
type Spec struct {
	// FormatVersion is the node layout version (FormatVersion).
	FormatVersion uint8
	// NodeHash names the content address: "sha256/20" (package addr).
	NodeHash string
	// Boundary names the boundary rule: "xxh3-weibull/1" is Dolt's key
	// splitter: xxh3-64 of the key with a per-level seed (first 8 bytes,
	// little-endian, of SHA-512 over the single byte level+1), low 32 bits as
	// a uniform draw, split with the Weibull(K, Lambda) conditional hazard.
	Boundary string
	// WeibullK and WeibullLambda shape the node size distribution in bytes.
	WeibullK, WeibullLambda int
	// MinNodeSize: no boundary while a node's item bytes are below it.
	// MaxNodeSize: a boundary after the item that pushes them above it, and
	// before an item that alone is larger than it.
	MinNodeSize, MaxNodeSize int
	// RowHash is the id of the caller's 64-bit row hash (RowHash.ID).
	RowHash string
}

// SpecID identifies a Spec: the first 8 bytes of SHA-256 over its canonical
// encoding.
type SpecID [8]byte

// String returns the hex form of id.
func (id SpecID) String() string { return hex.EncodeToString(id[:]) }

// ParseSpecID reads the hex form produced by String.
func ParseSpecID(s string) (SpecID, error) {
	var id SpecID
	if len(s) != 2*len(id) {
		return id, fmt.Errorf("parse spec id %q: want %d hex digits", s, 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("parse spec id %q: %w", s, err)
	}
	return id, nil
}

// Names accepted by Validate.
const (
	NodeHashSHA256x20 = "sha256/20"
	BoundaryWeibull   = "xxh3-weibull/1"
)

// DefaultSpec is Dolt's chunking (k=4, λ=4096, 512 B..16 KiB) over our node
// format, with the DefaultRowHash.
func DefaultSpec() Spec {
	return Spec{
		FormatVersion: FormatVersion,
		NodeHash:      NodeHashSHA256x20,
		Boundary:      BoundaryWeibull,
		WeibullK:      4,
		WeibullLambda: 4096,
		MinNodeSize:   512,
		MaxNodeSize:   16384,
		RowHash:       DefaultRowHash().ID,
	}
}

// Validate reports a spec this build cannot produce trees for.
func (s Spec) Validate() error {
	switch {
	case s.FormatVersion != FormatVersion:
		return fmt.Errorf("prolly spec: format version %d unsupported (have %d)", s.FormatVersion, FormatVersion)
	case s.NodeHash != NodeHashSHA256x20:
		return fmt.Errorf("prolly spec: node hash %q unsupported", s.NodeHash)
	case s.Boundary != BoundaryWeibull:
		return fmt.Errorf("prolly spec: boundary rule %q unsupported", s.Boundary)
	case s.WeibullK < 1 || s.WeibullK > 8:
		return fmt.Errorf("prolly spec: weibull k %d outside 1..8", s.WeibullK)
	case s.WeibullLambda < 64:
		return fmt.Errorf("prolly spec: weibull lambda %d below 64", s.WeibullLambda)
	case s.MinNodeSize < 0 || s.MaxNodeSize <= s.MinNodeSize || s.MaxNodeSize > 1<<24:
		return fmt.Errorf("prolly spec: node size bounds %d..%d invalid", s.MinNodeSize, s.MaxNodeSize)
	case s.RowHash == "":
		return errors.New("prolly spec: row hash id empty")
	}
	return nil
}

// ID returns the spec's stable identifier. The encoding is fixed: changing
// it would change every stored SpecID.
func (s Spec) ID() SpecID {
	var b []byte
	b = append(b, "prolly-spec/1\x00"...)
	b = append(b, s.FormatVersion)
	for _, str := range []string{s.NodeHash, s.Boundary, s.RowHash} {
		b = binary.AppendUvarint(b, uint64(len(str)))
		b = append(b, str...)
	}
	for _, v := range []int{s.WeibullK, s.WeibullLambda, s.MinNodeSize, s.MaxNodeSize} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	sum := sha256.Sum256(b)
	var id SpecID
	copy(id[:], sum[:])
	return id
}

// RowHash is the caller's 64-bit hash of a row, summed (mod 2^64) into the
// digests of internal entries. verify/ computes the same function inside
// PostgreSQL, so its ID is part of the Spec.
type RowHash struct {
	// ID names the function and its version; it enters the SpecID.
	ID string
	// Fn hashes one row. It must be deterministic and safe for concurrent use.
	Fn func(key, value []byte) uint64
}

// DefaultRowHash returns xxh3-64 of the value seeded with xxh3-64 of the key: one
// pass over each, no allocation, and (key, value) pairs that concatenate to
// the same bytes still hash apart.
func DefaultRowHash() RowHash {
	return RowHash{ID: "xxh3-kv/1", Fn: defaultRowHash}
}

func defaultRowHash(key, value []byte) uint64 { return xxh3.HashSeed(value, xxh3.Hash(key)) }
