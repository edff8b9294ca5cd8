package verify

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// Buckets other than fixed-width integer ranges (verify.md §4.3):
//
//   - boundary buckets, for a single-column key of any type: bucket i holds
//     the keys in [bounds[i-1], bounds[i]) in the mirror's byte order, with
//     bucket 0 below bounds[0] and bucket len(bounds) from the last bound
//     on. The bounds are taken from the mirror's sorted keys (quantiles), so
//     each bucket is a key range whose digest the Prolly tree gives in
//     O(height);
//   - hash buckets, for composite keys or keys whose order PostgreSQL and
//     the mirror may not share: bucket = H(vrow1 of the key texts) masked to
//     the low bits. No collation or type order matters, but the mirror must
//     hash its keys and the leaf step is a second scan.

// typeNameSQL checks that typ is a type name as format_type prints it
// (words, double-quoted identifiers, '.', numeric modifiers, "[]"), so it
// can be spliced into a cast without any chance of carrying SQL.
func typeNameSQL(typ string) (string, error) {
	s := strings.TrimSpace(typ)
	if s == "" {
		return "", fmt.Errorf("empty type name")
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], '"')
				if k < 0 {
					return "", fmt.Errorf("type name %q: unterminated quoted identifier", typ)
				}
				j += k + 1
				if j < len(s) && s[j] == '"' {
					j++ // doubled quote
					continue
				}
				break
			}
			i = j
		case c == '(':
			k := strings.IndexByte(s[i:], ')')
			if k < 0 {
				return "", fmt.Errorf("type name %q: unterminated modifier", typ)
			}
			for _, m := range strings.Split(s[i+1:i+k], ",") {
				if _, err := strconv.Atoi(strings.TrimSpace(m)); err != nil {
					return "", fmt.Errorf("type name %q: modifier %q is not a number", typ, m)
				}
			}
			i += k + 1
		case c == '[':
			if !strings.HasPrefix(s[i:], "[]") {
				return "", fmt.Errorf("type name %q: bad array suffix", typ)
			}
			i += 2
		case c == '.' || c == ' ' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'):
			i++
		default:
			return "", fmt.Errorf("type name %q: unexpected %q", typ, c)
		}
	}
	return s, nil
}

// BoundaryDigestQuery returns the level-0 query for a table with a
// single-column key, bucketed by sorted boundary key texts: rows (bucket,
// count, Σ H mod 2^64 as text) for the non-empty buckets, ordered by
// bucket; bucket i holds keys in [bounds[i-1], bounds[i]). The bounds must
// be strictly ascending in the mirror's key byte order (rowenc), which is
// the order PostgreSQL compares them in here: the type's own order for
// ints, numeric, dates, timestamps, uuid and bytea, COLLATE "C" text order
// otherwise.
func BoundaryDigestQuery(t Table, hash rowhash.ID, bounds []string) (string, error) {
	return boundaryDigestQuery(t, hash, bounds, "")
}

// boundaryDigestQuery is BoundaryDigestQuery over the rows that satisfy
// where (a predicate on the table aliased src; "" for all).
func boundaryDigestQuery(t Table, hash rowhash.ID, bounds []string, where string) (string, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	if len(t.Key) != 1 {
		return "", fmt.Errorf("table %s: boundary buckets need a single-column key (use hash buckets)", t.Ident())
	}
	if len(bounds) == 0 {
		return "", fmt.Errorf("table %s: no bucket boundaries", t.Ident())
	}
	kc := t.Columns[t.Key[0]]
	codec, err := rowenc.NewKeyCodec(rowenc.KindForType(kc.Type))
	if err != nil {
		return "", err
	}
	var prev []byte
	lits := make([]string, len(bounds))
	for i, b := range bounds {
		k, err := codec.Encode(b)
		if err != nil {
			return "", fmt.Errorf("table %s: bound %d: %w", t.Ident(), i, err)
		}
		if i > 0 && string(prev) >= string(k) {
			return "", fmt.Errorf("table %s: bounds not strictly ascending at %d (%q)", t.Ident(), i, b)
		}
		prev = k
		if lits[i], err = QuoteLiteral(b); err != nil {
			return "", fmt.Errorf("table %s: bound %d: %w", t.Ident(), i, err)
		}
	}
	elemType := "text"
	if nativeOrder(kc) {
		if elemType, err = typeNameSQL(kc.Type); err != nil {
			return "", fmt.Errorf("table %s: key column %q: %w", t.Ident(), kc.Name, err)
		}
	}
	src := rowSource{t: t, extras: []string{
		fmt.Sprintf("pg_catalog.width_bucket(%s, ARRAY[%s]::%s[])", keyOperand(kc), strings.Join(lits, ", "), elemType),
	}, where: where}
	return fmt.Sprintf("SELECT %s, count(*), %s FROM %s GROUP BY 1 ORDER BY 1",
		src.extra(0), digestSumSQL(src.rowHash(hash)), src.sql()), nil
}

