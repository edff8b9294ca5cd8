package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestListingsRoundTrip: what psql's listings read survives the
// relation record (after the publications, and without them), a record
// written before decodes with Listings nil, and a change is a change
// of the facts.
func TestListingsRoundTrip(t *testing.T) {
	l := &wal.ListingFacts{EventTriggers: 2, UserOperators: 7, LanguageComments: []wal.ObjectComment{{OID: 13, Comment: "built-in functions"}, {OID: 13569, Comment: "PL/pgSQL procedural language"}}}
	pubs := &wal.PublicationFacts{Publications: []wal.PublicationRow{{OID: 16400, Owner: 10, Name: "sidecar", Insert: true}}}
	for _, p := range []*wal.PublicationFacts{nil, pubs} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Publications: p, Listings: l}}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || !got.Facts.Schema.Listings.Equal(l) || !got.Facts.Schema.Publications.Equal(p) {
			t.Errorf("publications %v: decoded %+v, want %+v", p != nil, got.Facts.Schema.Listings, l)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.Listings = nil })
		if got.Facts.Schema == nil || got.Facts.Schema.Listings != nil || !got.Facts.Schema.Publications.Equal(p) {
			t.Errorf("publications %v: an older record decoded with listings %+v", p != nil, got.Facts.Schema)
		}
	}
	changed := *l
	changed.EventTriggers = 0
	if l.Equal(&changed) || (&wal.SchemaFacts{Listings: l}).Equal(&wal.SchemaFacts{Listings: &changed}) {
		t.Error("a dropped event trigger compares equal")
	}
}
