package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestPsqlFactsRoundTrip: what psql's describe commands read (section
// 'v': the schemas' ACLs and comments) survives the relation record
// after every other section (with and without the column types before
// it), a record written before decodes with Psql nil, an empty ACL
// stays an ACL (not NULL), the functions survive (unread stays
// unread), and a change is a change of the facts (the
// poll records it).
func TestPsqlFactsRoundTrip(t *testing.T) {
	p := &wal.PsqlFacts{Namespaces: []wal.NamespaceDetail{
		{OID: 11, Name: "pg_catalog", ACL: []string{"postgres=UC/postgres", "=U/postgres"}, HasACL: true, Comment: "system catalog schema", HasComment: true},
		{OID: 2200, Name: "public", ACL: []string{"pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"}, HasACL: true, Comment: "", HasComment: true},
		{OID: 16390, Name: "shop"},
		{OID: 16391, Name: "locked", HasACL: true},
	}, Functions: []wal.FunctionDetail{
		{OID: 16400, Schema: "public", Name: "add", ArgTypes: []uint32{23, 23}, Def: "CREATE OR REPLACE FUNCTION public.add(a integer, b integer)\n ...", Kind: 'f'},
		{OID: 16401, Schema: "shop", Name: "upper", ArgTypes: []uint32{}, Kind: 'p', BuiltinSameName: 3},
		{OID: 16402, Schema: "shop", Name: "total", ArgTypes: []uint32{23}, Kind: 'a'},
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
			got.Facts.Schema.Psql.Namespaces[2].HasACL || !got.Facts.Schema.Psql.Namespaces[1].HasComment || len(got.Facts.Schema.Psql.Functions) != 3 {
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
	for i, change := range []func(f []wal.FunctionDetail){
		func(f []wal.FunctionDetail) { f[0].Def += " " },
		func(f []wal.FunctionDetail) { f[1].BuiltinSameName = 0 },
		func(f []wal.FunctionDetail) { f[2].ArgTypes = []uint32{20} },
		func(f []wal.FunctionDetail) { f[1].Kind = 'f' },
	} {
		c := *p
		c.Functions = append([]wal.FunctionDetail(nil), p.Functions...)
		change(c.Functions)
		if p.Equal(&c) {
			t.Errorf("function change %d: the facts compare equal", i)
		}
	}
	if unread := (wal.PsqlFacts{Namespaces: p.Namespaces}); p.Equal(&unread) || !(&unread).Equal(&wal.PsqlFacts{Namespaces: p.Namespaces}) {
		t.Error("functions not read compare equal to functions read, or unread twice differ")
	}
	if (&wal.SchemaFacts{Psql: p}).Equal(&wal.SchemaFacts{}) {
		t.Error("facts without the psql section compare equal to facts with it")
	}
}
