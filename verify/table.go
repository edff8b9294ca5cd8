package verify

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// MirrorTable is the mirror's side of one table, at the version that
// corresponds to the pinned LSN. Keys are rowenc keys; ranges are [lo, hi)
// in byte order, nil meaning unbounded. The Prolly tree serves Digest in
// O(height) from the (count, Σ H) kept in its internal entries and Bounds
// from its node boundaries, so verify never re-hashes the mirror's rows
// except for the (few) dirty buckets, or for hash buckets.
type MirrorTable interface {
	// Hash is the row hash the mirror's digests are kept under.
	Hash() rowhash.ID
	// Count is the number of rows.
	Count(ctx context.Context) (uint64, error)
	// Bounds returns at most n strictly ascending keys that split the
	// table into parts of roughly equal row counts (quantiles); fewer, or
	// none, for a small table.
	Bounds(ctx context.Context, n int) ([][]byte, error)
	// Digest returns (count, Σ H mod 2^64) of the rows in [lo, hi).
	Digest(ctx context.Context, lo, hi []byte) (rowhash.Digest, error)
	// KeyHashes calls fn with the key and row hash of every row in
	// [lo, hi), in key order. key is valid only during the call.
	KeyHashes(ctx context.Context, lo, hi []byte, fn func(key []byte, h uint64) error) error
}

// Options tune VerifyTable. The zero value is the default.
type Options struct {
	// BucketRows is the target number of rows per level-0 bucket
	// (default 512: verify.md measured no extra PostgreSQL cost at level 0
	// against 4096, and a dirty bucket costs ≈0.6 ms to fetch).
	BucketRows int
	// MaxRangesPerQuery bounds the key ranges OR-ed in one leaf query
	// (default 500).
	MaxRangesPerQuery int
	// NoFixedWidth makes integer keys use boundary buckets too.
	NoFixedWidth bool
	// ParallelRows is the mirror row count from which VerifyTableParallel
	// splits level 0 over its workers (default DefaultParallelRows).
	ParallelRows uint64
}

func (o Options) withDefaults() Options {
	if o.BucketRows <= 0 {
		o.BucketRows = 512
	}
	if o.MaxRangesPerQuery <= 0 {
		o.MaxRangesPerQuery = 500
	}
	if o.ParallelRows == 0 {
		o.ParallelRows = DefaultParallelRows
	}
	return o
}

// BucketScheme names how level 0 split the table.
type BucketScheme string

const (
	// SchemeBoundary: key ranges between quantile keys of the mirror
	// (single-column keys).
	SchemeBoundary BucketScheme = "boundary"
	// SchemeHash: buckets by a hash of the key (composite keys).
	SchemeHash BucketScheme = "hash"
	// SchemeFixed: fixed-width ranges of an integer key, floor(key/w).
	SchemeFixed BucketScheme = "fixed"
)

// Result is the outcome of verifying one table.
type Result struct {
	Table Table
	// Hash is the row hash both sides used.
	Hash rowhash.ID
	// PG and Mirror are the whole-table digests.
	PG, Mirror rowhash.Digest
	// Scheme and Buckets describe level 0; Dirty counts the buckets whose
	// digests differed.
	Scheme  BucketScheme
	Buckets int
	Dirty   int
	// Diffs are the differing keys, in key order.
	Diffs []RowDiff
	// Workers is the number of connections level 0 ran on: 1 for the
	// serial scan, more when VerifyTableParallel split it.
	Workers int
	// LeafTime is the wall time of the leaf step: (key, hash) of the dirty
	// buckets on both sides and their merge (zero when none is dirty).
	LeafTime time.Duration
}

// Equal reports whether the table verified equal.
func (r Result) Equal() bool { return len(r.Diffs) == 0 && r.PG == r.Mirror }

// VerifyTable compares table t in PostgreSQL, read through conn (normally
// Pinned.Conn, so that PostgreSQL is at the mirror's LSN), with the mirror:
// one PostgreSQL scan grouped into buckets, the mirror's digests of the
// same buckets, then (key, hash) for the dirty buckets on both sides,
// merged into missing, extra and changed keys.
//
// The mirror's hash must pass the server's self-test; it is checked here,
// since the mirror cannot switch hashes without re-hashing every row.
func VerifyTable(ctx context.Context, conn *pgconn.PgConn, t Table, m MirrorTable, opts Options) (Result, error) {
	return VerifyTableParallel(ctx, conn, nil, t, m, opts)
}

