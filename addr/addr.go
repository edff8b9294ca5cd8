// Package addr defines the content address shared by the node store and the
// Prolly tree: the first 20 bytes of SHA-256 over a node's encoded bytes.
//
// It is a leaf package so that store/ (bytes on disk) and prolly/ (the tree)
// agree on addresses without depending on each other.
package addr

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// ErrNotFound is returned by node stores for an address they do not hold.
var ErrNotFound = errors.New("no node at address")

// Size is the length of a Hash in bytes.
const Size = 20

// Hash is the content address of an encoded node.
type Hash [Size]byte

// Zero is the empty address; it never names a stored node.
var Zero Hash

// Of returns the address of data. SHA-256 is hardware accelerated (SHA-NI) on
// the machines we target; 20 bytes keep internal nodes' fan-out high and are
// ample against accidental collision.
func Of(data []byte) Hash {
	sum := sha256.Sum256(data)
	var h Hash
	copy(h[:], sum[:Size])
	return h
}

// IsZero reports whether h is the zero address.
func (h Hash) IsZero() bool { return h == Zero }

// String returns the lowercase hex form of h.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short returns the first 12 hex digits of h, for logs and tables.
func (h Hash) Short() string { return h.String()[:12] }

// Parse reads the hex form produced by String.
func Parse(s string) (Hash, error) {
	var h Hash
	if len(s) != 2*Size {
		return h, fmt.Errorf("parse address %q: want %d hex digits, got %d", s, 2*Size, len(s))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("parse address %q: %w", s, err)
	}
	return h, nil
}
