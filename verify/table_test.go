package verify

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// sliceMirror is an in-memory MirrorTable over sorted rows: the model the
// Prolly-backed mirror must behave like.
type sliceMirror struct {
	hash rowhash.ID
	rows []mirrorRow // sorted by key
}

func (s *sliceMirror) Hash() rowhash.ID { return s.hash }

func (s *sliceMirror) Count(context.Context) (uint64, error) { return uint64(len(s.rows)), nil }

func (s *sliceMirror) Bounds(_ context.Context, n int) ([][]byte, error) {
	if n <= 0 || len(s.rows) < 2 {
		return nil, nil
	}
	step := max(1, len(s.rows)/(n+1))
	var out [][]byte
	for i := step; i < len(s.rows) && len(out) < n; i += step {
		out = append(out, s.rows[i].key)
	}
	return out, nil
}

func (s *sliceMirror) inRange(k, lo, hi []byte) bool {
	return (lo == nil || bytes.Compare(k, lo) >= 0) && (hi == nil || bytes.Compare(k, hi) < 0)
}

func (s *sliceMirror) Digest(_ context.Context, lo, hi []byte) (rowhash.Digest, error) {
	var d rowhash.Digest
	for _, r := range s.rows {
		if s.inRange(r.key, lo, hi) {
			d = d.Add(s.hash.Sum(r.value))
		}
	}
	return d, nil
}

