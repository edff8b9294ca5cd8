package replication

import (
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadSchemaFacts: the copy reads a table's constraints (primary,
// unique, foreign keys with their actions, checks), its indexes, its
// comments and owned sequences, with columns named as the mirror has
// them (a dropped column shifts PostgreSQL's attnums, not the names);
// ReadFacts reads them again after COMMENT and CREATE INDEX.
func TestReadSchemaFacts(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	for _, s := range []string{
		"CREATE TABLE acct (id int PRIMARY KEY, k int, UNIQUE (id, k))",
		"CREATE TABLE item (gone int, id serial CONSTRAINT item_key PRIMARY KEY, a int, b int NOT NULL CHECK (b > 0), " +
			"CONSTRAINT item_ab_fkey FOREIGN KEY (a, b) REFERENCES acct (id, k) ON DELETE CASCADE ON UPDATE SET NULL DEFERRABLE)",
		"ALTER TABLE item DROP COLUMN gone",
		"CREATE TABLE other (x int REFERENCES acct)",
		"COMMENT ON TABLE item IS 'the items'", "COMMENT ON COLUMN item.b IS 'bee'",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	rel := relationOf(t, conn, "item")
	s := rel.Facts.Schema
	if s == nil {
		t.Fatal("no schema facts")
	}
	var db uint32
	if err := conn.QueryRow(ctx, "SELECT oid FROM pg_database WHERE datname = current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	if s.Owner != "postgres" || s.OwnerOID != 10 || s.DatabaseOID != db {
		t.Errorf("owner %d %q, database %d", s.OwnerOID, s.Owner, s.DatabaseOID)
	}
	if s.Comment != "the items" || !slices.Equal(s.ColumnComments, []string{"", "", "bee"}) || !slices.Equal(s.Sequences, []string{"public.item_id_seq", "", ""}) {
		t.Errorf("comments %q %q, sequences %q", s.Comment, s.ColumnComments, s.Sequences)
	}
	var seq uint32
	if err := conn.QueryRow(ctx, "SELECT 'item_id_seq'::regclass::oid").Scan(&seq); err != nil {
		t.Fatal(err)
	}
	want := []wal.SequenceFacts{{OID: seq, Schema: "public", Name: "item_id_seq", Column: "id", OwnerOID: 10, Persistence: 'p', TypeOID: 23,
		Start: 1, Increment: 1, Max: 2147483647, Min: 1, Cache: 1}}
	if !s.SequencesRead || !slices.Equal(s.OwnedSequences, want) {
		t.Errorf("owned sequences %+v (read %v), want %+v", s.OwnedSequences, s.SequencesRead, want)
	}
	byName := map[string]wal.ConstraintFacts{}
	for _, c := range s.Constraints {
		byName[c.Name] = c
	}
	if c := byName["item_key"]; c.Type != 'p' || !slices.Equal(c.Columns, []string{"id"}) || c.Def != "PRIMARY KEY (id)" || c.Index == 0 {
		t.Errorf("primary key %+v", c)
	}
	if c := byName["item_ab_fkey"]; c.Type != 'f' || !slices.Equal(c.Columns, []string{"a", "b"}) || c.RefTable != "acct" || c.RefSchema != "public" ||
		!slices.Equal(c.RefColumns, []string{"id", "k"}) || c.DeleteAction != 'c' || c.UpdateAction != 'n' || !c.Deferrable ||
		c.Def != "FOREIGN KEY (a, b) REFERENCES acct(id, k) ON UPDATE SET NULL ON DELETE CASCADE DEFERRABLE" {
		t.Errorf("foreign key %+v", c)
	}
	if c := byName["item_b_check"]; c.Type != 'c' || c.Def != "CHECK ((b > 0))" || c.DefPretty != "CHECK (b > 0)" {
		t.Errorf("check %+v", c)
	}
	if len(s.Indexes) != 1 || s.Indexes[0].Name != "item_key" || !s.Indexes[0].Primary || s.Indexes[0].Method != "btree" ||
		s.Indexes[0].Def != "CREATE UNIQUE INDEX item_key ON public.item USING btree (id)" || !slices.Equal(s.Indexes[0].Columns, []string{"id"}) {
		t.Errorf("indexes %+v", s.Indexes)
	}
	if len(s.ReferencedBy) != 0 {
		t.Errorf("item: referenced by %v", s.ReferencedBy)
	}
	var item, other uint32
	if err := conn.QueryRow(ctx, "SELECT 'item'::regclass::oid, 'other'::regclass::oid").Scan(&item, &other); err != nil {
		t.Fatal(err)
	}
	if a := relationOf(t, conn, "acct").Facts.Schema; a == nil || !slices.Equal(a.ReferencedBy, []uint32{item, other}) || len(a.Indexes) != 2 {
		t.Errorf("acct: %+v, want two indexes and referenced by item and other", a)
	}
	// The catalog poll reads changes.
	for _, q := range []string{"COMMENT ON TABLE item IS NULL", "CREATE INDEX item_expr ON item ((a + 1)) WHERE b > 2"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadFacts(ctx, conn, []*wal.Relation{rel})
	if err != nil {
		t.Fatal(err)
	}
	s = got[0].Facts.Schema
	if s.Comment != "" || len(s.Indexes) != 2 || s.Indexes[0].Name != "item_expr" || !s.Indexes[0].Expressions || !s.Indexes[0].Partial ||
		!slices.Equal(s.Indexes[0].Columns, []string{""}) || s.Indexes[0].DefPretty != "CREATE INDEX item_expr ON item USING btree ((a + 1)) WHERE b > 2" {
		t.Errorf("after changes: %+v", s)
	}
	if d := s.Indexes[0].Detail; d == nil || d.Pred != "(b > 2)" || d.PredPretty != "b > 2" || d.Options != "0" || d.Classes != "1978" ||
		!strings.HasPrefix(d.Exprs, "({OPEXPR") || d.RelOptions != nil {
		t.Errorf("index detail %+v", d)
	}
	if !s.OptionsRead || s.Options != nil {
		t.Errorf("reloptions %v (read %v), want NULL read", s.Options, s.OptionsRead)
	}
	if got[0].SameFacts(rel) {
		t.Error("the poll sees no change")
	}
	again, err := ReadFacts(ctx, conn, []*wal.Relation{got[0]})
	if err != nil {
		t.Fatal(err)
	}
	if !again[0].SameFacts(got[0]) {
		t.Errorf("the same catalog read twice differs:\n%+v\n%+v", again[0].Facts.Schema, got[0].Facts.Schema)
	}
}
