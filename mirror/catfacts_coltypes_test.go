package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestColumnTypesRoundTrip: the columns' types (section 'q') survive the
// relation record after every other section, a record written before
// them decodes with ColumnTypes nil, their bytes are appended after an
// older record's, and a changed type fact is a change of the facts (the
// poll records it).
func TestColumnTypesRoundTrip(t *testing.T) {
	cts := []wal.ColumnType{{Name: "integer", Kind: 'b'}, {Name: "floatrange", Kind: 'r'}, {Name: "pair", Kind: 'c'},
		{Name: "xml", Kind: 'b', StringCast: true}, {Name: "floatrange[]", Kind: 'b', Array: true}}
	cols := []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}, {Name: "fr", TypeOID: 16393, TypeMod: -1},
		{Name: "pr", TypeOID: 16402, TypeMod: -1}, {Name: "x", TypeOID: 142, TypeMod: -1}, {Name: "fra", TypeOID: 16390, TypeMod: -1}}
	listings := &wal.ListingFacts{}
	for _, schema := range []*wal.SchemaFacts{nil, {Listings: listings}} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault, Columns: cols,
			Facts: &wal.Facts{Kind: 'r', Schema: schema, ColumnTypes: cts}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || len(got.Facts.ColumnTypes) != len(cts) || got.Facts.ColumnTypes[3] != cts[3] || got.Facts.ColumnTypes[4] != cts[4] {
			t.Errorf("schema %v: decoded %+v, want %+v", schema != nil, got.Facts.ColumnTypes, cts)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.ColumnTypes = nil })
		if got.Facts.ColumnTypes != nil {
			t.Errorf("schema %v: an older record decoded with column types %+v", schema != nil, got.Facts.ColumnTypes)
		}
		for i, change := range []func(c []wal.ColumnType){
			func(c []wal.ColumnType) { c[1].Kind = 'c' },
			func(c []wal.ColumnType) { c[3].StringCast = false },
			func(c []wal.ColumnType) { c[4].Array = false },
			func(c []wal.ColumnType) { c[2].Name = "public.pair" },
		} {
			c := append([]wal.ColumnType(nil), cts...)
			change(c)
			o := *rel.Facts
			o.ColumnTypes = c
			if rel.Facts.Equal(&o) {
				t.Errorf("change %d: the facts compare equal", i)
			}
		}
		none := *rel.Facts
		none.ColumnTypes = nil
		if rel.Facts.Equal(&none) {
			t.Errorf("facts without column types compare equal to facts with them")
		}
	}
}
