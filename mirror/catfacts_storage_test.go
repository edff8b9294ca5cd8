package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestStorageFactsRoundTrip: psql \d+'s facts (column storage,
// compression, statistics targets, the TOAST table's options, replica
// identity, row security and the policy and statistics counts) decode to
// what was encoded, also when the parts before them were not read; a
// record without them decodes with StorageRead false.
func TestStorageFactsRoundTrip(t *testing.T) {
	for _, before := range []bool{true, false} {
		for _, toast := range [][]string{nil, {}, {"autovacuum_enabled=false"}} {
			sf := &wal.SchemaFacts{OwnerOID: 10, Owner: "postgres", NamespacesRead: before, SequencesRead: before, ViewsRead: before, StorageRead: true,
				ColumnStorage: []string{"p", "x"}, ColumnCompression: []string{"", "pglz"}, ColumnStatTargets: []string{"", "500"},
				ToastOptions: toast, ReplIdent: 'f', RowSecurity: true, ForceRowSecurity: before, Policies: 2, StatisticsObjects: 1, UserFunctions: 3}
			rel := wal.Relation{OID: 7, Schema: "s", Name: "t", Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}, {Name: "b", TypeOID: 25, TypeMod: -1}},
				Facts: &wal.Facts{Kind: 'r', Columns: []wal.ColumnFacts{{NotNull: true}, {}}, Schema: sf}}
			got, err := decodeRel(encodeRel(&rel))
			if err != nil {
				t.Fatal(err)
			}
			if !got.Facts.Schema.Equal(sf) {
				t.Errorf("parts before read %v, toast %v: decoded %+v, want %+v", before, toast, got.Facts.Schema, sf)
			}
		}
	}
	sf := &wal.SchemaFacts{OwnerOID: 10, Owner: "postgres"}
	rel := wal.Relation{OID: 7, Schema: "s", Name: "t", Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
		Facts: &wal.Facts{Kind: 'r', Columns: []wal.ColumnFacts{{NotNull: true}}, Schema: sf}}
	got, err := decodeRel(encodeRel(&rel))
	if err != nil || got.Facts.Schema.StorageRead {
		t.Errorf("without storage facts: %v, StorageRead %v", err, got.Facts.Schema.StorageRead)
	}
}