// VerifyTableParallel is VerifyTable with level 0 split over workers,
// connections in the same snapshot as conn (OpenWorkers), when there are
// at least two, the mirror holds at least opts.ParallelRows rows and the
// server has TID range scans (PostgreSQL ≥ 14); see parallel.go. The
// digests, and so the result, are those of the serial scan. Everything
// after level 0 runs on conn.
func VerifyTableParallel(ctx context.Context, conn *pgconn.PgConn, workers []*pgconn.PgConn, t Table, m MirrorTable, opts Options) (Result, error) {
	opts = opts.withDefaults()
	res := Result{Table: t, Hash: m.Hash(), Workers: 1}
	if err := t.Validate(); err != nil {
		return res, err
	}
	if err := SelfTest(ctx, conn, res.Hash); err != nil {
		return res, fmt.Errorf("verify %s: the mirror's digests use %v, which this server does not reproduce: %w", t.Ident(), res.Hash, err)
	}
	codec, err := rowenc.NewKeyCodec(t.KeyKinds()...)
	if err != nil {
		return res, fmt.Errorf("verify %s: %w", t.Ident(), err)
	}
	n, err := m.Count(ctx)
	if err != nil {
		return res, fmt.Errorf("verify %s: mirror row count: %w", t.Ident(), err)
	}
	buckets := max(1, int(n)/opts.BucketRows)
	var l0 level0 = serialLevel0{conn}
	if len(workers) > 1 && n >= opts.ParallelRows && canSplit(workers[0]) {
		l0 = parallelLevel0{workers}
		res.Workers = len(workers)
	}
	rd, fixed := m.(RangeDigester)
	if _, ierr := integerKey(t); ierr != nil || opts.NoFixedWidth || n == 0 {
		fixed = false
	}
	switch {
	case fixed:
		err = verifyFixedWidth(ctx, conn, l0, t, m, rd, codec, n, opts, &res)
	case len(t.Key) == 1:
		err = verifyBoundary(ctx, conn, l0, t, m, codec, buckets, opts, &res)
	default:
		err = verifyHashBuckets(ctx, conn, l0, t, m, codec, buckets, &res)
	}
	if err != nil {
		return res, fmt.Errorf("verify %s: %w", t.Ident(), err)
	}
	for i := range res.Diffs {
		if res.Diffs[i].Texts == nil {
			texts, err := codec.Decode(res.Diffs[i].Key)
			if err != nil {
				return res, fmt.Errorf("verify %s: mirror key %x: %w", t.Ident(), res.Diffs[i].Key, err)
			}
			res.Diffs[i].Texts = texts
		}
	}
	return res, nil
}

func sumDigests(ds map[int64]rowhash.Digest) rowhash.Digest {
	var total rowhash.Digest
	for _, d := range ds {
		total = total.Combine(d)
	}
	return total
}

