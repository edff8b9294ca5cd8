package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestPsqlFactsRoundTrip: what psql's describe commands read (section
// 'v': the schemas' ACLs and comments) survives the relation record
// after every other section (with and without the column types before
// it), a record written before decodes with Psql nil, an empty ACL
// stays an ACL (not NULL), and a change is a change of the facts (the
// poll records it).
func TestPsqlFactsRoundTrip(t *testing.T) {
	p := &wal.PsqlFacts{Namespaces: []wal.NamespaceDetail{
		{OID: 11, Name: "pg_catalog", ACL: []string{"postgres=UC/postgres", "=U/postgres"}, HasACL: true, Comment: "system catalog schema", HasComment: true},
		{OID: 2200, Name: "public", ACL: []string{"pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"}, HasACL: true, Comment: "", HasComment: true},
		{OID: 16390, Name: "shop"},
		{OID: 16391, Name: "locked", HasACL: true},
	}}
	for _, cts := range [][]wal.ColumnType{nil, {{Name: "integer", Kind: 'b'}}} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Listings: &wal.ListingFacts{}, Psql: p}, ColumnTypes: cts}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || !got.Facts.Schema.Psql.Equal(p) || !got.Facts.Schema.Psql.Namespaces[3].HasACL ||
			got.Facts.Schema.Psql.Namespaces[2].HasACL || !got.Facts.Schema.Psql.Namespaces[1].HasComment {
			t.Errorf("column types %v: decoded %+v, want %+v", cts != nil, got.Facts.Schema.Psql, p)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.Psql = nil })
		if got.Facts.Schema == nil || got.Facts.Schema.Psql != nil || !got.Facts.Schema.Listings.Equal(&wal.ListingFacts{}) {
			t.Errorf("column types %v: an older record decoded with psql facts %+v", cts != nil, got.Facts.Schema)
		}
	}
	for i, change := range []func(n []wal.NamespaceDetail){
		func(n []wal.NamespaceDetail) { n[2].ACL, n[2].HasACL = []string{"a=U/b"}, true },
		func(n []wal.NamespaceDetail) { n[3].HasACL = false },
		func(n []wal.NamespaceDetail) { n[0].Comment = "other" },
		func(n []wal.NamespaceDetail) { n[1].HasComment = false },
		func(n []wal.NamespaceDetail) { n[2].Name = "store" },
	} {
		c := *p
		c.Namespaces = append([]wal.NamespaceDetail(nil), p.Namespaces...)
		change(c.Namespaces)
		if p.Equal(&c) || (&wal.SchemaFacts{Psql: p}).Equal(&wal.SchemaFacts{Psql: &c}) {
			t.Errorf("change %d: the facts compare equal", i)
		}
	}
	if (&wal.SchemaFacts{Psql: p}).Equal(&wal.SchemaFacts{}) {
		t.Error("facts without the psql section compare equal to facts with it")
	}
}
