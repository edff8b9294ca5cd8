package replication

import (
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadViews: the copy reads the views above a table (directly and
// through another view, materialized ones too) with their columns,
// definitions and references; ReadFacts sees CREATE OR REPLACE VIEW and
// DROP VIEW.
func TestReadViews(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	exec("CREATE SCHEMA s", "CREATE TABLE t (id int PRIMARY KEY, n varchar(10))", "CREATE TABLE s.u (id int)",
		"CREATE VIEW v (ident, name) AS SELECT id, n FROM t WHERE id > 1",
		"CREATE VIEW s.w AS SELECT v.ident, u.id FROM v JOIN s.u ON u.id = v.ident",
		"CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t", "CREATE VIEW other AS SELECT 1 AS x FROM s.u",
		"COMMENT ON VIEW v IS 'vee'")
	rel := relationOf(t, conn, "t")
	s := rel.Facts.Schema
	if !s.ViewsRead {
		t.Fatal("views not read")
	}
	byName := map[string]wal.ViewFacts{}
	for _, v := range s.Views {
		byName[v.QualifiedName()] = v
	}
	if len(byName) != 3 {
		t.Fatalf("views above t: %+v, want v, s.w and m", s.Views)
	}
	var toid, uoid, voide uint32
	if err := conn.QueryRow(ctx, "SELECT 't'::regclass::oid, 's.u'::regclass::oid, 'v'::regclass::oid").Scan(&toid, &uoid, &voide); err != nil {
		t.Fatal(err)
	}
	v := byName["public.v"]
	if v.OID != voide || v.Kind != 'v' || v.Owner != "postgres" || v.Comment != "vee" ||
		!slices.Equal(v.Columns, []wal.ViewColumn{{Name: "ident", TypeOID: 23, TypeMod: -1}, {Name: "name", TypeOID: 1043, TypeMod: 14}}) ||
		!slices.Equal(v.Refs, []wal.ViewRef{{OID: toid, Schema: "public", Name: "t", Kind: 'r'}}) ||
		!strings.Contains(v.Def, "FROM t") || !strings.Contains(v.Qualified, "FROM public.t") {
		t.Errorf("v: %+v", v)
	}
	w := byName["s.w"]
	if w.Kind != 'v' || !slices.Equal(w.Refs, []wal.ViewRef{{OID: uoid, Schema: "s", Name: "u", Kind: 'r'}, {OID: voide, Schema: "public", Name: "v", Kind: 'v'}}) &&
		!slices.Equal(w.Refs, []wal.ViewRef{{OID: voide, Schema: "public", Name: "v", Kind: 'v'}, {OID: uoid, Schema: "s", Name: "u", Kind: 'r'}}) {
		t.Errorf("s.w: %+v", w)
	}
	if byName["public.m"].Kind != 'm' {
		t.Errorf("m: %+v", byName["public.m"])
	}
	exec("CREATE OR REPLACE VIEW v (ident, name) AS SELECT id, n FROM t WHERE id > 2", "DROP MATERIALIZED VIEW m")
	got, err := ReadFacts(ctx, conn, []*wal.Relation{rel})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].SameFacts(rel) {
		t.Error("the poll sees no change")
	}
	s = got[0].Facts.Schema
	if len(s.Views) != 2 || !strings.Contains(s.Views[0].Def+s.Views[1].Def, "id > 2") {
		t.Errorf("after CREATE OR REPLACE and DROP: %+v", s.Views)
	}
}
