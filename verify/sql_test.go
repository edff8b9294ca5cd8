package verify

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

func TestColumnTextSQL(t *testing.T) {
	cases := []struct {
		col  Column
		want string
	}{
		{Column{Name: "t", Type: "text"}, `"t"`},
		{Column{Name: "n", Type: "numeric(12,2)"}, `"n"::text`},
		{Column{Name: "ts", Type: "timestamp(3) with time zone"}, `"ts"::text`},
		{Column{Name: "a", Type: "boolean[]"}, `"a"::text`},
		{Column{Name: "b", Type: "boolean"}, `CASE WHEN "b" IS NULL THEN NULL ELSE pg_catalog.format('%s', "b") END`},
		{Column{Name: "c", Type: "character(4)"}, `CASE WHEN "c" IS NULL THEN NULL ELSE pg_catalog.format('%s', "c") END`},
		{Column{Name: "q", Type: `"char"`}, `CASE WHEN "q" IS NULL THEN NULL ELSE pg_catalog.format('%s', "q") END`},
		{Column{Name: "i", Type: "inet"}, `CASE WHEN "i" IS NULL THEN NULL ELSE pg_catalog.format('%s', "i") END`},
		{Column{Name: "e", Type: "public.mood"}, `CASE WHEN "e" IS NULL THEN NULL ELSE pg_catalog.format('%s', "e") END`},
		{Column{Name: `we"ird`, Type: "text"}, `"we""ird"`},
	}
	for _, c := range cases {
		if got := ColumnTextSQL(c.col); got != c.want {
			t.Errorf("ColumnTextSQL(%+v) = %s, want %s", c.col, got, c.want)
		}
	}
}

