package mirror

import (
	"slices"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestEnumHistoryFacts: the label history (issue 21, enum item) is
// carried from the stored facts to the polled ones (the catalog has only
// the current labels), survives the record's encoding, and a record
// without it encodes as before (no byte added: TestFactsEncodingGolden).
func TestEnumHistoryFacts(t *testing.T) {
	rel := func(labels ...wal.EnumLabel) *wal.Relation {
		return &wal.Relation{Schema: "public", Name: "er", Columns: []wal.Column{{Name: "id", TypeOID: 23, Key: true}},
			Facts: &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{UserTypes: &wal.UserTypeFacts{
				Types:  []wal.TypeFacts{{OID: 16400, Name: "mood", Type: 'e'}},
				Labels: labels,
			}}}}
	}
	before := rel(wal.EnumLabel{OID: 16401, TypeOID: 16400, SortOrder: 1, Label: "sad"}, wal.EnumLabel{OID: 16402, TypeOID: 16400, SortOrder: 2, Label: "ok"})
	// RENAME VALUE 'sad' TO 'blue'; ADD VALUE 'sad'.
	after := rel(wal.EnumLabel{OID: 16401, TypeOID: 16400, SortOrder: 1, Label: "blue"}, wal.EnumLabel{OID: 16402, TypeOID: 16400, SortOrder: 2, Label: "ok"},
		wal.EnumLabel{OID: 16403, TypeOID: 16400, SortOrder: 3, Label: "sad"})
	if got := withEnumHistory(before, before); got != before {
		t.Fatal("no rename: the facts were copied")
	}
	got := withEnumHistory(after, before)
	u := got.Facts.Schema.UserTypes
	if want := []wal.RetiredLabel{{OID: 16401, TypeOID: 16400, Label: "sad"}}; !slices.Equal(u.Retired, want) {
		t.Fatalf("retired %+v, want %+v", u.Retired, want)
	}
	if after.Facts.Schema.UserTypes.Retired != nil {
		t.Fatal("the polled facts were modified")
	}
	if amb := u.AmbiguousLabels(16400); len(amb) != 1 || amb["sad"] != struct{}{} {
		t.Fatalf("ambiguous %v, want sad", amb)
	}
	// The next poll (another label added) keeps the history.
	next := rel(append(slices.Clone(after.Facts.Schema.UserTypes.Labels), wal.EnumLabel{OID: 16404, TypeOID: 16400, SortOrder: 4, Label: "calm"})...)
	if again := withEnumHistory(next, got).Facts.Schema.UserTypes; !slices.Equal(again.Retired, u.Retired) {
		t.Fatalf("the next poll's history %+v, want %+v", again.Retired, u.Retired)
	}
	if got.SameFacts(after) || !withEnumHistory(after, got).SameFacts(got) {
		t.Fatal("facts with history compare equal to facts without, or a poll of the same labels differs")
	}
	dec, err := decodeRel(encodeRel(got))
	if err != nil {
		t.Fatal(err)
	}
	if !dec.SameFacts(got) {
		t.Fatalf("decoded %+v, want %+v", dec.Facts.Schema.UserTypes, u)
	}
	if len(encodeRel(after)) >= len(encodeRel(got)) {
		t.Fatal("the history took no bytes")
	}
	if dec, err := decodeRel(encodeRel(after)); err != nil || dec.Facts.Schema.UserTypes.Retired != nil || dec.Facts.Schema.UserTypes.RetiredLost {
		t.Fatalf("a record without history decodes with %+v (%v)", dec.Facts.Schema.UserTypes, err)
	}
}
