package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestTypeDetailRoundTrip: the types' details (other types, ACLs,
// comments, domain constraints, collations) survive the relation record
// (after the listings, and without them), a record written before
// decodes with TypeDetail nil, and a change is a change of the facts.
func TestTypeDetailRoundTrip(t *testing.T) {
	d := &wal.TypeDetailFacts{
		Types: []wal.OtherType{{TypeFacts: wal.TypeFacts{OID: 16500, Namespace: 2200, Owner: 10, Name: "pair", Len: -1, Type: 'c', Category: 'C',
			Delim: ',', Align: 'd', Storage: 'x', Array: 16499, TypMod: -1}, Relid: 16498, Defined: true},
			{TypeFacts: wal.TypeFacts{OID: 16510, Namespace: 2200, Owner: 10, Name: "shell", Len: 4, ByVal: true, Type: 'p', Category: 'P', Delim: ',', Align: 'i', Storage: 'p', TypMod: -1}}},
		ACLs:     []wal.TypeACL{{OID: 16500, ACL: []string{"=U/postgres", "alice=U/postgres"}}, {OID: 16510, ACL: []string{}}},
		Comments: []wal.ObjectComment{{OID: 16500, Comment: "a pair"}},
		Constraints: []wal.DomainConstraint{{OID: 16520, TypeOID: 16519, Namespace: 2200, Name: "posint_check", Type: 'c', Validated: true, Local: true,
			Def: "CHECK ((VALUE > 0))", DefPretty: "CHECK (VALUE > 0)"}},
		Collations: []wal.CollationRow{{OID: 950, Namespace: 11, Owner: 10, Name: "C", Provider: 'c', Deterministic: true, Encoding: -1, Collate: "C", Ctype: "C",
			LocaleNull: true, RulesNull: true, VersionNull: true}, {OID: 16530, Namespace: 2200, Owner: 10, Name: "mine", Provider: 'i', Encoding: -1,
			CollateNull: true, CtypeNull: true, Locale: "und", Version: "153.120"}},
		CollationNamesakes: []wal.TypeName{{Namespace: "other", Name: "mine"}},
		Namespaces:         []wal.NamespaceFacts{{OID: 2200, Name: "public", OwnerOID: 6171, Owner: "pg_database_owner"}},
		Namesakes:          []wal.TypeName{{Namespace: "other", Name: "pair"}},
		CollationComments:  []wal.ObjectComment{{OID: 16530, Comment: "mine"}},
	}
	l := &wal.ListingFacts{EventTriggers: 1, LanguageComments: []wal.ObjectComment{}}
	for _, lf := range []*wal.ListingFacts{nil, l} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Listings: lf, TypeDetail: d}}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || !got.Facts.Schema.TypeDetail.Equal(d) || !got.Facts.Schema.Listings.Equal(lf) {
			t.Errorf("listings %v: decoded %+v, want %+v", lf != nil, got.Facts.Schema.TypeDetail, d)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Schema.TypeDetail = nil })
		if got.Facts.Schema == nil || got.Facts.Schema.TypeDetail != nil || !got.Facts.Schema.Listings.Equal(lf) {
			t.Errorf("listings %v: an older record decoded with type details %+v", lf != nil, got.Facts.Schema)
		}
	}
	for _, change := range []func(*wal.TypeDetailFacts){
		func(c *wal.TypeDetailFacts) { c.ACLs = []wal.TypeACL{{OID: 16500, ACL: []string{"=U/postgres"}}} },
		func(c *wal.TypeDetailFacts) { c.Constraints = nil },
		func(c *wal.TypeDetailFacts) { c.Collations = c.Collations[:1] },
	} {
		changed := *d
		change(&changed)
		if d.Equal(&changed) || (&wal.SchemaFacts{TypeDetail: d}).Equal(&wal.SchemaFacts{TypeDetail: &changed}) {
			t.Errorf("a change compares equal: %+v", changed)
		}
	}
}
