package verify

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// mirrorRow is the test's stand-in for the mirror: rows as the sidecar
// stores them (key, vrow1 value).
type mirrorRow struct {
	key   []byte
	texts []string
	value []byte
}

func loadMirror(t *testing.T, conn *pgconn.PgConn, tbl Table, codec *rowenc.KeyCodec) []mirrorRow {
	t.Helper()
	var out []mirrorRow
	for _, r := range copyRows(t, conn, "SELECT * FROM "+tbl.Ident()) {
		kt := make([][]byte, len(tbl.Key))
		texts := make([]string, len(tbl.Key))
		for i, k := range tbl.Key {
			kt[i], texts[i] = r[k], string(r[k])
		}
		key, err := codec.Append(nil, kt)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, mirrorRow{key, texts, rowenc.Encode(r)})
	}
	slices.SortFunc(out, func(a, b mirrorRow) int { return bytes.Compare(a.key, b.key) })
	return out
}

// TestBisectionFindsCorruptedRows runs the verify protocol in miniature
// against a corrupted copy of a table: level-0 bucket digests on both
// sides, the dirty buckets, the (key, hash) leaf query for those buckets,
// and the merge, which must name exactly the changed, missing and extra
// keys.
func TestBisectionFindsCorruptedRows(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	mustExec(t, conn, `CREATE TABLE orders (id int4 PRIMARY KEY, customer text, total numeric(10,2), placed timestamptz);
INSERT INTO orders SELECT i, 'c' || (i % 97), (i * 1.37)::numeric(10,2), '2026-01-01'::timestamptz + i * interval '1 minute'
  FROM generate_series(1, 3000) i;`)
	tbl, err := LoadTable(t.Context(), conn, "public", "orders")
	if err != nil {
		t.Fatal(err)
	}
	codec, err := rowenc.NewKeyCodec(tbl.KeyKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	mirror := loadMirror(t, conn, tbl, codec)
	// Corrupt the mirror: change row 1500, drop row 10, invent row 5000.
	for i := range mirror {
		if mirror[i].texts[0] == "1500" {
			vals, _ := rowenc.Decode(mirror[i].value)
			vals[2] = []byte("0.00")
			mirror[i].value = rowenc.Encode(vals)
		}
	}
	mirror = slices.DeleteFunc(mirror, func(r mirrorRow) bool { return r.texts[0] == "10" })
	extraKey, _ := codec.Encode("5000")
	mirror = append(mirror, mirrorRow{extraKey, []string{"5000"}, rowenc.Encode([][]byte{[]byte("5000"), nil, nil, nil})})

	const width = 512
	hash := rowhash.PGHash64
	q, err := BucketDigestQuery(tbl, hash, width)
	if err != nil {
		t.Fatal(err)
	}
	pgDigests, err := FetchDigests(t.Context(), conn, q)
	if err != nil {
		t.Fatal(err)
	}
	mirrorDigests := map[int64]rowhash.Digest{}
	for _, r := range mirror {
		pk, _ := strconv.ParseInt(r.texts[0], 10, 64)
		b := Bucket(pk, width)
		mirrorDigests[b] = mirrorDigests[b].Add(hash.Sum(r.value))
	}
	dirty := DirtyBuckets(pgDigests, mirrorDigests)
	if want := []int64{0, 2, 9}; !slices.Equal(dirty, want) {
		t.Fatalf("dirty buckets %v, want %v", dirty, want)
	}

	var ranges []KeyRange
	for _, b := range dirty {
		ranges = append(ranges, KeyRange{Lo: []string{strconv.FormatInt(b*width, 10)}, Hi: []string{strconv.FormatInt((b+1)*width, 10)}})
	}
	q, err = RangeHashQuery(tbl, hash, ranges)
	if err != nil {
		t.Fatal(err)
	}
	pgRows, err := FetchKeyHashes(t.Context(), conn, codec, q)
	if err != nil {
		t.Fatal(err)
	}
	var mirrorRows []KeyHash
	for _, r := range mirror {
		pk, _ := strconv.ParseInt(r.texts[0], 10, 64)
		if slices.Contains(dirty, Bucket(pk, width)) {
			mirrorRows = append(mirrorRows, KeyHash{Key: r.key, Texts: r.texts, Hash: hash.Sum(r.value)})
		}
	}
	slices.SortFunc(mirrorRows, func(a, b KeyHash) int { return bytes.Compare(a.Key, b.Key) })
	var got []string
	for _, d := range DiffKeyHashes(pgRows, mirrorRows) {
		got = append(got, fmt.Sprintf("%s %s", d.Kind, d.Texts[0]))
	}
	if want := []string{"missing 10", "changed 1500", "extra 5000"}; !slices.Equal(got, want) {
		t.Fatalf("differences %v, want %v", got, want)
	}
}

// TestBoundaryAndHashBuckets: boundary buckets (single-column keys of
// several types, bounds from the mirror's sorted keys) and hash buckets
// (a composite key in a linguistic collation) give the same digests in
// PostgreSQL and in Go, and the hash-bucket leaf query returns the rows of
// exactly the asked buckets.
func TestBoundaryAndHashBuckets(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	mustExec(t, conn, `
CREATE TABLE by_text (k text COLLATE "en-x-icu" PRIMARY KEY, v int);
INSERT INTO by_text SELECT (ARRAY['a','B','b','A','_','é','e'])[1 + i % 7] || md5(i::text), i FROM generate_series(1, 2000) i;
CREATE TABLE by_uuid (k uuid PRIMARY KEY, v int);
INSERT INTO by_uuid SELECT md5(i::text)::uuid, i FROM generate_series(1, 2000) i;
CREATE TABLE by_num (k numeric PRIMARY KEY, v int);
INSERT INTO by_num SELECT round(hashint4(i)::numeric / 1000, i % 5), i FROM generate_series(1, 2000) i ON CONFLICT DO NOTHING;
CREATE TABLE by_ts (k timestamptz PRIMARY KEY, v int);
INSERT INTO by_ts SELECT '2026-01-01'::timestamptz + hashint4(i) * interval '1 ms', i FROM generate_series(1, 2000) i ON CONFLICT DO NOTHING;
CREATE TABLE by_bpchar (k char(3) PRIMARY KEY, v int);
INSERT INTO by_bpchar SELECT chr(97 + i % 3) || (ARRAY[' ', E'\t', 'b'])[1 + i / 3 % 3] || (ARRAY['', 'x', E'\n'])[1 + i / 9 % 3], i
  FROM generate_series(0, 26) i ON CONFLICT DO NOTHING;
CREATE TYPE color AS ENUM ('red', 'green', 'blue');
CREATE TABLE by_enum (k color PRIMARY KEY, v int);
INSERT INTO by_enum VALUES ('red', 1), ('green', 2), ('blue', 3);
CREATE TABLE by_comp (k1 text COLLATE "en-x-icu", k2 int8, v text, PRIMARY KEY (k1, k2));
INSERT INTO by_comp SELECT (ARRAY['a','B','b','A'])[1 + i % 4], i / 4, md5(i::text) FROM generate_series(1, 2000) i;`)
	hash := rowhash.PGHash64
	for _, name := range []string{"by_text", "by_uuid", "by_num", "by_ts", "by_enum", "by_bpchar"} {
		t.Run(name, func(t *testing.T) {
			tbl, err := LoadTable(t.Context(), conn, "public", name)
			if err != nil {
				t.Fatal(err)
			}
			codec, _ := rowenc.NewKeyCodec(tbl.KeyKinds()...)
			mirror := loadMirror(t, conn, tbl, codec)
			// Quantile bounds from the mirror's sorted keys, including the
			// first key (bucket 0 then holds nothing).
			var bounds []string
			var encBounds [][]byte
			for i := 0; i < len(mirror); i += max(1, len(mirror)/17) {
				bounds = append(bounds, mirror[i].texts[0])
				encBounds = append(encBounds, mirror[i].key)
			}
			want := map[int64]rowhash.Digest{}
			for _, r := range mirror {
				b := int64(BoundaryBucket(r.key, encBounds))
				want[b] = want[b].Add(hash.Sum(r.value))
			}
			q, err := BoundaryDigestQuery(tbl, hash, bounds)
			if err != nil {
				t.Fatal(err)
			}
			got, err := FetchDigests(t.Context(), conn, q)
			if err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
			if d := DirtyBuckets(got, want); len(d) != 0 {
				t.Fatalf("buckets %v differ between PostgreSQL and Go (%d vs %d buckets)\n%s", d, len(got), len(want), q)
			}
		})
	}
	t.Run("hash buckets", func(t *testing.T) {
		tbl, err := LoadTable(t.Context(), conn, "public", "by_comp")
		if err != nil {
			t.Fatal(err)
		}
		codec, _ := rowenc.NewKeyCodec(tbl.KeyKinds()...)
		mirror := loadMirror(t, conn, tbl, codec)
		const bits = 6
		want := map[int64]rowhash.Digest{}
		byBucket := map[uint64][]KeyHash{}
		for _, r := range mirror {
			b, err := HashBucket(hash, [][]byte{[]byte(r.texts[0]), []byte(r.texts[1])}, bits)
			if err != nil {
				t.Fatal(err)
			}
			want[int64(b)] = want[int64(b)].Add(hash.Sum(r.value))
			byBucket[b] = append(byBucket[b], KeyHash{Key: r.key, Texts: r.texts, Hash: hash.Sum(r.value)})
		}
		q, err := HashBucketDigestQuery(tbl, hash, bits)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FetchDigests(t.Context(), conn, q)
		if err != nil {
			t.Fatal(err)
		}
		if d := DirtyBuckets(got, want); len(d) != 0 || len(got) < 1<<bits-2 {
			t.Fatalf("hash buckets %v differ (%d buckets in PostgreSQL)", d, len(got))
		}
		ask := []uint64{3, 17, 42}
		q, err = HashBucketRowsQuery(tbl, hash, bits, ask)
		if err != nil {
			t.Fatal(err)
		}
		pgRows, err := FetchKeyHashes(t.Context(), conn, codec, q)
		if err != nil {
			t.Fatal(err)
		}
		var wantRows []KeyHash
		for _, b := range ask {
			wantRows = append(wantRows, byBucket[b]...)
		}
		slices.SortFunc(wantRows, func(a, b KeyHash) int { return bytes.Compare(a.Key, b.Key) })
		if d := DiffKeyHashes(pgRows, wantRows); len(d) != 0 || len(pgRows) != len(wantRows) {
			t.Fatalf("hash-bucket rows differ: %d diffs, %d vs %d rows", len(d), len(pgRows), len(wantRows))
		}
	})
}

func TestDiffKeyHashes(t *testing.T) {
	kh := func(k string, h uint64) KeyHash { return KeyHash{Key: []byte(k), Texts: []string{k}, Hash: h} }
	pgRows := []KeyHash{kh("a", 1), kh("b", 2), kh("d", 4), kh("e", 5)}
	mirror := []KeyHash{kh("b", 2), kh("c", 3), kh("d", 40), kh("f", 6)}
	var got []string
	for _, d := range DiffKeyHashes(pgRows, mirror) {
		got = append(got, d.Kind.String()+" "+d.Texts[0])
	}
	want := []string{"missing a", "extra c", "changed d", "missing e", "extra f"}
	if !slices.Equal(got, want) {
		t.Fatalf("DiffKeyHashes = %v, want %v", got, want)
	}
	if d := DiffKeyHashes(pgRows, pgRows); len(d) != 0 {
		t.Fatalf("equal lists differ: %v", d)
	}
	if d := DirtyBuckets(map[int64]rowhash.Digest{1: {Count: 1, Sum: 5}, 2: {Count: 1, Sum: 6}}, map[int64]rowhash.Digest{1: {Count: 1, Sum: 5}, 3: {Count: 1, Sum: 1}, 4: {}}); !slices.Equal(d, []int64{2, 3}) {
		t.Fatalf("DirtyBuckets = %v", d)
	}
}

func TestTypeNameSQL(t *testing.T) {
	good := []string{"integer", "numeric(12,2)", "timestamp(3) with time zone", `public."My ""Type"""`, "text[]", `"char"`, "character varying(20)"}
	for _, s := range good {
		if _, err := typeNameSQL(s); err != nil {
			t.Errorf("typeNameSQL(%q): %v", s, err)
		}
	}
	bad := []string{"", "int); DROP TABLE x; --", "int'", `"unterminated`, "numeric(1+1)", "int[", "int -- x"}
	for _, s := range bad {
		if _, err := typeNameSQL(s); err == nil {
			t.Errorf("typeNameSQL(%q) accepted", s)
		}
	}
}
