package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestColumnFactsRoundTrip: the column facts section decodes to what was
// encoded, and a record written without it (older sidecars) decodes with
// no column facts.
func TestColumnFactsRoundTrip(t *testing.T) {
	rel := &wal.Relation{OID: 7, Schema: "public", Name: "items", Identity: wal.IdentityDefault,
		Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}, {Name: "name", TypeOID: 1043, TypeMod: 24}},
		Facts: &wal.Facts{Kind: 'r', Columns: []wal.ColumnFacts{{NotNull: true, HasDefault: true, Default: "nextval('items_id_seq'::regclass)"},
			{NotNull: true, HasDefault: true, Default: "'x'::character varying", DefaultPretty: "'x'::character varying", Identity: 'a', Generated: 's'}},
			PrimaryKey: &wal.KeyConstraint{Name: "items_key", Columns: []string{"id"}}}}
	got, err := decodeRel(encodeRel(rel))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Facts.Equal(rel.Facts) {
		t.Errorf("decoded %+v, want %+v", got.Facts, rel.Facts)
	}
	old := *rel
	f := *rel.Facts
	f.Columns, f.PrimaryKey = nil, nil
	old.Facts = &f
	got, err = decodeRel(encodeRel(&old))
	if err != nil {
		t.Fatal(err)
	}
	if got.Facts.Columns != nil || got.Facts.PrimaryKey != nil || !got.Facts.Equal(&f) {
		t.Errorf("decoded %+v, want no column facts", got.Facts)
	}
}