func (s *sliceMirror) KeyHashes(_ context.Context, lo, hi []byte, fn func([]byte, uint64) error) error {
	for _, r := range s.rows {
		if s.inRange(r.key, lo, hi) {
			if err := fn(r.key, s.hash.Sum(r.value)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *sliceMirror) set(r mirrorRow) {
	i, found := slices.BinarySearchFunc(s.rows, r.key, func(a mirrorRow, k []byte) int { return bytes.Compare(a.key, k) })
	if found {
		s.rows[i] = r
	} else {
		s.rows = slices.Insert(s.rows, i, r)
	}
}

func (s *sliceMirror) remove(key []byte) {
	s.rows = slices.DeleteFunc(s.rows, func(r mirrorRow) bool { return bytes.Equal(r.key, key) })
}

// TestVerifyTable runs VerifyTable, through a pinned snapshot, on tables
// with an integer key, a text key in a linguistic collation (boundary
// buckets) and a composite key (hash buckets): equal mirrors verify equal;
// a mirror with one changed, one missing and one extra row yields exactly
// those three keys.
func TestVerifyTable(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	mustExec(t, conn, `
CREATE TABLE v_int (id int8 PRIMARY KEY, v text, n numeric);
INSERT INTO v_int SELECT i * 3 - 4000, md5(i::text), i / 7.0 FROM generate_series(1, 5000) i;
CREATE TABLE v_text (k text COLLATE "en-x-icu" PRIMARY KEY, v int);
INSERT INTO v_text SELECT (ARRAY['a','B','b','A','_','é'])[1 + i % 6] || md5(i::text), i FROM generate_series(1, 3000) i;
CREATE TABLE v_comp (k1 text, k2 date, v jsonb, PRIMARY KEY (k1, k2));
INSERT INTO v_comp SELECT 'c' || (i % 13), '2026-01-01'::date + i / 13, jsonb_build_object('i', i) FROM generate_series(1, 3000) i;
CREATE TABLE v_empty (id int PRIMARY KEY);`)
	cases := []struct {
		table     string
		scheme    BucketScheme
		changeKey []string
		dropKey   []string
		extraKey  []string
	}{
		{"v_int", SchemeBoundary, []string{"2000"}, []string{"-3997"}, []string{"999999"}},
		{"v_text", SchemeBoundary, []string{"B" + md5hex(t, conn, "1")}, []string{"é" + md5hex(t, conn, "5")}, []string{"zz-extra"}},
		{"v_comp", SchemeHash, []string{"c3", "2026-01-08"}, []string{"c0", "2026-01-02"}, []string{"c99", "2026-01-01"}},
	}
	for _, c := range cases {
		t.Run(c.table, func(t *testing.T) {
			tbl, err := LoadTable(t.Context(), conn, "public", c.table)
			if err != nil {
				t.Fatal(err)
			}
			codec, _ := rowenc.NewKeyCodec(tbl.KeyKinds()...)
			m := &sliceMirror{hash: rowhash.PGHash64, rows: loadMirror(t, conn, tbl, codec)}

			res := verifyPinned(t, url, tbl, m)
			if !res.Equal() || res.Scheme != c.scheme || res.Buckets < 4 || res.Dirty != 0 || res.PG.Count != uint64(len(m.rows)) {
				t.Fatalf("equal mirror: %+v", summary(res))
			}

			// Corrupt the mirror.
			key := func(texts []string) []byte {
				k, err := codec.Encode(texts...)
				if err != nil {
					t.Fatal(err)
				}
				return k
			}
			i, found := slices.BinarySearchFunc(m.rows, key(c.changeKey), func(a mirrorRow, k []byte) int { return bytes.Compare(a.key, k) })
			if !found {
				t.Fatalf("no row %q to change", c.changeKey)
			}
			vals, _ := rowenc.Decode(m.rows[i].value)
			vals[len(vals)-1] = append(slices.Clone(vals[len(vals)-1]), '0')
			m.set(mirrorRow{m.rows[i].key, m.rows[i].texts, rowenc.Encode(vals)})
			before := len(m.rows)
			m.remove(key(c.dropKey))
			if len(m.rows) != before-1 {
				t.Fatalf("no row %q to drop", c.dropKey)
			}
			extra := make([][]byte, len(tbl.Columns))
			for j, k := range tbl.Key {
				extra[k] = []byte(c.extraKey[j])
			}
			m.set(mirrorRow{key(c.extraKey), c.extraKey, rowenc.Encode(extra)})

			res = verifyPinned(t, url, tbl, m)
			want := []RowDiff{
				{Kind: Changed, Key: key(c.changeKey), Texts: c.changeKey},
				{Kind: Missing, Key: key(c.dropKey), Texts: c.dropKey},
				{Kind: Extra, Key: key(c.extraKey), Texts: c.extraKey},
			}
			slices.SortFunc(want, func(a, b RowDiff) int { return bytes.Compare(a.Key, b.Key) })
			if fmt.Sprint(diffStrings(res.Diffs)) != fmt.Sprint(diffStrings(want)) {
				t.Fatalf("diffs %v, want %v (%+v)", diffStrings(res.Diffs), diffStrings(want), summary(res))
			}
			if res.Equal() || res.Dirty < 1 || res.Dirty > 3 {
				t.Fatalf("corrupted mirror: %+v", summary(res))
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		tbl, err := LoadTable(t.Context(), conn, "public", "v_empty")
		if err != nil {
			t.Fatal(err)
		}
		m := &sliceMirror{hash: rowhash.PGHash64}
		if res := verifyPinned(t, url, tbl, m); !res.Equal() || res.Buckets != 1 {
			t.Fatalf("empty table: %+v", summary(res))
		}
		mustExec(t, conn, "INSERT INTO v_empty VALUES (1), (2)")
		res := verifyPinned(t, url, tbl, m)
		if got := diffStrings(res.Diffs); fmt.Sprint(got) != `[missing ["1"] missing ["2"]]` {
			t.Fatalf("rows missing from an empty mirror: %v", got)
		}
	})
}

func md5hex(t *testing.T, conn *pgconn.PgConn, s string) string {
	t.Helper()
	return string(mustQuery(t, conn, "SELECT md5('"+s+"')")[0][0])
}

func verifyPinned(t *testing.T, url string, tbl Table, m MirrorTable) Result {
	t.Helper()
	p, err := Pin(t.Context(), mustConfig(t, url), PinOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	res, err := VerifyTable(t.Context(), p.Conn(), tbl, m, Options{BucketRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func diffStrings(ds []RowDiff) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = fmt.Sprintf("%v %q", d.Kind, d.Texts)
	}
	return out
}

func summary(r Result) string {
	return fmt.Sprintf("hash %v pg %v mirror %v scheme %s buckets %d dirty %d diffs %v", r.Hash, r.PG, r.Mirror, r.Scheme, r.Buckets, r.Dirty, diffStrings(r.Diffs))
}

// TestVerifyTableRandomCorruptions is a seeded model test: random sets of
// changed, dropped and invented rows in the mirror (at the first and last
// keys too, and in adjacent buckets) must come back from VerifyTable as
// exactly that set of keys and kinds.
func TestVerifyTableRandomCorruptions(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	mustExec(t, conn, `
CREATE TABLE r_int (id int4 PRIMARY KEY, v text);
INSERT INTO r_int SELECT i * 2, md5(i::text) FROM generate_series(-1000, 1000) i;
CREATE TABLE r_comp (a int2, b text, v text, PRIMARY KEY (a, b));
INSERT INTO r_comp SELECT i % 17, md5(i::text), i::text FROM generate_series(1, 2000) i;`)
	seed := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(seed, 11))
	for _, name := range []string{"r_int", "r_comp"} {
		tbl, err := LoadTable(t.Context(), conn, "public", name)
		if err != nil {
			t.Fatal(err)
		}
		codec, _ := rowenc.NewKeyCodec(tbl.KeyKinds()...)
		pristine := loadMirror(t, conn, tbl, codec)
		p, err := Pin(t.Context(), mustConfig(t, url), PinOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for iter := range 15 {
			m := &sliceMirror{hash: rowhash.PGHash64, rows: slices.Clone(pristine)}
			want := map[string]DiffKind{}
			for range r.IntN(12) {
				var i int
				switch r.IntN(4) {
				case 0:
					i = 0
				case 1:
					i = len(m.rows) - 1
				default:
					i = r.IntN(len(m.rows))
				}
				row := m.rows[i]
				if _, seen := want[string(row.key)]; seen {
					continue
				}
				if r.IntN(2) == 0 {
					m.remove(row.key)
					want[string(row.key)] = Missing
				} else {
					m.set(mirrorRow{row.key, row.texts, append(slices.Clone(row.value), '-')})
					want[string(row.key)] = Changed
				}
			}
			for range r.IntN(4) {
				var texts []string
				if name == "r_int" {
					texts = []string{strconv.Itoa(2*(r.IntN(2200)-1100) + 1)} // odd: never in PostgreSQL
				} else {
					texts = []string{strconv.Itoa(r.IntN(40) - 20), fmt.Sprintf("x%d", r.IntN(100))}
				}
				k, _ := codec.Encode(texts...)
				vals := make([][]byte, len(tbl.Columns))
				for j, c := range tbl.Key {
					vals[c] = []byte(texts[j])
				}
				if _, seen := want[string(k)]; !seen {
					m.set(mirrorRow{k, texts, rowenc.Encode(vals)})
					want[string(k)] = Extra
				}
			}
			// Half the time the mirror also digests ranges it is given, so
			// integer keys take the fixed-width path (its clamp included:
			// missing first/last rows and extra keys move the mirror's key
			// range against PostgreSQL's).
			var mt MirrorTable = m
			if r.IntN(2) == 0 {
				mt = rangeSliceMirror{m}
			}
			res, err := VerifyTable(t.Context(), p.Conn(), tbl, mt, Options{BucketRows: 32 + r.IntN(200), MaxRangesPerQuery: 1 + r.IntN(4)})
			if err != nil {
				t.Fatalf("seed %d %s iter %d: %v", seed, name, iter, err)
			}
			got := map[string]DiffKind{}
			for _, d := range res.Diffs {
				got[string(d.Key)] = d.Kind
			}
			if !maps.Equal(got, want) || res.Equal() != (len(want) == 0) {
				t.Fatalf("seed %d %s iter %d (%s buckets): got %d diffs %v, want %d (%s)", seed, name, iter, res.Scheme, len(got), diffStrings(res.Diffs), len(want), summary(res))
			}
		}
		if err := p.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// rangeSliceMirror adds RangeDigester to sliceMirror, by brute force.
type rangeSliceMirror struct{ *sliceMirror }

func (s rangeSliceMirror) DigestsBetween(_ context.Context, bounds [][]byte) ([]rowhash.Digest, error) {
	out := make([]rowhash.Digest, len(bounds)+1)
	for _, r := range s.rows {
		b := BoundaryBucket(r.key, bounds)
		out[b] = out[b].Add(s.hash.Sum(r.value))
	}
	return out, nil
}

func (s rangeSliceMirror) FirstLast(context.Context) ([]byte, []byte, error) {
	if len(s.rows) == 0 {
		return nil, nil, nil
	}
	return s.rows[0].key, s.rows[len(s.rows)-1].key, nil
}
