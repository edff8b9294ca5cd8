package mirror

import (
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestNotCarriedRoundTrip: the generated columns the stream does not
// carry survive the relation record, with and without the schema facts
// before them, and a record without the section decodes with none.
func TestNotCarriedRoundTrip(t *testing.T) {
	for _, schema := range []*wal.SchemaFacts{nil, {}} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "incidents", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 20, TypeMod: -1, Key: true}, {Name: "opened", TypeOID: 1184, TypeMod: -1}},
			Facts:   &wal.Facts{Kind: 'r', Schema: schema, NotCarried: []string{"duration", "Later One"}}}
		got, err := decodeRel(encodeRel(rel))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Facts.NotCarried, rel.Facts.NotCarried) || !got.Facts.Equal(rel.Facts) {
			t.Errorf("schema %v: decoded %+v, want %+v", schema != nil, got.Facts, rel.Facts)
		}
		rel.Facts.NotCarried = nil
		got, err = decodeRel(encodeRel(rel))
		if err != nil {
			t.Fatal(err)
		}
		if got.Facts.NotCarried != nil {
			t.Errorf("schema %v: decoded %v, want none", schema != nil, got.Facts.NotCarried)
		}
	}
}
