package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestExtensionsRoundTrip: the database's extensions survive the
// relation record (with and without the publications before them), a
// record written before them decodes with Extensions nil, their bytes
// are appended after an older record's, and NULL extconfig/extcondition
// stay apart from empty ones.
func TestExtensionsRoundTrip(t *testing.T) {
	exts := &wal.ExtensionFacts{
		Extensions: []wal.ExtensionRow{
			{OID: 13500, Owner: 10, Namespace: 11, Name: "plpgsql", Version: "1.0", HasComment: true, Comment: "PL/pgSQL procedural language"},
			{OID: 16400, Owner: 16384, Namespace: 16399, Name: "postgis", Version: "3.4.2", Relocatable: false, Members: []string{"function gis.st_x(geometry)", "type geometry"},
				Config: []uint32{16410}, Condition: []string{"WHERE NOT (srid BETWEEN 2000 AND 6999)"}},
			{OID: 16401, Owner: 10, Namespace: 2200, Name: "hstore", Version: "1.8", Relocatable: true, Config: []uint32{}, Condition: []string{},
				HasComment: true, Comment: ""},
		},
		Namespaces:  []wal.NamespaceFacts{{OID: 11, Name: "pg_catalog", OwnerOID: 10, Owner: "postgres"}, {OID: 16399, Name: "gis", OwnerOID: 16384, Owner: "alice"}},
		MembersRead: true, Schemas: []string{"gis", "information_schema", "pg_catalog", "pg_toast", "public"},
	}
	pubs := &wal.PublicationFacts{Publications: []wal.PublicationRow{{OID: 16402, Owner: 10, Name: "sidecar", Insert: true}}}
	for _, p := range []*wal.PublicationFacts{nil, pubs} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Publications: p, Extensions: exts}}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		gx := got.Facts.Schema.Extensions
		if !got.Facts.Equal(rel.Facts) || !gx.Equal(exts) || gx.Extensions[0].Config != nil || gx.Extensions[0].Condition != nil ||
			gx.Extensions[2].Config == nil || gx.Extensions[2].Condition == nil || !gx.Extensions[2].HasComment {
			t.Errorf("publications %v: decoded %+v, want %+v", p != nil, gx, exts)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.Extensions = nil })
		if got.Facts.Schema == nil || got.Facts.Schema.Extensions != nil || !got.Facts.Schema.Publications.Equal(p) {
			t.Errorf("publications %v: an older record decoded with extensions %+v", p != nil, got.Facts.Schema)
		}
	}
	// An extension updated (ALTER EXTENSION … UPDATE), commented or
	// dropped is a change of the facts (the poll records it).
	for _, change := range []func(x *wal.ExtensionFacts){
		func(x *wal.ExtensionFacts) { x.Extensions[2].Version = "1.7" },
		func(x *wal.ExtensionFacts) { x.Extensions[0].Comment = "" },
		func(x *wal.ExtensionFacts) { x.Extensions[2].HasComment = false },
		func(x *wal.ExtensionFacts) { x.Extensions[1].Config = nil },
		func(x *wal.ExtensionFacts) { x.Extensions = x.Extensions[:2] },
		func(x *wal.ExtensionFacts) { x.Extensions[1].Members = x.Extensions[1].Members[:1] },
		func(x *wal.ExtensionFacts) { x.Schemas = x.Schemas[1:] },
		func(x *wal.ExtensionFacts) { x.MembersRead = false },
	} {
		c := *exts
		c.Extensions = append([]wal.ExtensionRow(nil), exts.Extensions...)
		change(&c)
		if exts.Equal(&c) || (&wal.SchemaFacts{Extensions: exts}).Equal(&wal.SchemaFacts{Extensions: &c}) {
			t.Errorf("a changed extension compares equal: %+v", c.Extensions)
		}
	}
}
