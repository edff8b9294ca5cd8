package replication

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestReadTypeList: the pg_type rows read are, in their order, the rows
// of pgjdbc's getTypeInfo query as PostgreSQL answers it without ORDER
// BY (the order the SQL port's answer relies on), also after a dropped
// type left a hole a later one may fill; a temporary table's row types
// are not read but recorded as present; the domain's comment, base type
// and the relkinds are read.
func TestReadTypeList(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	for _, s := range []string{`CREATE TYPE gone AS (x int)`, `CREATE TABLE t (id int PRIMARY KEY)`, `DROP TYPE gone`, `VACUUM pg_catalog.pg_type`,
		`CREATE DOMAIN posint AS int`, `COMMENT ON DOMAIN posint IS 'positive'`, `CREATE TYPE pair AS (a int)`, `CREATE TEMPORARY TABLE tmp (id int)`} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	l, err := readTypeList(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if !l.TempTypes || l.Types == nil {
		t.Fatalf("read %d rows, temporary types %v", len(l.Types), l.TempTypes)
	}
	// pgjdbc's getTypeInfo query (PgDatabaseMetaData, 42.x) on the server.
	rows, err := conn.Query(ctx, `SELECT t.typname,t.oid FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON (t.typnamespace = n.oid) `+
		` WHERE n.nspname  != 'pg_toast' AND  (t.typrelid = 0 OR (SELECT c.relkind = 'c' FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid))`+
		` AND n.nspname !~ '^pg_temp_'`)
	if err != nil {
		t.Fatal(err)
	}
	var want []uint32
	var name string
	var oid uint32
	if _, err := pgx.ForEachRow(rows, []any{&name, &oid}, func() error { want = append(want, oid); return nil }); err != nil {
		t.Fatal(err)
	}
	var got []uint32
	seen := map[string]bool{}
	for _, ty := range l.Types {
		if ty.RelKind == 0 || ty.RelKind == 'c' {
			got = append(got, ty.OID)
		}
		switch {
		case ty.Name == "posint" && (ty.Type != 'd' || ty.BaseType != 23 || ty.Comment != "positive" || ty.RelKind != 0):
			t.Errorf("posint read as %+v", ty)
		case ty.Name == "pair" && (ty.Type != 'c' || ty.RelKind != 'c'), ty.Name == "t" && (ty.Type != 'c' || ty.RelKind != 'r'),
			ty.Name == "_int4" && !ty.IsArray, ty.Name == "int4" && ty.IsArray, ty.Name == "tmp":
			t.Errorf("read %+v", ty)
		}
		seen[ty.Name] = true
	}
	if len(got) != len(want) || len(want) < 350 || !seen["_pair"] {
		t.Fatalf("read %d rows getTypeInfo lists, PostgreSQL answers %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: read OID %d, PostgreSQL's scan answers %d", i, got[i], want[i])
		}
	}
}