func TestQuoteLiteral(t *testing.T) {
	cases := map[string]string{
		"":          "''",
		"abc":       "'abc'",
		"O'Brien":   "'O''Brien'",
		`a\b`:       `E'a\\b'`,
		`it's \ok'`: `E'it''s \\ok'''`,
		"héllo":     "'héllo'",
	}
	for in, want := range cases {
		got, err := QuoteLiteral(in)
		if err != nil || got != want {
			t.Errorf("QuoteLiteral(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := QuoteLiteral("a\x00b"); !errors.Is(err, ErrLiteral) {
		t.Errorf("QuoteLiteral with NUL: %v", err)
	}
}

func TestBucket(t *testing.T) {
	cases := []struct{ pk, w, want int64 }{
		{0, 512, 0}, {511, 512, 0}, {512, 512, 1}, {-1, 512, -1}, {-512, 512, -1}, {-513, 512, -2},
		{math.MinInt64, 512, math.MinInt64 / 512}, {math.MaxInt64, 512, math.MaxInt64 / 512}, {math.MinInt64, 3, math.MinInt64/3 - 1},
	}
	for _, c := range cases {
		if got := Bucket(c.pk, c.w); got != c.want {
			t.Errorf("Bucket(%d, %d) = %d, want %d", c.pk, c.w, got, c.want)
		}
	}
}

func TestQueriesRejectBadTables(t *testing.T) {
	noKey := Table{Schema: "s", Name: "t", Columns: []Column{{Name: "a", Type: "int4"}}}
	if _, err := TableDigestQuery(noKey, rowhash.PGHash64); err == nil {
		t.Error("TableDigestQuery accepted a table without a key")
	}
	if _, err := RangeHashQuery(noKey, rowhash.PGHash64, nil); err == nil {
		t.Error("RangeHashQuery accepted a table without a key")
	}
	ok := Table{Schema: "s", Name: `t"x`, Columns: []Column{{Name: "a", Type: "int4"}}, Key: []int{0}}
	if _, err := BucketDigestQuery(ok, rowhash.PGHash64, 0); err == nil {
		t.Error("BucketDigestQuery accepted width 0")
	}
	q, err := RangeHashQuery(ok, rowhash.PGHash64, []KeyRange{{Lo: []string{"1", "2"}}})
	if err == nil {
		t.Errorf("RangeHashQuery accepted a bound longer than the key: %s", q)
	}
	q, err = RangeHashQuery(ok, rowhash.PGHash64, []KeyRange{{Lo: []string{"1'; DROP TABLE x; --"}}})
	if err != nil || !strings.Contains(q, `'1''; DROP TABLE x; --'`) || !strings.Contains(q, `"s"."t""x"`) {
		t.Errorf("RangeHashQuery quoting: %s, %v", q, err)
	}
}

func TestChooseHashFallsBack(t *testing.T) {
	broken := map[rowhash.ID]bool{rowhash.PGHash64: true}
	selfTest := func(id rowhash.ID) error {
		if broken[id] {
			return errors.New("server disagrees")
		}
		return nil
	}
	id, failed, err := chooseHash(t.Context(), selfTest)
	if err != nil || id != rowhash.MD5_64 || len(failed) != 1 {
		t.Fatalf("pghash64 broken: chose %v (failed %v, err %v), want md5-64", id, failed, err)
	}
	broken[rowhash.MD5_64] = true // a FIPS server without md5()
	if id, _, err := chooseHash(t.Context(), selfTest); err != nil || id != rowhash.SHA256_64 {
		t.Fatalf("pghash64 and md5 broken: chose %v, %v; want sha256-64", id, err)
	}
	broken[rowhash.SHA256_64] = true
	if _, failed, err := chooseHash(t.Context(), selfTest); err == nil || len(failed) != 3 {
		t.Fatalf("all broken: err %v, %d failures", err, len(failed))
	}
}

// TestKeyKindsAgree: the mirror picks key kinds from pgoutput's type OIDs
// (rowenc.KindForOID), verify from catalog type names
// (rowenc.KindForType); for every built-in type both must agree, or the
// two sides would encode the same key differently.
func TestKeyKindsAgree(t *testing.T) {
	conn := connect(t, pg.NewDB(t), nil)
	rows := mustQuery(t, conn, `SELECT oid, format_type(oid, NULL), typname FROM pg_type WHERE oid < 16384 AND typtype IN ('b', 'd', 'e', 'r') AND typisdefined`)
	if len(rows) < 100 {
		t.Fatalf("only %d built-in types", len(rows))
	}
	for _, r := range rows {
		oid, err := strconv.ParseUint(string(r[0]), 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		byOID := rowenc.KindForOID(uint32(oid))
		for _, name := range []string{string(r[1]), string(r[2])} {
			if byName := rowenc.KindForType(name); byName != byOID {
				t.Errorf("type %s (oid %d): KindForType(%q) = %v, KindForOID = %v", r[2], oid, name, byName, byOID)
			}
		}
	}
}

func TestCheckPublication(t *testing.T) {
	conn := connect(t, pg.NewDB(t), nil)
	mustExec(t, conn, `CREATE TABLE a (id int PRIMARY KEY, v text); CREATE TABLE b (id int PRIMARY KEY, v text); CREATE TABLE c (id int PRIMARY KEY, v text);
CREATE PUBLICATION whole FOR TABLE a; CREATE PUBLICATION everything FOR ALL TABLES;`)
	cases := []struct {
		pub, table string
		bad        bool
	}{{"whole", "a", false}, {"everything", "b", false}}
	if pg.ServerVersion() >= 150000 { // column lists and row filters arrived in 15
		mustExec(t, conn, `CREATE PUBLICATION cols FOR TABLE b (id); CREATE PUBLICATION rows FOR TABLE c WHERE (id > 0);`)
		cases = append(cases, []struct {
			pub, table string
			bad        bool
		}{{"cols", "b", true}, {"rows", "c", true}}...)
	}
	for _, c := range cases {
		err := CheckPublication(t.Context(), conn, c.pub, "public", c.table)
		if c.bad != errors.Is(err, ErrPublicationFilter) || (!c.bad && err != nil) {
			t.Errorf("CheckPublication(%s, %s) = %v, want filtered=%v", c.pub, c.table, err, c.bad)
		}
	}
}