func verifyBoundary(ctx context.Context, conn *pgconn.PgConn, l0 level0, t Table, m MirrorTable, codec *rowenc.KeyCodec, buckets int, opts Options, res *Result) error {
	res.Scheme = SchemeBoundary
	var bounds [][]byte
	var mirrorDigests map[int64]rowhash.Digest
	if bd, ok := m.(BucketDigester); ok {
		bs, err := bd.Buckets(ctx, opts.BucketRows)
		if err != nil {
			return fmt.Errorf("mirror buckets: %w", err)
		}
		mirrorDigests = make(map[int64]rowhash.Digest, len(bs))
		for i, b := range bs {
			if i > 0 {
				bounds = append(bounds, b.Lo)
			}
			mirrorDigests[int64(i)] = b.Digest
		}
	} else {
		var err error
		if bounds, err = m.Bounds(ctx, buckets-1); err != nil {
			return fmt.Errorf("mirror bounds: %w", err)
		}
	}
	boundTexts := make([]string, len(bounds))
	for i, b := range bounds {
		if i > 0 && string(bounds[i-1]) >= string(b) {
			return fmt.Errorf("mirror bounds not strictly ascending at %d", i)
		}
		texts, err := codec.Decode(b)
		if err != nil {
			return fmt.Errorf("mirror bound %x: %w", b, err)
		}
		boundTexts[i] = texts[0]
	}
	var pgDigests map[int64]rowhash.Digest
	if len(bounds) == 0 {
		q, err := TableDigestQuery(t, res.Hash)
		if err != nil {
			return err
		}
		d, err := fetchDigest(ctx, conn, q)
		if err != nil {
			return err
		}
		pgDigests = map[int64]rowhash.Digest{0: d}
	} else {
		var err error
		pgDigests, err = l0.digests(ctx, t, func(where string) (string, error) {
			return boundaryDigestQuery(t, res.Hash, boundTexts, where)
		})
		if err != nil {
			return err
		}
	}
	res.Buckets = len(bounds) + 1
	rangeOf := func(b int64) (lo, hi []byte) {
		if b > 0 {
			lo = bounds[b-1]
		}
		if int(b) < len(bounds) {
			hi = bounds[b]
		}
		return lo, hi
	}
	if mirrorDigests == nil {
		mirrorDigests = make(map[int64]rowhash.Digest, res.Buckets)
		for b := range int64(res.Buckets) {
			lo, hi := rangeOf(b)
			d, err := m.Digest(ctx, lo, hi)
			if err != nil {
				return fmt.Errorf("mirror digest of bucket %d: %w", b, err)
			}
			mirrorDigests[b] = d
		}
	}
	for b := range pgDigests {
		if b < 0 || b >= int64(res.Buckets) {
			return fmt.Errorf("PostgreSQL returned bucket %d of %d", b, res.Buckets)
		}
	}
	dirty, leafDone := settleLevel0(res, pgDigests, mirrorDigests)
	defer leafDone()

	// Adjacent dirty buckets become one range. Past a fifth of the
	// buckets dirty, one pass over the whole table is cheaper than many
	// range scans (verify.md §4.3: about 1.3× the level-0 scan).
	spans := dirtySpans(dirty, res.Buckets, bucketSpan{0, int64(res.Buckets - 1)})
	return compareSpans(ctx, conn, t, m, codec, spans, opts.MaxRangesPerQuery, res, func(s bucketSpan) (KeyRange, []byte, []byte, error) {
		lo, _ := rangeOf(s.from)
		_, hi := rangeOf(s.to)
		var r KeyRange
		if lo != nil {
			r.Lo = []string{boundTexts[s.from-1]}
		}
		if hi != nil {
			r.Hi = []string{boundTexts[s.to]}
		}
		return r, lo, hi, nil
	})
}