// BoundaryBucket returns the boundary bucket of an encoded key given the
// encoded bounds (ascending): the number of bounds ≤ key. It is the Go
// side of BoundaryDigestQuery.
func BoundaryBucket(key []byte, encBounds [][]byte) int {
	lo, hi := 0, len(encBounds)
	for lo < hi {
		m := (lo + hi) / 2
		if string(encBounds[m]) <= string(key) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// maxHashBucketBits bounds hash buckets to 2^24 (16M): beyond that the
// digests outweigh the rows.
const maxHashBucketBits = 24

func hashBucketMask(bits int) (uint64, error) {
	if bits < 0 || bits > maxHashBucketBits {
		return 0, fmt.Errorf("hash bucket bits %d: want 0..%d", bits, maxHashBucketBits)
	}
	return 1<<uint(bits) - 1, nil
}

// hashBucketSQL is the SQL of HashBucket over src's key texts.
func hashBucketSQL(src rowSource, hash rowhash.ID, mask uint64) string {
	return fmt.Sprintf("(%s & %d)", hash.SQL(encodingSQL(src.keyTexts())), mask)
}

// HashBucket returns the hash bucket of a key given as its column texts:
// the low bits of hash.Sum(vrow1 of the texts). It is the Go side of
// HashBucketDigestQuery.
func HashBucket(hash rowhash.ID, keyTexts [][]byte, bits int) (uint64, error) {
	mask, err := hashBucketMask(bits)
	if err != nil {
		return 0, err
	}
	return hash.Sum(rowenc.Encode(keyTexts)) & mask, nil
}

// HashBucketDigestQuery returns the level-0 query over 2^bits hash
// buckets: rows (bucket, count, Σ H mod 2^64 as text) for the non-empty
// buckets, ordered by bucket.
func HashBucketDigestQuery(t Table, hash rowhash.ID, bits int) (string, error) {
	return hashBucketDigestQuery(t, hash, bits, "")
}

// hashBucketDigestQuery is HashBucketDigestQuery over the rows that
// satisfy where (a predicate on the table aliased src; "" for all).
func hashBucketDigestQuery(t Table, hash rowhash.ID, bits int, where string) (string, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	mask, err := hashBucketMask(bits)
	if err != nil {
		return "", fmt.Errorf("table %s: %w", t.Ident(), err)
	}
	src := rowSource{t: t, where: where}
	return fmt.Sprintf("SELECT %s, count(*), %s FROM %s GROUP BY 1 ORDER BY 1",
		hashBucketSQL(src, hash, mask), digestSumSQL(src.rowHash(hash)), src.sql()), nil
}

// HashBucketRowsQuery returns the leaf query for hash buckets: key texts
// and row hash of every row in the given buckets, ordered by key (in the
// mirror's byte order, as RangeHashQuery). It scans the table.
func HashBucketRowsQuery(t Table, hash rowhash.ID, bits int, buckets []uint64) (string, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	mask, err := hashBucketMask(bits)
	if err != nil {
		return "", fmt.Errorf("table %s: %w", t.Ident(), err)
	}
	if len(buckets) == 0 {
		return "", errors.New("no buckets")
	}
	list := make([]string, len(buckets))
	for i, b := range buckets {
		if b > mask {
			return "", fmt.Errorf("table %s: bucket %d out of range for %d bits", t.Ident(), b, bits)
		}
		list[i] = strconv.FormatUint(b, 10)
	}
	order := make([]string, len(t.Key))
	for i, k := range t.Key {
		order[i] = keyOperand(t.Columns[k])
	}
	src := rowSource{t: t, extras: order}
	return keyHashSelect(src, hash, fmt.Sprintf("%s IN (%s)", hashBucketSQL(src, hash, mask), strings.Join(list, ", "))), nil
}
