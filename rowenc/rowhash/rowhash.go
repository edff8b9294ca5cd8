// Package rowhash defines the 64-bit row hashes that verify/ computes
// inside PostgreSQL and that the mirror keeps per Prolly subtree, and the
// digest they aggregate into.
//
// H(row) is a hash of the row's canonical vrow1 bytes (package rowenc),
// taken as a uint64; a set of rows digests to (count, Σ H mod 2^64). The
// sum is order-independent, can be combined across subtrees, buckets or
// parallel workers by addition and updated incrementally (add on insert,
// subtract on delete), and, unlike XOR, does not cancel duplicates or equal
// bit-deltas.
//
// The hash is pluggable and named; every stored digest and every verify
// report carries the name, so digests under different hashes are never
// compared. The package is pure Go with no database dependency so that
// prolly/ and mirror/ can import it.
package rowhash

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// ID names a row hash function. The zero ID is invalid.
type ID uint8

const (
	// PGHash64 is PostgreSQL's hash_bytes_extended with seed 0, as
	// exposed by hashtextextended(enc COLLATE "C", 0): about 3.5× cheaper
	// inside PostgreSQL than md5 (verify.md §3, b8 vs b5). The default when
	// the connect-time self-test passes.
	PGHash64 ID = iota + 1
	// MD5_64 is the first 8 bytes, big-endian, of md5(enc): the portable
	// reference.
	MD5_64
	// SHA256_64 is the first 8 bytes, big-endian, of sha256(enc): for
	// servers where md5() is disabled (FIPS).
	SHA256_64
	numIDs
)

var idNames = [...]string{PGHash64: "pghash64", MD5_64: "md5-64", SHA256_64: "sha256-64"}

// All returns every hash ID, the preferred one first.
func All() []ID { return []ID{PGHash64, MD5_64, SHA256_64} }

// String returns the hash's stable name ("pghash64", "md5-64",
// "sha256-64").
func (id ID) String() string {
	if !id.Valid() {
		return fmt.Sprintf("rowhash.ID(%d)", uint8(id))
	}
	return idNames[id]
}

// Valid reports whether id names a known hash.
func (id ID) Valid() bool { return id > 0 && id < numIDs }

// Parse returns the ID with the given name.
func Parse(name string) (ID, error) {
	for _, id := range All() {
		if id.String() == name {
			return id, nil
		}
	}
	return 0, fmt.Errorf("unknown row hash %q (known: pghash64, md5-64, sha256-64)", name)
}

// Sum returns H(vrow), the hash of a row's canonical vrow1 bytes. It panics
// on an invalid ID (a programming error: IDs come from Parse or constants).
func (id ID) Sum(vrow []byte) uint64 {
	switch id {
	case PGHash64:
		return pgHashBytesExtended(vrow, 0)
	case MD5_64:
		s := md5.Sum(vrow)
		return binary.BigEndian.Uint64(s[:8])
	case SHA256_64:
		s := sha256.Sum256(vrow)
		return binary.BigEndian.Uint64(s[:8])
	}
	panic(fmt.Sprintf("rowhash: Sum with invalid %v", id))
}

// SQL returns a PostgreSQL expression of type bigint whose bits are
// Sum(enc) for the text expression enc (which must yield the vrow1 bytes,
// in a UTF8 database). enc is inserted as is: the caller builds it from
// quoted identifiers only. Functions are schema-qualified so that a
// search_path naming another schema before pg_catalog cannot substitute
// them.
func (id ID) SQL(enc string) string {
	switch id {
	case PGHash64:
		// COLLATE "C": a nondeterministic column collation would switch
		// hashtext to hashing ICU sort keys.
		return fmt.Sprintf(`pg_catalog.hashtextextended((%s) COLLATE "C", 0)`, enc)
	case MD5_64:
		return fmt.Sprintf(`('x' || pg_catalog.left(pg_catalog.md5(%s), 16))::bit(64)::bigint`, enc)
	case SHA256_64:
		return fmt.Sprintf(`('x' || pg_catalog.encode(pg_catalog.substr(pg_catalog.sha256(pg_catalog.convert_to(%s, 'UTF8')), 1, 8), 'hex'))::bit(64)::bigint`, enc)
	}
	panic(fmt.Sprintf("rowhash: SQL with invalid %v", id))
}

// Digest is the aggregate of a set of rows: how many, and the sum of their
// hashes mod 2^64. The zero Digest is the empty set.
type Digest struct {
	Count uint64
	Sum   uint64
}

// Add includes one row hash.
func (d Digest) Add(h uint64) Digest { return Digest{d.Count + 1, d.Sum + h} }

// Remove excludes one row hash previously added.
func (d Digest) Remove(h uint64) Digest { return Digest{d.Count - 1, d.Sum - h} }

// Combine returns the digest of the union of two disjoint sets.
func (d Digest) Combine(o Digest) Digest { return Digest{d.Count + o.Count, d.Sum + o.Sum} }

// Subtract returns the digest of d's set without o's (o must be a subset).
func (d Digest) Subtract(o Digest) Digest { return Digest{d.Count - o.Count, d.Sum - o.Sum} }

// String prints the digest as count/sum-in-hex.
func (d Digest) String() string { return fmt.Sprintf("%d/%016x", d.Count, d.Sum) }