func verifyHashBuckets(ctx context.Context, conn *pgconn.PgConn, l0 level0, t Table, m MirrorTable, codec *rowenc.KeyCodec, buckets int, res *Result) error {
	res.Scheme = SchemeHash
	nbits := min(bits.Len(uint(buckets-1)), 16)
	res.Buckets = 1 << nbits
	nk := len(t.Key)
	texts := make([][]byte, nk)
	// bucketOf decodes a mirror key into texts and hashes them.
	bucketOf := func(key []byte) (uint64, error) {
		rest := key
		var buf []byte
		for i, kind := range codec.Kinds() {
			var err error
			start := len(buf)
			buf, rest, err = rowenc.DecodeKeyColumn(buf, kind, rest)
			if err != nil {
				return 0, fmt.Errorf("mirror key %x: %w", key, err)
			}
			texts[i] = buf[start:len(buf):len(buf)]
		}
		return HashBucket(res.Hash, texts, nbits)
	}
	mirrorDigests := map[int64]rowhash.Digest{}
	err := m.KeyHashes(ctx, nil, nil, func(key []byte, h uint64) error {
		b, err := bucketOf(key)
		if err != nil {
			return err
		}
		mirrorDigests[int64(b)] = mirrorDigests[int64(b)].Add(h)
		return nil
	})
	if err != nil {
		return fmt.Errorf("mirror scan: %w", err)
	}
	pgDigests, err := l0.digests(ctx, t, func(where string) (string, error) {
		return hashBucketDigestQuery(t, res.Hash, nbits, where)
	})
	if err != nil {
		return err
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
	var mirrorRows []KeyHash
	err = m.KeyHashes(ctx, nil, nil, func(key []byte, h uint64) error {
		b, err := bucketOf(key)
		if err != nil {
			return err
		}
		if want[b] {
			mirrorRows = append(mirrorRows, KeyHash{Key: slices.Clone(key), Hash: h})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("mirror scan: %w", err)
	}
	q, err := HashBucketRowsQuery(t, res.Hash, nbits, list)
	if err != nil {
		return err
	}
	pgRows, err := FetchKeyHashes(ctx, conn, codec, q)
	if err != nil {
		return err
	}
	res.Diffs = DiffKeyHashes(pgRows, mirrorRows)
	return nil
}

// jitOffRanges is the number of key ranges (or keys) above which the
// leaf and row queries run with JIT off; below it their plans cost too
// little for PostgreSQL to compile them, and the two SET round trips
// would be the larger cost.
const jitOffRanges = 20

// jitOff turns PostgreSQL's JIT off for the rest of the transaction and
// returns a function that turns it back to the session's setting. The
// leaf and row queries OR together hundreds of key ranges or keys; JIT
// compiled those predicates for about a second per query (measured on
// 500 ranges: 1.16 s of JIT for 0.7 s of execution), more than the
// queries themselves cost. Outside a transaction SET LOCAL does nothing.
func jitOff(ctx context.Context, conn *pgconn.PgConn) (func(), error) {
	if _, err := conn.Exec(ctx, "SET LOCAL jit = off").ReadAll(); err != nil {
		return nil, fmt.Errorf("turn JIT off for the leaf queries: %w", err)
	}
	return func() { _, _ = conn.Exec(ctx, "SET LOCAL jit TO DEFAULT").ReadAll() }, nil
}

// verifyFixedWidth verifies a table with a single integer key by
// fixed-width buckets floor(key/w), w chosen from the mirror's key range
// and row count so that buckets hold about BucketRows rows: PostgreSQL's
// level 0 is then a division per row (BucketDigestQuery), and the mirror
// digests the same ranges (DigestsBetween) while PostgreSQL scans.
func verifyFixedWidth(ctx context.Context, conn *pgconn.PgConn, l0 level0, t Table, m MirrorTable, rd RangeDigester, codec *rowenc.KeyCodec, n uint64, opts Options, res *Result) error {
	res.Scheme = SchemeFixed
	first, last, err := rd.FirstLast(ctx)
	if err != nil {
		return fmt.Errorf("mirror key range: %w", err)
	}
	lo, hi := int64(0), int64(0)
	if first != nil {
		if lo, err = intKey(codec, first); err != nil {
			return err
		}
		if hi, err = intKey(codec, last); err != nil {
			return err
		}
	}
	// w = ceil(span · BucketRows / n), computed without overflow.
	keySpan := new(big.Int).Sub(big.NewInt(hi), big.NewInt(lo))
	keySpan.Add(keySpan, big.NewInt(1))
	w := int64(1)
	if n > 0 {
		q := new(big.Int).Mul(keySpan, big.NewInt(int64(opts.BucketRows)))
		q.Add(q, new(big.Int).SetUint64(n-1))
		q.Quo(q, new(big.Int).SetUint64(n))
		if q.IsInt64() && q.Int64() > 1 {
			w = q.Int64()
		} else if !q.IsInt64() {
			w = math.MaxInt64
		}
	}
	bmin, bmax := Bucket(lo, w), Bucket(hi, w)
	// Mirror bounds: the first key of each bucket after bmin.
	var bounds [][]byte
	for b := bmin + 1; b <= bmax; b++ {
		k, err := codec.Encode(strconv.FormatInt(b*w, 10))
		if err != nil {
			return fmt.Errorf("bucket %d bound: %w", b, err)
		}
		bounds = append(bounds, k)
	}
	res.Buckets = len(bounds) + 1
	var mirrorList []rowhash.Digest
	var mirrorErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		mirrorList, mirrorErr = rd.DigestsBetween(ctx, bounds)
	}()
	pgDigests, err := l0.digests(ctx, t, func(where string) (string, error) {
		return clampedBucketDigestQuery(t, res.Hash, w, bmin, bmax, where)
	})
	<-done
	if err != nil {
		return err
	}
	if mirrorErr != nil {
		return fmt.Errorf("mirror digests: %w", mirrorErr)
	}
	mirrorDigests := make(map[int64]rowhash.Digest, len(mirrorList))
	for i, d := range mirrorList {
		mirrorDigests[bmin+int64(i)] = d
	}
	dirty, leafDone := settleLevel0(res, pgDigests, mirrorDigests)
	defer leafDone()
	if len(dirty) == 0 {
		return nil
	}
	// Key range of bucket b: [b·w, (b+1)·w), open where that leaves int64.
	keyRange := func(s bucketSpan) (KeyRange, []byte, []byte, error) {
		from, to := s.from, s.to
		var r KeyRange
		var loKey, hiKey []byte
		var err error
		// The first and last buckets are open-ended (the clamp).
		if l, ok := mulOK(from, w); ok && from > bmin {
			r.Lo = []string{strconv.FormatInt(l, 10)}
			if loKey, err = codec.Encode(r.Lo[0]); err != nil {
				return r, nil, nil, err
			}
		}
		if h, ok := mulOK(to+1, w); ok && to < bmax {
			r.Hi = []string{strconv.FormatInt(h, 10)}
			if hiKey, err = codec.Encode(r.Hi[0]); err != nil {
				return r, nil, nil, err
			}
		}
		return r, loKey, hiKey, nil
	}
	spans := dirtySpans(dirty, res.Buckets, bucketSpan{dirty[0], dirty[len(dirty)-1]})
	return compareSpans(ctx, conn, t, m, codec, spans, opts.MaxRangesPerQuery, res, keyRange)
}

// settleLevel0 records level 0's outcome in res (both sides' totals and
// the number of dirty buckets) and starts the leaf step: it returns the
// dirty buckets, ascending, and a function to defer that sets res.LeafTime
// when any bucket is dirty.
// bucketSet returns the dirty hash buckets as a set and as a list.
func bucketSet(dirty []int64) (map[uint64]bool, []uint64) {
	want := make(map[uint64]bool, len(dirty))
	list := make([]uint64, len(dirty))
	for i, b := range dirty {
		want[uint64(b)], list[i] = true, uint64(b)
	}
	return want, list
}

func settleLevel0(res *Result, pg, mirror map[int64]rowhash.Digest) ([]int64, func()) {
	res.PG, res.Mirror = sumDigests(pg), sumDigests(mirror)
	dirty := DirtyBuckets(pg, mirror)
	res.Dirty = len(dirty)
	leafStart := time.Now()
	return dirty, func() {
		if res.Dirty > 0 {
			res.LeafTime = time.Since(leafStart)
		}
	}
}

// compareSpans is the leaf step of the range schemes (boundary and
// fixed-width buckets): at most maxPerQuery spans per PostgreSQL query,
// which hashes the rows in their key ranges, against the mirror's rows in
// the same ranges; the differing keys are appended to res.Diffs. keyRange
// gives a span's key range twice, as key texts for the SQL and as mirror
// keys; a missing bound is open.
func compareSpans(ctx context.Context, conn *pgconn.PgConn, t Table, m MirrorTable, codec *rowenc.KeyCodec, spans []bucketSpan, maxPerQuery int, res *Result,
	keyRange func(bucketSpan) (r KeyRange, lo, hi []byte, err error)) error {
	if len(spans) > jitOffRanges {
		restore, err := jitOff(ctx, conn)
		if err != nil {
			return err
		}
		defer restore()
	}
	for chunk := range slices.Chunk(spans, maxPerQuery) {
		var ranges []KeyRange
		var mirrorRows []KeyHash
		for _, s := range chunk {
			r, lo, hi, err := keyRange(s)
			if err != nil {
				return err
			}
			ranges = append(ranges, r)
			err = m.KeyHashes(ctx, lo, hi, func(key []byte, h uint64) error {
				mirrorRows = append(mirrorRows, KeyHash{Key: slices.Clone(key), Hash: h})
				return nil
			})
			if err != nil {
				return fmt.Errorf("mirror key hashes: %w", err)
			}
		}
		q, err := RangeHashQuery(t, res.Hash, ranges)
		if err != nil {
			return err
		}
		pgRows, err := FetchKeyHashes(ctx, conn, codec, q)
		if err != nil {
			return err
		}
		res.Diffs = append(res.Diffs, DiffKeyHashes(pgRows, mirrorRows)...)
	}
	return nil
}

// mulOK returns a·b and whether it fits in an int64.
func mulOK(a, b int64) (int64, bool) {
	p := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	return p.Int64(), p.IsInt64()
}

// intKey decodes a single-column integer key.
func intKey(codec *rowenc.KeyCodec, key []byte) (int64, error) {
	texts, err := codec.Decode(key)
	if err != nil {
		return 0, fmt.Errorf("mirror key %x: %w", key, err)
	}
	v, err := strconv.ParseInt(texts[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("mirror key %x: %w", key, err)
	}
	return v, nil
}

// bucketSpan is the buckets [from, to].
type bucketSpan struct{ from, to int64 }

// dirtySpans merges adjacent dirty buckets (sorted) into spans. Past a
// fifth of the buckets dirty, one pass over whole is cheaper than many
// range scans (verify.md §4.3: about 1.3× the level-0 scan).
func dirtySpans(dirty []int64, buckets int, whole bucketSpan) []bucketSpan {
	if len(dirty)*5 > buckets {
		return []bucketSpan{whole}
	}
	var spans []bucketSpan
	for _, b := range dirty {
		if len(spans) > 0 && spans[len(spans)-1].to == b-1 {
			spans[len(spans)-1].to = b
		} else {
			spans = append(spans, bucketSpan{b, b})
		}
	}
	return spans
}
