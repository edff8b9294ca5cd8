package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestAccessRoundTrip: a table's ACLs (NULL apart from empty), column
// ACLs, policies and index columns survive the relation record (after
// the listings' facts, and without them), a record written before
// decodes with Access nil, and a change is a change of the facts.
func TestAccessRoundTrip(t *testing.T) {
	a := &wal.AccessFacts{
		ACLs:       []wal.RelationACL{{OID: 7, ACL: []string{"postgres=arwdDxt/postgres", "r=r/postgres"}}, {OID: 8}, {OID: 9, ACL: []string{}}},
		ColumnACLs: []wal.ColumnACL{{Rel: 7, Column: "v", ACL: []string{"r=w/postgres"}}},
		Policies: []wal.PolicyFacts{{OID: 20, Name: "p1", Cmd: 'r', Permissive: true, Roles: []uint32{0}, HasQual: true, Qual: "(w > 0)", QualPretty: "w > 0"},
			{OID: 21, Name: "p2", Cmd: '*', Roles: []uint32{10, 16384}, HasWithCheck: true, WithCheck: "true", CheckPretty: "true"}},
		Indexes: []wal.IndexColumns{{OID: 30, Deferrable: true, Columns: []wal.IndexColumn{{Name: "id", Type: "integer", Def: "id", Storage: 'p'},
			{Name: "lower", Type: "text", Def: "lower(v)", Storage: 'x', StatTarget: "100"}}}},
	}
	l := &wal.ListingFacts{EventTriggers: 1, LanguageComments: []wal.ObjectComment{}}
	for _, li := range []*wal.ListingFacts{nil, l} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Listings: li, Access: a}}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || !got.Facts.Schema.Access.Equal(a) || !got.Facts.Schema.Listings.Equal(li) {
			t.Errorf("listings %v: decoded %+v, want %+v", li != nil, got.Facts.Schema.Access, a)
		}
		if got.Facts.Schema.Access.ACLs[1].ACL != nil || got.Facts.Schema.Access.ACLs[2].ACL == nil {
			t.Errorf("listings %v: NULL and empty ACLs decoded as %#v", li != nil, got.Facts.Schema.Access.ACLs)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.Access = nil })
		if got.Facts.Schema == nil || got.Facts.Schema.Access != nil || !got.Facts.Schema.Listings.Equal(li) {
			t.Errorf("listings %v: an older record decoded with access %+v", li != nil, got.Facts.Schema)
		}
	}
	for _, change := range []func(*wal.AccessFacts){
		func(c *wal.AccessFacts) { c.ACLs = []wal.RelationACL{c.ACLs[0], {OID: 8, ACL: []string{}}, c.ACLs[2]} },
		func(c *wal.AccessFacts) { c.Policies = []wal.PolicyFacts{c.Policies[0]} },
		func(c *wal.AccessFacts) { c.ColumnACLs = nil },
		func(c *wal.AccessFacts) { c.Indexes = []wal.IndexColumns{{OID: 30, Deferrable: true}} },
	} {
		changed := *a
		change(&changed)
		if a.Equal(&changed) || (&wal.SchemaFacts{Access: a}).Equal(&wal.SchemaFacts{Access: &changed}) {
			t.Errorf("a change compares equal: %+v", changed)
		}
	}
}
