package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestPublicationsRoundTrip: the database's publications survive the
// relation record (with and without the user types before them), a
// record written before them decodes with Publications nil, and their
// bytes are appended after an older record's.
func TestPublicationsRoundTrip(t *testing.T) {
	pubs := &wal.PublicationFacts{
		Publications: []wal.PublicationRow{
			{OID: 16400, Owner: 10, Name: "sidecar", Insert: true, Update: true, Delete: true, Truncate: true},
			{OID: 16401, Owner: 16384, Name: "everything", AllTables: true, Insert: true, ViaRoot: true, GenCols: 's'},
		},
		Rels: []wal.PublicationRel{
			{OID: 16402, PubOID: 16400, RelOID: 16390},
			{OID: 16403, PubOID: 16400, RelOID: 16395, HasQual: true, Qual: "(id > 10)", QualPretty: "id > 10", Attrs: []int16{1, 3}, AttrNames: []string{"id", "c"}},
			{OID: 16404, PubOID: 16401, RelOID: 16396, Attrs: []int16{}, AttrNames: []string{}},
		},
		Namespaces: []wal.PublicationNamespace{{OID: 16405, PubOID: 16401, NspOID: 2200}},
	}
	ut := &wal.UserTypeFacts{Namespaces: []wal.NamespaceFacts{{OID: 2200, Name: "public", OwnerOID: 10, Owner: "pg_database_owner"}}}
	for _, types := range []*wal.UserTypeFacts{nil, ut} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}, {Name: "v", TypeOID: 25, TypeMod: -1}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{UserTypes: types, Publications: pubs}}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || !got.Facts.Schema.Publications.Equal(pubs) || got.Facts.Schema.Publications.Rels[0].Attrs != nil ||
			got.Facts.Schema.Publications.Rels[2].Attrs == nil {
			t.Errorf("user types %v: decoded %+v, want %+v", types != nil, got.Facts.Schema.Publications, pubs)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.Publications = nil })
		if got.Facts.Schema == nil || got.Facts.Schema.Publications != nil {
			t.Errorf("user types %v: an older record decoded with publications %+v", types != nil, got.Facts.Schema)
		}
		// A table added to a publication is a change of the facts (the
		// poll records it).
		changed := *pubs
		changed.Rels = pubs.Rels[:2]
		if pubs.Equal(&changed) || (&wal.SchemaFacts{Publications: pubs}).Equal(&wal.SchemaFacts{Publications: &changed}) {
			t.Errorf("a dropped publication table compares equal")
		}
	}
}
