package rowenc

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Keys of REPLICA IDENTITY FULL tables (multisets).
//
// Under REPLICA IDENTITY FULL the stream names a row only by all of its
// values, and a table without a key may hold the same row several times.
// The mirror keeps such a table as a multiset: each occurrence of a row is
// one tree entry, keyed by the row's vrow1 followed by its occurrence
// number as 4 big-endian bytes, with the vrow1 as its value:
//
//	key = vrow1(row) || uint32be(occurrence)
//
// The occurrences of a row are always numbered 0..n-1: an insert adds
// occurrence n, a delete removes occurrence n-1 (every occurrence has the
// same values, so which one PostgreSQL removed cannot matter). The entries
// of a multiset are therefore a function of the multiset alone, whatever
// order of inserts and deletes produced it: the tree keeps history
// independence (DESIGN.md invariant 3), and since every occurrence is an
// entry whose value is the row, the tree's digest (count, Σ H) is the
// multiset's, which is what PostgreSQL's count(*) and sum(H) compute
// (invariant 8).
//
// Within one table every row has the same number of columns, so vrow1 is
// prefix-free there: no row's encoding is a proper prefix of another's,
// the keys sort by row first and then by occurrence, and the occurrences
// of one row are adjacent.

// OccurrenceLen is the length of the occurrence suffix of a multiset key.
const OccurrenceLen = 4

// AppendOccurrenceKey appends the multiset key of the occurrence occ of
// the row whose vrow1 is row.
func AppendOccurrenceKey(dst, row []byte, occ uint32) []byte {
	dst = append(dst, row...)
	return binary.BigEndian.AppendUint32(dst, occ)
}

// SplitOccurrenceKey splits a multiset key into the row's vrow1 (aliasing
// key) and the occurrence number.
func SplitOccurrenceKey(key []byte) (row []byte, occ uint32, err error) {
	if len(key) < OccurrenceLen {
		return nil, 0, fmt.Errorf("%w: multiset key of %d bytes has no occurrence number", ErrCorrupt, len(key))
	}
	n := len(key) - OccurrenceLen
	return key[:n:n], binary.BigEndian.Uint32(key[n:]), nil
}

// CountOccurrences returns how many occurrences of the row whose vrow1 is
// row a multiset holds, given has, which reports whether a key is
// present. Occurrences are numbered densely from 0, so the count is the
// first absent number: found by doubling, then bisection, in O(log n)
// calls (one for a row not there, two for a row held once).
func CountOccurrences(row []byte, has func(key []byte) (bool, error)) (uint32, error) {
	key := make([]byte, 0, len(row)+OccurrenceLen)
	probe := func(occ uint64) (bool, error) {
		return has(AppendOccurrenceKey(key[:0], row, uint32(occ)))
	}
	found, err := probe(0)
	if err != nil || !found {
		return 0, err
	}
	lo, hi := uint64(0), uint64(1) // lo present, hi unknown
	for hi <= math.MaxUint32 {
		if found, err = probe(hi); err != nil {
			return 0, err
		}
		if !found {
			break
		}
		lo, hi = hi, hi*2
	}
	hi = min(hi, math.MaxUint32)
	for hi-lo > 1 { // lo present, hi absent (or past the last number)
		mid := lo + (hi-lo)/2
		if found, err = probe(mid); err != nil {
			return 0, err
		}
		if found {
			lo = mid
		} else {
			hi = mid
		}
	}
	return uint32(hi), nil
}
