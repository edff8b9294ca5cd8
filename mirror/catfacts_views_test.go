package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestViewFactsRoundTrip: the views of the schema facts decode to what
// was encoded, with or without owned sequences before them, and a
// record written before views were read decodes with ViewsRead false.
func TestViewFactsRoundTrip(t *testing.T) {
	views := []wal.ViewFacts{
		{OID: 16500, Schema: "public", Name: "v", Kind: 'v', OwnerOID: 10, Owner: "postgres",
			Columns: []wal.ViewColumn{{Name: "id", TypeOID: 23, TypeMod: -1}, {Name: "n", TypeOID: 1043, TypeMod: 14}},
			Def:     " SELECT id,\n    n\n   FROM t;", DefPretty: " SELECT id,\n    n\n   FROM t;", Qualified: " SELECT id,\n    n\n   FROM public.t;",
			Refs: []wal.ViewRef{{OID: 16400, Schema: "public", Name: "t", Kind: 'r'}}, Comment: "a view", Options: []string{"security_barrier=true"}},
		{OID: 16501, Schema: "s", Name: "m", Kind: 'm', Options: []string{}},
	}
	base := wal.Relation{OID: 7, Schema: "public", Name: "t", Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}}}
	for _, seqs := range []bool{true, false} {
		for _, vs := range [][]wal.ViewFacts{views, nil} {
			sf := &wal.SchemaFacts{OptionsRead: true, SequencesRead: seqs, ViewsRead: true, Views: vs}
			rel := base
			rel.Facts = &wal.Facts{Kind: 'r', Schema: sf}
			got, err := decodeRel(encodeRel(&rel))
			if err != nil {
				t.Fatal(err)
			}
			if !got.Facts.Schema.ViewsRead || !got.Facts.Schema.Equal(sf) {
				t.Errorf("sequences %v: decoded %+v, want %+v", seqs, got.Facts.Schema, sf)
			}
		}
	}
	old := base
	old.Facts = &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{SequencesRead: true}}
	got, err := decodeRel(encodeRel(&old))
	if err != nil {
		t.Fatal(err)
	}
	if got.Facts.Schema.ViewsRead || got.Facts.Schema.Views != nil {
		t.Errorf("a record without views decoded %+v", got.Facts.Schema)
	}
}
