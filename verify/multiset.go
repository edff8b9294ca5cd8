package verify

import (
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// Verifying a REPLICA IDENTITY FULL table.
//
// The mirror keeps such a table as a multiset of whole rows (see
// rowenc.AppendOccurrenceKey): no key to range over, and the same row may
// occur several times. Its digest is still the multiset's (count, Σ H),
// which PostgreSQL's count(*) and sum(H) compute, so equality needs no
// key at all. To name the differences, level 0 buckets rows by the low
// bits of their own row hash (identical rows fall in one bucket); the
// leaf step reads every row of the dirty buckets on both sides, numbers
// PostgreSQL's identical rows 0..n-1 as the mirror does, and merges the
// two sorted lists: a row that occurs more often in PostgreSQL is
// missing from the mirror (once per occurrence), one that occurs more
// often in the mirror is extra. A changed row shows as one missing and
// one extra row.

// SchemeRowHash: buckets by the low bits of the row hash (REPLICA
// IDENTITY FULL tables, kept as multisets of whole rows).
const SchemeRowHash BucketScheme = "rowhash"

// maxRowHashBucketBits bounds level 0 for multisets: 2^20 buckets cover
// 500M rows at 512 rows per bucket.
const maxRowHashBucketBits = 20

// validateColumns checks what a multiset query needs: columns (no key).
func (t Table) validateColumns() error {
	if len(t.Columns) == 0 {
		return fmt.Errorf("table %s: no published columns", t.Ident())
	}
	return nil
}

// rowHashBucketSQL is the bucket of a row of src: H & mask.
func rowHashBucketSQL(src rowSource, hash rowhash.ID, mask uint64) string {
	return fmt.Sprintf("(%s & %d)", src.rowHash(hash), mask)
}

// rowHashBucketDigestQuery returns the level-0 query of a multiset over
// 2^nbits buckets of the row hash's low bits, over the rows that satisfy
// where (a predicate on the table aliased src; "" for all): rows (bucket,
// count, Σ H mod 2^64 as text) for the non-empty buckets, ordered by
// bucket.
func rowHashBucketDigestQuery(t Table, hash rowhash.ID, nbits int, where string) (string, error) {
	if err := t.validateColumns(); err != nil {
		return "", err
	}
	if nbits < 0 || nbits > maxRowHashBucketBits {
		return "", fmt.Errorf("table %s: row hash bucket bits %d: want 0..%d", t.Ident(), nbits, maxRowHashBucketBits)
	}
	src := rowSource{t: t, where: where}
	return fmt.Sprintf("SELECT %s, count(*), %s FROM %s GROUP BY 1 ORDER BY 1",
		rowHashBucketSQL(src, hash, 1<<uint(nbits)-1), digestSumSQL(src.rowHash(hash)), src.sql()), nil
}

// RowHashBucketRowsQuery returns the leaf query of a multiset: every
// column's text, then the row hash, of every row in the given row hash
// buckets. It scans the table.
func RowHashBucketRowsQuery(t Table, hash rowhash.ID, nbits int, buckets []uint64) (string, error) {
	if err := t.validateColumns(); err != nil {
		return "", err
	}
	if nbits < 0 || nbits > maxRowHashBucketBits {
		return "", fmt.Errorf("table %s: row hash bucket bits %d: want 0..%d", t.Ident(), nbits, maxRowHashBucketBits)
	}
	if len(buckets) == 0 {
		return "", fmt.Errorf("table %s: no buckets", t.Ident())
	}
	mask := uint64(1)<<uint(nbits) - 1
	list := make([]string, len(buckets))
	for i, b := range buckets {
		if b > mask {
			return "", fmt.Errorf("table %s: bucket %d out of range for %d bits", t.Ident(), b, nbits)
		}
		list[i] = strconv.FormatUint(b, 10)
	}
	src := rowSource{t: t}
	texts := make([]string, len(t.Columns))
	for i := range texts {
		texts[i] = src.text(i)
	}
	return fmt.Sprintf("SELECT %s, %s FROM %s WHERE %s IN (%s)", strings.Join(texts, ", "), src.rowHash(hash), src.sql(),
		rowHashBucketSQL(src, hash, mask), strings.Join(list, ", ")), nil
}

// fetchMultisetRows runs a RowHashBucketRowsQuery and returns its rows
// keyed as the mirror keys a multiset: each row's vrow1 followed by its
// occurrence number, identical rows numbered 0..n-1, sorted by key.
func fetchMultisetRows(ctx context.Context, conn *pgconn.PgConn, ncol int, query string) ([]KeyHash, error) {
	rows, err := simpleQuery(ctx, conn, query)
	if err != nil {
		return nil, fmt.Errorf("row hashes: %w", err)
	}
	out := make([]KeyHash, 0, len(rows))
	for _, r := range rows {
		if len(r) != ncol+1 {
			return nil, fmt.Errorf("row hashes: %d columns, want %d", len(r), ncol+1)
		}
		h, err := strconv.ParseInt(string(r[ncol]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("row hashes: hash %q: %w", r[ncol], err)
		}
		vals := make([][]byte, ncol)
		for i, v := range r[:ncol] {
			if v != nil {
				vals[i] = append([]byte{}, v...)
			}
		}
		out = append(out, KeyHash{Key: rowenc.Encode(vals), Hash: uint64(h)})
	}
	slices.SortFunc(out, func(a, b KeyHash) int { return bytes.Compare(a.Key, b.Key) })
	var n uint32
	for i := range out {
		if i > 0 && bytes.Equal(out[i].Key, out[i-1].Key[:len(out[i-1].Key)-rowenc.OccurrenceLen]) {
			n++
		} else {
			n = 0
		}
		out[i].Key = rowenc.AppendOccurrenceKey(out[i].Key, nil, n)
	}
	return out, nil
}

// VerifyMultiset compares a REPLICA IDENTITY FULL table t in PostgreSQL,
// read through conn (at the mirror's LSN), with the mirror's multiset of
// its rows: level 0 buckets both sides by the row hash's low bits (on
// workers too, as VerifyTableParallel, for a large table); when the
// whole-table digests are equal, that is the whole run. Otherwise the
// dirty buckets' rows are read on both sides and merged (see above). The
// Diffs' Key is the mirror's multiset key (rowenc.SplitOccurrenceKey
// gives the row's vrow1); Texts is nil.
func VerifyMultiset(ctx context.Context, conn *pgconn.PgConn, workers []*pgconn.PgConn, t Table, m MirrorTable, opts Options) (Result, error) {
	opts = opts.withDefaults()
	res := Result{Table: t, Hash: m.Hash(), Workers: 1, Scheme: SchemeRowHash}
	if err := t.validateColumns(); err != nil {
		return res, err
	}
	if err := SelfTest(ctx, conn, res.Hash); err != nil {
		return res, fmt.Errorf("verify %s: the mirror's digests use %v, which this server does not reproduce: %w", t.Ident(), res.Hash, err)
	}
	n, err := m.Count(ctx)
	if err != nil {
		return res, fmt.Errorf("verify %s: mirror row count: %w", t.Ident(), err)
	}
	buckets := max(1, int(n)/opts.BucketRows)
	nbits := min(bits.Len(uint(buckets-1)), maxRowHashBucketBits)
	res.Buckets = 1 << nbits
	var l0 level0 = serialLevel0{conn}
	if len(workers) > 1 && n >= opts.ParallelRows && canSplit(workers[0]) {
		l0 = parallelLevel0{workers}
		res.Workers = len(workers)
	}
	if err := verifyMultiset(ctx, conn, l0, t, m, nbits, &res); err != nil {
		return res, fmt.Errorf("verify %s: %w", t.Ident(), err)
	}
	return res, nil
}

func verifyMultiset(ctx context.Context, conn *pgconn.PgConn, l0 level0, t Table, m MirrorTable, nbits int, res *Result) error {
	pgDigests, err := l0.digests(ctx, t, func(where string) (string, error) {
		return rowHashBucketDigestQuery(t, res.Hash, nbits, where)
	})
	if err != nil {
		return err
	}
	total, err := m.Digest(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("mirror digest: %w", err)
	}
	if res.PG, res.Mirror = sumDigests(pgDigests), total; res.PG == res.Mirror {
		return nil
	}
	mask := uint64(1)<<uint(nbits) - 1
	mirrorDigests := map[int64]rowhash.Digest{}
	if err := m.KeyHashes(ctx, nil, nil, func(_ []byte, h uint64) error {
		b := int64(h & mask)
		mirrorDigests[b] = mirrorDigests[b].Add(h)
		return nil
	}); err != nil {
		return fmt.Errorf("mirror scan: %w", err)
	}
	dirty, leafDone := settleLevel0(res, pgDigests, mirrorDigests)
	defer leafDone()
	if len(dirty) == 0 {
		return nil
	}
	restore, err := jitOff(ctx, conn)
	if err != nil {
		return err
	}
	defer restore()
	want, list := bucketSet(dirty)
	slices.Sort(list)
	var mirrorRows []KeyHash
	if err := m.KeyHashes(ctx, nil, nil, func(key []byte, h uint64) error {
		if want[h&mask] {
			mirrorRows = append(mirrorRows, KeyHash{Key: slices.Clone(key), Hash: h})
		}
		return nil
	}); err != nil {
		return fmt.Errorf("mirror scan: %w", err)
	}
	q, err := RowHashBucketRowsQuery(t, res.Hash, nbits, list)
	if err != nil {
		return err
	}
	pgRows, err := fetchMultisetRows(ctx, conn, len(t.Columns), q)
	if err != nil {
		return err
	}
	res.Diffs = DiffKeyHashes(pgRows, mirrorRows)
	return nil
}

// describeMultiset fills tr.Rows with the first maxRows differences of a
// multiset: each is one occurrence of a whole row, missing from the
// mirror or extra in it; its key lists the row's column texts (NULL
// printed as NULL), and the side that holds it has the row exactly.
func describeMultiset(diffs []RowDiff, maxRows int, tr *TableReport) error {
	for _, d := range diffs[:min(len(diffs), maxRows)] {
		row, _, err := rowenc.SplitOccurrenceKey(d.Key)
		if err != nil {
			return err
		}
		vals, err := rowenc.Decode(row)
		if err != nil {
			return fmt.Errorf("row %x: %w", row, err)
		}
		texts := textsOf(vals)
		rd := RowDifference{Kind: d.Kind.String(), Key: make([]string, len(texts))}
		for i, v := range texts {
			rd.Key[i] = "NULL"
			if v != nil {
				rd.Key[i] = *v
			}
		}
		switch d.Kind {
		case Missing:
			rd.Postgres = texts
		case Extra:
			rd.Mirror = texts
		default:
			rd.Postgres, rd.Mirror = texts, texts
		}
		tr.Rows = append(tr.Rows, rd)
	}
	return nil
}
