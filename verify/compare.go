package verify

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// FetchDigests runs a bucketed digest query (BucketDigestQuery,
// BoundaryDigestQuery, HashBucketDigestQuery) and returns the digest of
// each non-empty bucket. A bucket not in the map is empty.
func FetchDigests(ctx context.Context, conn *pgconn.PgConn, query string) (map[int64]rowhash.Digest, error) {
	rows, err := simpleQuery(ctx, conn, query)
	if err != nil {
		return nil, fmt.Errorf("bucket digests: %w", err)
	}
	out := make(map[int64]rowhash.Digest, len(rows))
	for _, r := range rows {
		if len(r) != 3 {
			return nil, fmt.Errorf("bucket digests: %d columns, want 3", len(r))
		}
		b, err1 := strconv.ParseInt(string(r[0]), 10, 64)
		n, err2 := strconv.ParseUint(string(r[1]), 10, 64)
		s, err3 := strconv.ParseUint(string(r[2]), 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("bucket digests: bad row %q", r)
		}
		out[b] = rowhash.Digest{Count: n, Sum: s}
	}
	return out, nil
}

// fetchDigest runs TableDigestQuery's query: one row (count, sum).
func fetchDigest(ctx context.Context, conn *pgconn.PgConn, query string) (rowhash.Digest, error) {
	rows, err := simpleQuery(ctx, conn, query)
	if err != nil {
		return rowhash.Digest{}, fmt.Errorf("table digest: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 2 {
		return rowhash.Digest{}, fmt.Errorf("table digest: unexpected result shape")
	}
	n, err1 := strconv.ParseUint(string(rows[0][0]), 10, 64)
	s, err2 := strconv.ParseUint(string(rows[0][1]), 10, 64)
	if err1 != nil || err2 != nil {
		return rowhash.Digest{}, fmt.Errorf("table digest: bad row %q", rows[0])
	}
	return rowhash.Digest{Count: n, Sum: s}, nil
}

// DirtyBuckets returns, ascending, the buckets whose digests differ
// between PostgreSQL and the mirror (a bucket missing from a map is empty).
func DirtyBuckets(pg, mirror map[int64]rowhash.Digest) []int64 {
	var dirty []int64
	for b, d := range pg {
		if mirror[b] != d {
			dirty = append(dirty, b)
		}
	}
	for b, d := range mirror {
		if _, ok := pg[b]; !ok && d != (rowhash.Digest{}) {
			dirty = append(dirty, b)
		}
	}
	slices.Sort(dirty)
	return dirty
}

// KeyHash is one row as the leaf step sees it: its key (rowenc encoding
// and column texts) and its row hash.
type KeyHash struct {
	Key   []byte
	Texts []string
	Hash  uint64
}

// FetchKeyHashes runs a (key texts…, hash) query (RangeHashQuery,
// HashBucketRowsQuery) and returns the rows sorted by encoded key.
func FetchKeyHashes(ctx context.Context, conn *pgconn.PgConn, codec *rowenc.KeyCodec, query string) ([]KeyHash, error) {
	rows, err := simpleQuery(ctx, conn, query)
	if err != nil {
		return nil, fmt.Errorf("key hashes: %w", err)
	}
	nk := len(codec.Kinds())
	out := make([]KeyHash, 0, len(rows))
	for _, r := range rows {
		if len(r) != nk+1 {
			return nil, fmt.Errorf("key hashes: %d columns, want %d", len(r), nk+1)
		}
		key, err := codec.Append(nil, r[:nk])
		if err != nil {
			return nil, fmt.Errorf("key hashes: %w", err)
		}
		h, err := strconv.ParseInt(string(r[nk]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("key hashes: hash %q: %w", r[nk], err)
		}
		texts := make([]string, nk)
		for i := range texts {
			texts[i] = string(r[i])
		}
		out = append(out, KeyHash{Key: key, Texts: texts, Hash: uint64(h)})
	}
	slices.SortFunc(out, func(a, b KeyHash) int { return bytes.Compare(a.Key, b.Key) })
	return out, nil
}

// DiffKind says how a row differs.
type DiffKind uint8

const (
	// Missing: in PostgreSQL, not in the mirror.
	Missing DiffKind = iota + 1
	// Extra: in the mirror, not in PostgreSQL.
	Extra
	// Changed: in both, with different row hashes.
	Changed
)

// String returns "missing", "extra" or "changed".
func (k DiffKind) String() string {
	switch k {
	case Missing:
		return "missing"
	case Extra:
		return "extra"
	case Changed:
		return "changed"
	}
	return fmt.Sprintf("DiffKind(%d)", uint8(k))
}

// RowDiff is one differing key.
type RowDiff struct {
	Kind  DiffKind
	Key   []byte
	Texts []string
}

// DiffKeyHashes merges two key-sorted (KeyHash.Key byte order) lists, from
// PostgreSQL and from the mirror, into the differing keys, in key order.
func DiffKeyHashes(pg, mirror []KeyHash) []RowDiff {
	var out []RowDiff
	i, j := 0, 0
	for i < len(pg) || j < len(mirror) {
		var c int
		switch {
		case i == len(pg):
			c = 1
		case j == len(mirror):
			c = -1
		default:
			c = bytes.Compare(pg[i].Key, mirror[j].Key)
		}
		switch {
		case c < 0:
			out = append(out, RowDiff{Missing, pg[i].Key, pg[i].Texts})
			i++
		case c > 0:
			out = append(out, RowDiff{Extra, mirror[j].Key, mirror[j].Texts})
			j++
		default:
			if pg[i].Hash != mirror[j].Hash {
				out = append(out, RowDiff{Changed, pg[i].Key, pg[i].Texts})
			}
			i++
			j++
		}
	}
	return out
}
