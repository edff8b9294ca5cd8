package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestSchemaFactsRoundTrip: the schema facts section decodes to what was
// encoded, with or without column facts before it, and a record written
// without it (older sidecars) decodes with none.
func TestSchemaFactsRoundTrip(t *testing.T) {
	sf := &wal.SchemaFacts{
		Constraints: []wal.ConstraintFacts{
			{OID: 16401, Name: "items_key", Type: 'p', Validated: true, Columns: []string{"id"}, Index: 16400, Def: "PRIMARY KEY (id)", DefPretty: "PRIMARY KEY (id)"},
			{OID: 16402, Name: "items_acct_fkey", Type: 'f', Validated: true, Deferrable: true, Columns: []string{"a", "b"}, Index: 16390, RefSchema: "public",
				RefTable: "accounts", RefOID: 16385, RefColumns: []string{"id", "k"}, UpdateAction: 'a', DeleteAction: 'c', MatchType: 's',
				Def: "FOREIGN KEY (a, b) REFERENCES accounts(id, k) ON DELETE CASCADE DEFERRABLE", DefPretty: "FOREIGN KEY (a, b) REFERENCES accounts(id, k) ON DELETE CASCADE DEFERRABLE"},
			{OID: 16403, Name: "qty_check", Type: 'c', Validated: true, NoInherit: true, Columns: []string{"qty"}, Def: "CHECK ((qty > 0))", DefPretty: "CHECK (qty > 0)"},
		},
		Indexes: []wal.IndexFacts{{OID: 16400, Name: "items_key", Columns: []string{"id"}, KeyColumns: 1, Unique: true, Primary: true, Valid: true, Method: "btree",
			Def: "CREATE UNIQUE INDEX items_key ON public.items USING btree (id)", DefPretty: "CREATE UNIQUE INDEX items_key ON public.items USING btree (id)"},
			{OID: 16404, Name: "items_lower", Columns: []string{"", "a"}, KeyColumns: 1, Valid: true, Partial: true, Expressions: true, NullsNotDistinct: true, Method: "hash",
				Detail: &wal.IndexDetail{Options: "0 3", Collations: "0 100", Classes: "1978 3126", Pred: "(a > 1)", PredPretty: "a > 1",
					Exprs: "({FUNCEXPR :funcid 870})", RelOptions: []string{"fillfactor=70"}}},
			{OID: 16405, Name: "items_a", Columns: []string{"a"}, KeyColumns: 1, Valid: true, Method: "btree", Detail: &wal.IndexDetail{Options: "0", Collations: "0", Classes: "1978"}}},
		Comment: "the items", ReferencedBy: []uint32{16500, 16501}, OwnerOID: 10, Owner: "postgres", DatabaseOID: 16384, Options: []string{"fillfactor=50"}, OptionsRead: true, ColumnComments: []string{"", "its name", ""}, Sequences: []string{"public.items_id_seq", "", ""},
		Triggers: []wal.TriggerFacts{{Name: "audit", Def: "CREATE TRIGGER audit AFTER INSERT ON items FOR EACH ROW EXECUTE FUNCTION f()", Enabled: 'O'},
			{Name: "RI_x", Enabled: 'D', Internal: true, Inherited: true}},
		SequencesRead: true, OwnedSequences: []wal.SequenceFacts{{OID: 16399, Schema: "public", Name: "items_id_seq", Column: "id", OwnerOID: 10, Persistence: 'p',
			TypeOID: 23, Start: 1, Increment: 1, Max: 2147483647, Min: 1, Cache: 1}, {OID: 16398, Schema: "s", Name: "q", Column: "a", Identity: true, Cycle: true,
			OwnerOID: 10, Persistence: 'u', TypeOID: 20, Start: -5, Increment: -2, Max: -1, Min: -9223372036854775808, Cache: 20}},
	}
	base := wal.Relation{OID: 7, Schema: "public", Name: "items", Identity: wal.IdentityDefault,
		Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}, {Name: "a", TypeOID: 23, TypeMod: -1}, {Name: "qty", TypeOID: 23, TypeMod: -1}}}
	for _, withCols := range []bool{true, false} {
		rel := base
		rel.Facts = &wal.Facts{Kind: 'r', Schema: sf}
		if withCols {
			rel.Facts.Columns = []wal.ColumnFacts{{NotNull: true}, {}, {}}
			rel.Facts.PrimaryKey = &wal.KeyConstraint{Name: "items_key", Columns: []string{"id"}}
		}
		got, err := decodeRel(encodeRel(&rel))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Facts.Equal(rel.Facts) || !got.Facts.Schema.Equal(sf) {
			t.Errorf("column facts %v: decoded %+v, want %+v", withCols, got.Facts.Schema, sf)
		}
	}
	old := base
	old.Facts = &wal.Facts{Kind: 'r', Columns: []wal.ColumnFacts{{}, {}, {}}}
	got, err := decodeRel(encodeRel(&old))
	if err != nil {
		t.Fatal(err)
	}
	if got.Facts.Schema != nil || !got.Facts.Equal(old.Facts) {
		t.Errorf("decoded %+v, want no schema facts", got.Facts)
	}
	// An empty list and none are the same facts (the poll must not see a
	// change in every round).
	if !(&wal.SchemaFacts{}).Equal(&wal.SchemaFacts{Constraints: []wal.ConstraintFacts{}, ColumnComments: []string{}}) {
		t.Error("empty and nil lists differ")
	}
}
