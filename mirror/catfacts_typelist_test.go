package mirror

import (
	"encoding/hex"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestTypeListRoundTrip: every pg_type row as pgjdbc reads them (section
// 'z') survives the relation record after every other section in its
// order (the scan order getTypeInfo shows), a record written before
// decodes with TypeList nil, unread rows stay unread (nil, not empty),
// the section's bytes are the ones pinned here (records on disk decode
// as written), and a change is a change of the facts (the poll records
// it).
func TestTypeListRoundTrip(t *testing.T) {
	l := &wal.TypeListFacts{Types: []wal.TypeListEntry{
		{OID: 16, Namespace: 11, Name: "bool", Type: 'b'},
		{OID: 1000, Namespace: 11, Name: "_bool", Type: 'b', IsArray: true},
		{OID: 16390, Namespace: 2200, Name: "t", Type: 'c', RelKind: 'r'},
		{OID: 16400, Namespace: 2200, Name: "posint", Type: 'd', BaseType: 23, Comment: "positive"},
		{OID: 16380, Namespace: 16385, Name: "pair", Type: 'c', RelKind: 'c'},
	}}
	for _, typs := range []*wal.TypeListFacts{l, {}, {Types: l.Types[:1], TempTypes: true}} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts: &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Relations: &wal.RelationListFacts{Namespaces: []wal.NamespaceOwner{}}, TypeList: typs},
				ColumnTypes: []wal.ColumnType{{Name: "integer", Kind: 'b'}}}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		g := got.Facts.Schema.TypeList
		if !got.Facts.Equal(rel.Facts) || !g.Equal(typs) || (g.Types == nil) != (typs.Types == nil) || g.TempTypes != typs.TempTypes {
			t.Fatalf("decoded %+v, want %+v", g, typs)
		}
		older := olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.TypeList = nil })
		if older.Facts.Schema == nil || older.Facts.Schema.TypeList != nil || older.Facts.Schema.Relations == nil {
			t.Errorf("an older record decoded with pg_type rows %+v", older.Facts.Schema)
		}
	}
	var e enc
	encodeTypeList(&e, &wal.Facts{Schema: &wal.SchemaFacts{TypeList: &wal.TypeListFacts{Types: l.Types[3:4]}}})
	if got, want := hex.EncodeToString(e.b), "0101908001981106706f73696e746400001708706f736974697665"; got != want {
		t.Errorf("section 'z' body %s, want %s", got, want)
	}
	for i, change := range []func(c *wal.TypeListFacts){
		func(c *wal.TypeListFacts) { c.Types[0], c.Types[1] = c.Types[1], c.Types[0] }, // the scan order moved
		func(c *wal.TypeListFacts) { c.Types[2].RelKind = 'v' },
		func(c *wal.TypeListFacts) { c.Types[3].Comment = "" },
		func(c *wal.TypeListFacts) { c.Types[3].BaseType = 20 },
		func(c *wal.TypeListFacts) { c.Types[1].IsArray = false },
		func(c *wal.TypeListFacts) { c.Types = c.Types[:4] },
		func(c *wal.TypeListFacts) { c.Types = nil },
		func(c *wal.TypeListFacts) { c.TempTypes = true },
	} {
		c := wal.TypeListFacts{Types: append([]wal.TypeListEntry(nil), l.Types...)}
		change(&c)
		if l.Equal(&c) || (&wal.SchemaFacts{TypeList: l}).Equal(&wal.SchemaFacts{TypeList: &c}) {
			t.Errorf("change %d: the facts compare equal", i)
		}
	}
}
