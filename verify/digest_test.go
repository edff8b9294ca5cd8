package verify

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// TestBucketDigestsMatchGo: the level-0 query's per-bucket (count, Σ H mod
// 2^64) equals the digests Go computes from the rows PostgreSQL prints,
// for keys that are negative, at both int8 extremes and sparse.
func TestBucketDigestsMatchGo(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	mustExec(t, conn, `CREATE TABLE acct (id int8 PRIMARY KEY, name text, score int, note text, at timestamptz);
INSERT INTO acct SELECT (i * 7919) % 100003 - 50000, left(md5(i::text), 1 + i % 20), (i * 31) % 1000,
       CASE WHEN i % 7 = 0 THEN NULL WHEN i % 11 = 0 THEN '' ELSE 'n' || i END,
       '2026-01-01'::timestamptz + i * interval '1 second 7 ms'
  FROM generate_series(1, 5000) i;
INSERT INTO acct VALUES (-9223372036854775808, 'min', 0, NULL, NULL), (9223372036854775807, 'max', 0, NULL, NULL), (-1, 'm1', 1, NULL, NULL), (0, 'z', 0, NULL, NULL);`)
	tbl, err := LoadTable(t.Context(), conn, "public", "acct")
	if err != nil {
		t.Fatal(err)
	}
	rows := copyRows(t, conn, "SELECT * FROM acct")
	if len(rows) != 5004 {
		t.Fatalf("COPY returned %d rows", len(rows))
	}
	for _, hash := range []rowhash.ID{rowhash.PGHash64, rowhash.MD5_64} {
		for _, width := range []int64{1, 64, 512, 1 << 62} {
			want := map[int64]rowhash.Digest{}
			for _, r := range rows {
				pk, err := strconv.ParseInt(string(r[0]), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				b := Bucket(pk, width)
				want[b] = want[b].Add(hash.Sum(rowenc.Encode(r)))
			}
			q, err := BucketDigestQuery(tbl, hash, width)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int64]rowhash.Digest{}
			prev := int64(0)
			for i, r := range mustQuery(t, conn, q) {
				b, err := strconv.ParseInt(string(r[0]), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				if i > 0 && b <= prev {
					t.Fatalf("buckets not ascending: %d after %d", b, prev)
				}
				prev = b
				got[b] = parseDigestRow(t, r)
			}
			if len(got) != len(want) {
				t.Fatalf("%v width %d: PostgreSQL has %d buckets, Go %d", hash, width, len(got), len(want))
			}
			for b, d := range want {
				if got[b] != d {
					t.Fatalf("%v width %d bucket %d: PostgreSQL %v, Go %v", hash, width, b, got[b], d)
				}
			}
		}
	}
	if _, err := BucketDigestQuery(Table{Schema: "public", Name: "x", Columns: []Column{{Name: "k", Type: "text"}}, Key: []int{0}}, rowhash.PGHash64, 8); err == nil {
		t.Fatal("BucketDigestQuery accepted a text key")
	}
}

// TestRangeHashQuery: a (pk, h) query over key ranges returns exactly the
// rows whose encoded keys fall in the ranges (byte order), in byte order,
// with the Go hashes, even where the column's collation orders text
// differently from bytes.
func TestRangeHashQuery(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	mustExec(t, conn, `CREATE TABLE comp (k1 text COLLATE "en-x-icu", k2 int4, v text, PRIMARY KEY (k1, k2));
INSERT INTO comp SELECT k, j, k || j FROM unnest(ARRAY['a', 'B', 'b', 'A', '_x', 'é', 'e', 'f', 'O''Brien', 'back\slash', '']) k, generate_series(-3, 3) j;`)
	tbl, err := LoadTable(t.Context(), conn, "public", "comp")
	if err != nil {
		t.Fatal(err)
	}
	if !tbl.Columns[0].Collatable || tbl.Columns[1].Collatable {
		t.Fatalf("collatable flags wrong: %+v", tbl.Columns)
	}
	codec, err := rowenc.NewKeyCodec(tbl.KeyKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		key  []byte
		text []string
		h    uint64
	}
	var all []entry
	for _, r := range copyRows(t, conn, "SELECT * FROM comp") {
		k, err := codec.Encode(string(r[0]), string(r[1]))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, entry{k, []string{string(r[0]), string(r[1])}, rowhash.PGHash64.Sum(rowenc.Encode(r))})
	}
	slices.SortFunc(all, func(a, b entry) int { return bytes.Compare(a.key, b.key) })

	seed := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(seed, 7))
	texts := []string{"", "A", "B", "_", "a", "b", "c", "é", "O'Brien", "back\\slash", "zz"}
	bound := func() []string {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return []string{texts[r.IntN(len(texts))]}
		}
		return []string{texts[r.IntN(len(texts))], strconv.Itoa(r.IntN(9) - 4)}
	}
	encBound := func(b []string) []byte {
		bs := make([][]byte, len(b))
		for i, s := range b {
			bs[i] = []byte(s)
		}
		k, err := codec.AppendPrefix(nil, bs)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for iter := range 40 {
		ranges := make([]KeyRange, 1+r.IntN(3))
		for i := range ranges {
			ranges[i] = KeyRange{Lo: bound(), Hi: bound()}
		}
		in := func(e entry) bool {
			for _, rg := range ranges {
				// A prefix bound: Lo includes keys with that prefix; Hi
				// excludes them, i.e. compares against the prefix alone.
				if rg.Lo != nil && bytes.Compare(e.key, encBound(rg.Lo)) < 0 {
					continue
				}
				if rg.Hi != nil && bytes.Compare(e.key[:min(len(e.key), len(encBound(rg.Hi)))], encBound(rg.Hi)) >= 0 {
					continue
				}
				return true
			}
			return false
		}
		var want []string
		for _, e := range all {
			if in(e) {
				want = append(want, fmt.Sprintf("%q/%s=%d", e.text[0], e.text[1], int64(e.h)))
			}
		}
		q, err := RangeHashQuery(tbl, rowhash.PGHash64, ranges)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, row := range mustQuery(t, conn, q) {
			got = append(got, fmt.Sprintf("%q/%s=%s", row[0], row[1], row[2]))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d iter %d: ranges %q\nquery %s\nPostgreSQL %v\nGo         %v", seed, iter, ranges, q, got, want)
		}
	}
}

