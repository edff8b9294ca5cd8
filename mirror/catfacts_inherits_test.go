package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestInheritsRoundTrip: a table's parents, partitioned ancestors and
// views' column comments survive the relation record (after the
// listings, and without them), a record written before decodes with
// Inherits nil, and a change is a change of the facts.
func TestInheritsRoundTrip(t *testing.T) {
	in := &wal.InheritFacts{
		Parents: []wal.InheritParent{{OID: 16400, Schema: "hid", Name: "person", Kind: 'r'}, {OID: 16410, Schema: "public", Name: "meas_3", Kind: 'p', DetachPending: true}},
		Ancestors: []wal.PartAncestor{{OID: 16410, Schema: "public", Name: "meas_3", OwnerOID: 10, Owner: "postgres", Parent: 16405, Bound: "FOR VALUES IN (3, 4)", Natts: 3,
			Indexes: []wal.PartIndex{{OID: 16411, Name: "meas_3_pkey", AM: 403, Natts: 2, Parent: 16406, KeyAtts: 2,
				Flags: wal.PartIndexUnique | wal.PartIndexPrimary | wal.PartIndexValid}}},
			{OID: 16405, Schema: "public", Name: "meas", OwnerOID: 10, Owner: "postgres", Natts: 3}},
		ViewComments: []wal.ViewComments{{OID: 16420, Comments: []string{"", "the b"}}, {OID: 16421}},
	}
	l := &wal.ListingFacts{EventTriggers: 2}
	for _, listings := range []*wal.ListingFacts{nil, l} {
		rel := &wal.Relation{OID: 7, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
			Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
			Facts:   &wal.Facts{Kind: 'r', Schema: &wal.SchemaFacts{Listings: listings}, Inherits: in}}
		b := encodeRel(rel)
		got, err := decodeRel(b)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || !got.Facts.Inherits.Equal(in) || !got.Facts.Schema.Listings.Equal(listings) {
			t.Errorf("listings %v: decoded %+v, want %+v", listings != nil, got.Facts.Inherits, in)
		}
		got = olderRecord(t, rel, b, func(f *wal.Facts) { f.Inherits = nil })
		if got.Facts.Inherits != nil || !got.Facts.Schema.Listings.Equal(listings) {
			t.Errorf("listings %v: an older record decoded with inherits %+v", listings != nil, got.Facts.Inherits)
		}
	}
	changed := *in
	changed.Ancestors = changed.Ancestors[:1]
	reindexed := *in
	reindexed.Ancestors = []wal.PartAncestor{in.Ancestors[0], in.Ancestors[1]}
	reindexed.Ancestors[0].Indexes = nil
	if in.Equal(&reindexed) {
		t.Error("a dropped partitioned index compares equal")
	}
	if in.Equal(&changed) || (&wal.Facts{Inherits: in}).Equal(&wal.Facts{Inherits: &changed}) {
		t.Error("a detached ancestor compares equal")
	}
}
