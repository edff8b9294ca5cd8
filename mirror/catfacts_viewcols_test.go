package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestViewColumnsRoundTrip: the views' columns' collations and defaults
// survive the relation record, with and without the parts before them;
// a record written before them decodes with ViewColumnsRead false and
// the columns without them; a changed default is a change of the facts
// (the poll records it).
func TestViewColumnsRoundTrip(t *testing.T) {
	views := func() []wal.ViewFacts {
		return []wal.ViewFacts{
			{OID: 16400, Schema: "public", Name: "v", Kind: 'v', OwnerOID: 10, Owner: "postgres", Def: " SELECT 1", Columns: []wal.ViewColumn{
				{Name: "id", TypeOID: 23, TypeMod: -1, HasDefault: true, Default: "nextval('t_id_seq'::regclass)", DefaultPretty: "nextval('t_id_seq'::regclass)"},
				{Name: "s", TypeOID: 25, TypeMod: -1, Collation: 950}}},
			{OID: 16401, Schema: "public", Name: "m", Kind: 'm', Columns: []wal.ViewColumn{{Name: "x", TypeOID: 1043, TypeMod: 24, Collation: 100}}},
			{OID: 16402, Schema: "public", Name: "empty", Kind: 'v'},
		}
	}
	for _, parts := range []int{2, 2 | 4, 31} {
		s := goldenSchema(parts)
		s.Views, s.ViewColumnsRead = views(), true
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts: &wal.Facts{Kind: 'r', Schema: s}}
		got, err := decodeRel(encodeRel(rel))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || !got.Facts.Schema.ViewColumnsRead || got.Facts.Schema.Views[0].Columns[0].Default != views()[0].Columns[0].Default {
			t.Errorf("parts %d: decoded %+v, want %+v", parts, got.Facts.Schema.Views, s.Views)
		}
		old := *s
		old.ViewColumnsRead = false
		old.Views = views()
		for i := range old.Views {
			for j := range old.Views[i].Columns {
				c := &old.Views[i].Columns[j]
				c.Collation, c.HasDefault, c.Default, c.DefaultPretty = 0, false, "", ""
			}
		}
		orel := *rel
		orel.Facts = &wal.Facts{Kind: 'r', Schema: &old}
		got, err = decodeRel(encodeRel(&orel))
		if err != nil {
			t.Fatal(err)
		}
		if got.Facts.Schema.ViewColumnsRead || !got.Facts.Equal(orel.Facts) {
			t.Errorf("parts %d: a record without the views' column facts decoded as %+v", parts, got.Facts.Schema)
		}
		changed := *s
		changed.Views = views()
		changed.Views[0].Columns[0].Default = "1"
		if s.Equal(&changed) {
			t.Errorf("a changed view column default compares equal")
		}
	}
}
