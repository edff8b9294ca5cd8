package rowhash

import "math/bits"

// pgHashBytesExtended computes PostgreSQL's hash_bytes_extended(k, len(k),
// seed) (src/common/hashfn.c) as built on a little-endian machine: Bob
// Jenkins' lookup3 mixing over 12-byte blocks, with a state initialised
// from the length and perturbed by a non-zero seed, and the 64-bit result
// formed from the final b (high half) and c (low half).
//
// PostgreSQL reads 4-byte words with native loads on aligned input and byte
// by byte otherwise; on little-endian both give the little-endian word, so
// one path covers both. Big-endian builds of PostgreSQL hash differently:
// the connect-time self-test (verify.SelfTest) catches that and falls back.
//
// hashtextextended(t, seed) returns this value reinterpreted as int64.
func pgHashBytesExtended(k []byte, seed uint64) uint64 {
	n := uint32(len(k))
	a := 0x9e3779b9 + n + 3923095
	b, c := a, a
	if seed != 0 {
		// The seed acts as a 12-byte block: high word, low word, zero.
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = mix(a, b, c)
	}
	for len(k) >= 12 {
		a += le32(k[0:4])
		b += le32(k[4:8])
		c += le32(k[8:12])
		a, b, c = mix(a, b, c)
		k = k[12:]
	}
	// The last 0..11 bytes: c takes bytes 8..10 in its upper three bytes
	// (its lowest byte is left alone, a lookup3 convention), b bytes 4..7,
	// a bytes 0..3, each little-endian.
	switch len(k) {
	case 11:
		c += uint32(k[10]) << 24
		fallthrough
	case 10:
		c += uint32(k[9]) << 16
		fallthrough
	case 9:
		c += uint32(k[8]) << 8
		fallthrough
	case 8:
		b += uint32(k[7]) << 24
		fallthrough
	case 7:
		b += uint32(k[6]) << 16
		fallthrough
	case 6:
		b += uint32(k[5]) << 8
		fallthrough
	case 5:
		b += uint32(k[4])
		fallthrough
	case 4:
		a += uint32(k[3]) << 24
		fallthrough
	case 3:
		a += uint32(k[2]) << 16
		fallthrough
	case 2:
		a += uint32(k[1]) << 8
		fallthrough
	case 1:
		a += uint32(k[0])
	}
	_, b, c = final(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

func le32(p []byte) uint32 {
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
}

func rot(x uint32, k int) uint32 { return bits.RotateLeft32(x, k) }

// mix is lookup3's reversible mixing of three 32-bit words.
func mix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= rot(c, 4)
	c += b
	b -= a
	b ^= rot(a, 6)
	a += c
	c -= b
	c ^= rot(b, 8)
	b += a
	a -= c
	a ^= rot(c, 16)
	c += b
	b -= a
	b ^= rot(a, 19)
	a += c
	c -= b
	c ^= rot(b, 4)
	b += a
	return a, b, c
}

// final is lookup3's final avalanche of three words into c (and b).
func final(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return a, b, c
}
