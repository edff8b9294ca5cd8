package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestUserTypesRoundTrip: the database's domains and enums survive the
// relation record (with and without the column numbers before them), a
// record written before them decodes with UserTypes nil, and the bytes
// are appended after an older record's.
func TestUserTypesRoundTrip(t *testing.T) {
	ut := &wal.UserTypeFacts{
		Types: []wal.TypeFacts{
			{OID: 16390, Namespace: 2200, Owner: 10, Name: "posint", Len: 4, ByVal: true, Type: 'd', Category: 'N', Delim: ',', Align: 'i', Storage: 'p',
				Array: 16389, NotNull: true, BaseType: 23, TypMod: -1, Default: "1", HasDefault: true},
			{OID: 16389, Namespace: 2200, Owner: 10, Name: "_posint", Len: -1, Type: 'b', Category: 'A', Delim: ',', Align: 'i', Storage: 'x', Elem: 16390, TypMod: -1, NDims: 0},
			{OID: 16396, Namespace: 2200, Owner: 10, Name: "ints", Len: -1, Type: 'd', Category: 'A', Delim: ',', Align: 'i', Storage: 'x', BaseType: 1007, TypMod: -1, NDims: 1},
			{OID: 16392, Namespace: 16400, Owner: 10, Name: "mood", Len: 4, ByVal: true, Type: 'e', Category: 'E', Delim: ',', Align: 'i', Storage: 'p', Array: 16391, TypMod: -1},
		},
		Labels:     []wal.EnumLabel{{OID: 16394, TypeOID: 16392, SortOrder: 1, Label: "a"}, {OID: 16395, TypeOID: 16392, SortOrder: 1.5, Label: "b c"}},
		Namespaces: []wal.NamespaceFacts{{OID: 2200, Name: "public", OwnerOID: 10, Owner: "pg_database_owner"}, {OID: 16400, Name: "s", OwnerOID: 10, Owner: "postgres"}},
		Namesakes:  []wal.TypeName{{Namespace: "s", Name: "posint"}},
	}
	for _, attnums := range [][]int16{nil, {1, 2}} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}, {Name: "v", TypeOID: 25, TypeMod: -1}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{UserTypes: ut}, AttNums: attnums}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || got.Facts.Schema.UserTypes == nil {
			t.Errorf("attnums %v: decoded %+v, want %+v", attnums, got.Facts.Schema.UserTypes, ut)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.UserTypes = nil })
		if got.Facts.Schema == nil || got.Facts.Schema.UserTypes != nil {
			t.Errorf("attnums %v: an older record decoded with user types %+v", attnums, got.Facts.Schema)
		}
		// A change of one label is a change of the facts (the poll records it).
		changed := *ut
		changed.Labels = []wal.EnumLabel{ut.Labels[0]}
		if ut.Equal(&changed) || (&wal.SchemaFacts{UserTypes: ut}).Equal(&wal.SchemaFacts{UserTypes: &changed}) {
			t.Errorf("a dropped label compares equal")
		}
	}
}