// TestKeyOrderMatchesPostgres: for each dedicated key kind, PostgreSQL's
// ORDER BY of the column is the byte order of rowenc's keys, and every
// value PostgreSQL prints round-trips through the key.
func TestKeyOrderMatchesPostgres(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	cases := []struct {
		typ    string
		values string // SQL producing the values, column v
	}{
		{"int2", "SELECT (i * 97 % 65536 - 32768)::int2 FROM generate_series(0, 2000) i"},
		{"int4", "SELECT (hashint4(i))::int4 FROM generate_series(0, 2000) i UNION ALL VALUES (-2147483648), (2147483647), (0), (-1)"},
		{"int8", "SELECT hashint8(i) FROM generate_series(0, 2000) i UNION ALL VALUES (-9223372036854775808), (9223372036854775807)"},
		{"numeric", `SELECT round(hashint4(i)::numeric / (10 ^ (i % 12))::numeric, 12 - i % 13) FROM generate_series(0, 1500) i
			UNION ALL VALUES ('NaN'), ('Infinity'), ('-Infinity'), (0), (0.000), (1.5), (1.50), (-1.5), (-1.50), (1e-30), (-1e-30), (1e30), (99.99), (100), (0.001), (0.01)`},
		{"date", `SELECT ('2000-01-01'::date + hashint4(i) % 800000) FROM generate_series(0, 2000) i
			UNION ALL SELECT unnest('{infinity,-infinity,4713-01-01 BC,0001-01-01 BC,0001-01-01,10000-01-01}'::date[])`},
		{"timestamp", `SELECT '2000-01-01'::timestamp + (hashint4(i) % 100000000) * interval '1 minute 1.000007 s' FROM generate_series(0, 2000) i
			UNION ALL SELECT unnest('{infinity,-infinity,"0044-03-15 12:00:00.5 BC","0044-03-15 12:00:00 BC","294276-12-31 23:59:59.999999"}'::timestamp[])`},
		{"timestamptz", `SELECT '2000-01-01'::timestamptz + (hashint4(i) % 100000000) * interval '1 minute 1.000007 s' FROM generate_series(0, 2000) i
			UNION ALL SELECT unnest('{infinity,-infinity,"0044-03-15 12:00:00.5 BC","1900-01-01 00:00:00+00"}'::timestamptz[])`},
		{"bool", "VALUES (true), (false)"},
		{"uuid", "SELECT md5(i::text)::uuid FROM generate_series(0, 2000) i"},
		{"bytea", `SELECT decode(md5(i::text), 'hex') FROM generate_series(0, 500) i UNION ALL SELECT substr(decode(md5(i::text), 'hex'), 1, i % 5) FROM generate_series(0, 500) i`},
		{`text COLLATE "C"`, `SELECT chr(32 + i % 300) || left(md5(i::text), i % 4) FROM generate_series(0, 2000) i`},
	}
	for _, c := range cases {
		t.Run(strings.Fields(c.typ)[0], func(t *testing.T) {
			kind := rowenc.KindForType(c.typ)
			// The second column marks values PostgreSQL holds equal to
			// the previous one (duplicates, numeric 1.5 = 1.50): their
			// relative order is arbitrary, so they are not checked.
			rows := mustQuery(t, conn, fmt.Sprintf(
				"SELECT format('%%s', d.v) AS txt, coalesce(d.v = lag(d.v) OVER (ORDER BY d.v), false) FROM (SELECT v::%s AS v FROM (%s) s(v)) d ORDER BY d.v",
				c.typ, c.values))
			if len(rows) < 2 {
				t.Fatalf("only %d values", len(rows))
			}
			var prev []byte
			for i, r := range rows {
				k, err := rowenc.AppendKeyColumn(nil, kind, r[0])
				if err != nil {
					t.Fatalf("%s value %q: %v", c.typ, r[0], err)
				}
				text, _, err := rowenc.DecodeKeyColumn(nil, kind, k)
				if err != nil || !bytes.Equal(text, r[0]) {
					t.Fatalf("%s value %q round trips to %q: %v", c.typ, r[0], text, err)
				}
				if i > 0 && string(r[1]) != "t" && bytes.Compare(prev, k) >= 0 {
					t.Fatalf("%s: PostgreSQL orders %q after the previous value, key bytes do not", c.typ, r[0])
				}
				prev = k
			}
		})
	}
}
