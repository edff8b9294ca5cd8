package mirror

import (
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestColumnBasesRoundTrip: the columns' base types and typmods (section
// 't') survive the relation record after every other section, a record
// written before them decodes with BaseType 0 (not read) and the other
// column type facts as they were, and a changed base is a change of the
// facts (the poll records it).
func TestColumnBasesRoundTrip(t *testing.T) {
	cts := []wal.ColumnType{{Name: "integer", Kind: 'b', BaseType: 23, BaseMod: -1}, {Name: "posint", Kind: 'b', BaseType: 23, BaseMod: -1},
		{Name: "v10", Kind: 'b', BaseType: 1043, BaseMod: 14}, {Name: "md", Kind: 'e', BaseType: 16390, BaseMod: -1}}
	cols := []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}, {Name: "p", TypeOID: 16385, TypeMod: -1},
		{Name: "v", TypeOID: 16388, TypeMod: -1}, {Name: "m", TypeOID: 16392, TypeMod: -1}}
	rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault, Columns: cols,
		Facts: &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Psql: &wal.PsqlFacts{}}, ColumnTypes: cts}}
	b := encodeRel(rel)
	got, err := decodeRel(b)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Facts.Equal(rel.Facts) || !slices.Equal(got.Facts.ColumnTypes, cts) {
		t.Errorf("decoded %+v, want %+v", got.Facts.ColumnTypes, cts)
	}
	got = olderRecord(t, rel, b, func(f *wal.Facts) {
		f.ColumnTypes = slices.Clone(f.ColumnTypes)
		for i := range f.ColumnTypes {
			f.ColumnTypes[i].BaseType, f.ColumnTypes[i].BaseMod = 0, 0
		}
	})
	if len(got.Facts.ColumnTypes) != len(cts) || got.Facts.ColumnTypes[1].BaseType != 0 || got.Facts.ColumnTypes[3].Kind != 'e' {
		t.Errorf("an older record decoded with column types %+v", got.Facts.ColumnTypes)
	}
	c := slices.Clone(cts)
	c[2].BaseMod = 10
	o := *rel.Facts
	o.ColumnTypes = c
	if rel.Facts.Equal(&o) {
		t.Errorf("a changed base typmod: the facts compare equal")
	}
	// A count other than the column types' fails the record.
	var e enc
	encodeColumnBases(&e, rel.Facts)
	d := &dec{b: e.b}
	decodeColumnBases(d, &wal.Facts{ColumnTypes: slices.Clone(cts[:2])})
	if d.err == nil {
		t.Errorf("a body of %d bases decoded into 2 column types", len(cts))
	}
}
