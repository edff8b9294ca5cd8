package replication

import (
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadViews: the copy reads the views above a table (directly and
// through another view, materialized ones too) with their columns,
// definitions and references, its columns' collations and defaults;
// ReadFacts sees CREATE OR REPLACE VIEW and DROP VIEW.
func TestReadViews(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	exec := execer(t, conn)
	exec("CREATE SCHEMA s", "CREATE TABLE t (id int PRIMARY KEY, n varchar(10))", "CREATE TABLE s.u (id int)",
		"CREATE VIEW v (ident, name) AS SELECT id, n FROM t WHERE id > 1",
		"CREATE VIEW s.w AS SELECT v.ident, u.id FROM v JOIN s.u ON u.id = v.ident",
		"CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t", "CREATE VIEW other AS SELECT 1 AS x FROM s.u",
		"COMMENT ON VIEW v IS 'vee'", "ALTER VIEW v ALTER COLUMN ident SET DEFAULT 5")
	rel := relationOf(t, conn, "t")
	s := rel.Facts.Schema
	if !s.ViewsRead || !s.ViewColumnsRead {
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
		!slices.Equal(v.Columns, []wal.ViewColumn{{Name: "ident", TypeOID: 23, TypeMod: -1, HasDefault: true, Default: "5", DefaultPretty: "5"},
			{Name: "name", TypeOID: 1043, TypeMod: 14, Collation: 100}}) ||
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

// TestReadViewsReadingNoTable: a view reading no relation (VALUES,
// generate_series, a recursive view over itself) and the views above it
// are listed with the followed table of lowest OID in their schema (none
// in a schema without a followed table); the poll sees them replaced and
// dropped.
func TestReadViewsReadingNoTable(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	exec := execer(t, conn)
	exec("CREATE SCHEMA s", "CREATE SCHEMA z", "CREATE TABLE t (id int PRIMARY KEY)", "CREATE TABLE t2 (id int)", "CREATE TABLE s.u (id int)",
		"CREATE VIEW vals (a, b) AS VALUES (1, 'x'), (2, 'y')",
		"CREATE VIEW series AS SELECT i FROM generate_series(1, 3) i",
		"CREATE RECURSIVE VIEW nums (n) AS VALUES (1) UNION ALL SELECT n + 1 FROM nums WHERE n < 5",
		"CREATE VIEW over_vals AS SELECT a FROM vals WHERE a > 1",
		"CREATE VIEW s.sv AS SELECT 1 AS one", "CREATE VIEW z.zv AS SELECT 2 AS two")
	rels := []*wal.Relation{relationOf(t, conn, "t"), relationOf(t, conn, "t2")}
	su, err := describeCopy(ctx, conn, wal.TableName{Schema: "s", Name: "u"}, false)
	if err != nil {
		t.Fatal(err)
	}
	rels = append(rels, su[0].rel)
	got, err := ReadFacts(ctx, conn, rels)
	if err != nil {
		t.Fatal(err)
	}
	names := func(r *wal.Relation) []string {
		var out []string
		for _, v := range r.Facts.Schema.Views {
			out = append(out, v.QualifiedName())
		}
		slices.Sort(out)
		return out
	}
	if n := names(got[0]); !slices.Equal(n, []string{"public.nums", "public.over_vals", "public.series", "public.vals"}) {
		t.Errorf("views anchored to t: %v", n)
	}
	if n := names(got[1]); len(n) != 0 {
		t.Errorf("views anchored to t2 (t has the lower OID): %v", n)
	}
	if n := names(got[2]); !slices.Equal(n, []string{"s.sv"}) {
		t.Errorf("views anchored to s.u: %v", n)
	}
	for _, v := range got[0].Facts.Schema.Views {
		switch v.Name {
		case "vals":
			if len(v.Refs) != 0 || !slices.Equal(v.Columns, []wal.ViewColumn{{Name: "a", TypeOID: 23, TypeMod: -1}, {Name: "b", TypeOID: 25, TypeMod: -1, Collation: 100}}) ||
				!strings.Contains(v.Qualified, "VALUES") {
				t.Errorf("vals: %+v", v)
			}
		case "over_vals":
			if len(v.Refs) != 1 || v.Refs[0].Name != "vals" || v.Refs[0].Kind != 'v' {
				t.Errorf("over_vals: %+v", v)
			}
		}
	}
	exec("CREATE OR REPLACE VIEW series AS SELECT i FROM generate_series(1, 4) i", "DROP VIEW over_vals")
	again, err := ReadFacts(ctx, conn, got)
	if err != nil {
		t.Fatal(err)
	}
	if again[0].SameFacts(got[0]) {
		t.Error("the poll sees no change")
	}
	if n := names(again[0]); !slices.Equal(n, []string{"public.nums", "public.series", "public.vals"}) {
		t.Errorf("after DROP: %v", n)
	}
	for _, v := range again[0].Facts.Schema.Views {
		if v.Name == "series" && !strings.Contains(v.Def, "4") {
			t.Errorf("series after CREATE OR REPLACE: %s", v.Def)
		}
	}
}

// execer runs statements on conn, failing the test on an error.
func execer(t *testing.T, conn *pgx.Conn) func(qs ...string) {
	return func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := conn.Exec(t.Context(), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
}
