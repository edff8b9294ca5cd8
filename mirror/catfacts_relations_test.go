package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestRelationListRoundTrip: every relation and schema of the database
// (section 'w') survives the relation record after every other section,
// a record written before decodes with Relations nil, unread relations
// stay unread, NULL and empty ACLs and reloptions stay apart, a
// sequence's parameters survive, and a change is a change of the facts
// (the poll records it).
func TestRelationListRoundTrip(t *testing.T) {
	l := &wal.RelationListFacts{Relations: []wal.RelationDetail{
		{OID: 16500, Namespace: 2200, Name: "counter", Kind: 'S', Owner: 10, Persistence: 'p', ACL: []string{"postgres=rwU/postgres"}, HasACL: true,
			Sequence: &wal.SequenceParams{TypeOID: 20, Start: 1, Increment: 1, Max: 9223372036854775807, Min: 1, Cache: 1},
			Class:    wal.ClassColumns{Natts: 3, IsPopulated: true, ReplIdent: 'n'}},
		{OID: 16501, Namespace: 16390, Name: "unpublished", Kind: 'r', Owner: 16384, Persistence: 'u', Comment: "not followed", HasComment: true, RelOptions: []string{}},
		{OID: 16502, Namespace: 2200, Name: "mv", Kind: 'm', Owner: 10, Persistence: 'p', HasACL: true, RelOptions: []string{"fillfactor=50"}},
		{OID: 16503, Namespace: 2200, Name: "down", Kind: 'S', Owner: 10, Persistence: 'p', Identity: true,
			Sequence: &wal.SequenceParams{TypeOID: 23, Start: -1, Increment: -2, Max: -1, Min: -2147483648, Cache: 5, Cycle: true}},
	}, Namespaces: []wal.NamespaceOwner{{OID: 11, Name: "pg_catalog", Owner: 10}, {OID: 2200, Name: "public", Owner: 6171}, {OID: 16390, Name: "empty", Owner: 16384}}}
	for _, rels := range []*wal.RelationListFacts{l, {Namespaces: l.Namespaces}} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Psql: &wal.PsqlFacts{Namespaces: []wal.NamespaceDetail{}}, Relations: rels}, ColumnTypes: []wal.ColumnType{{Name: "integer", Kind: 'b'}}}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		g := got.Facts.Schema.Relations
		if !got.Facts.Equal(rel.Facts) || !g.Equal(rels) || (g.Relations == nil) != (rels.Relations == nil) {
			t.Fatalf("decoded %+v, want %+v", g, rels)
		}
		if rels == l && (g.Relations[1].RelOptions == nil || g.Relations[0].RelOptions != nil || g.Relations[2].ACL != nil || !g.Relations[2].HasACL ||
			g.Relations[3].Sequence.Min != -2147483648 || !g.Relations[3].Sequence.Cycle || g.Relations[0].Class.Natts != 3 || g.Relations[0].Class.ReplIdent != 'n' || !g.Relations[3].Identity || g.Relations[0].Identity) {
			t.Errorf("decoded %+v: NULL/empty or the parameters not kept", g.Relations)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.Relations = nil })
		if got.Facts.Schema == nil || got.Facts.Schema.Relations != nil || got.Facts.Schema.Psql == nil {
			t.Errorf("an older record decoded with relations %+v", got.Facts.Schema)
		}
	}
	for i, change := range []func(c *wal.RelationListFacts){
		func(c *wal.RelationListFacts) { c.Relations[0].Sequence = &wal.SequenceParams{TypeOID: 20, Start: 2} },
		func(c *wal.RelationListFacts) { c.Relations[1].RelOptions = nil },
		func(c *wal.RelationListFacts) { c.Relations[2].Name = "mv2" },
		func(c *wal.RelationListFacts) { c.Relations[0].Class.ForceRowSecurity = true },
		func(c *wal.RelationListFacts) { c.Relations[3].Identity = false },
		func(c *wal.RelationListFacts) { c.Relations[1].Class.Tablespace = 1663 },
		func(c *wal.RelationListFacts) { c.Relations[2].HasACL = false },
		func(c *wal.RelationListFacts) { c.Relations = nil },
		func(c *wal.RelationListFacts) { c.Namespaces = c.Namespaces[:2] },
		func(c *wal.RelationListFacts) { c.Namespaces[2].Owner = 10 },
	} {
		c := wal.RelationListFacts{Relations: append([]wal.RelationDetail(nil), l.Relations...), Namespaces: append([]wal.NamespaceOwner(nil), l.Namespaces...)}
		change(&c)
		if l.Equal(&c) || (&wal.SchemaFacts{Relations: l}).Equal(&wal.SchemaFacts{Relations: &c}) {
			t.Errorf("change %d: the facts compare equal", i)
		}
	}
}
