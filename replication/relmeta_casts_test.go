package replication

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadCasts: the catalog read lists every pg_cast row in psql's
// \dC order with psql's texts — a function's name, "(binary
// coercible)", "(with inout)", the three contexts —, a cast's comment,
// and marks a cast of a type outside pg_catalog (formatted under
// search_path pg_catalog: qualified); and restores the connection's
// search_path.
func TestReadCasts(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	for _, s := range []string{`CREATE TYPE mood AS ENUM ('a')`, `CREATE CAST (mood AS text) WITH INOUT`,
		`COMMENT ON CAST (bigint AS integer) IS 'narrowing'`, `SET search_path = public`} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	c, err := readCasts(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	var path string
	if err := conn.QueryRow(ctx, `SHOW search_path`).Scan(&path); err != nil || path != "public" {
		t.Errorf("search_path after the read: %q (%v)", path, err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_cast`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != n {
		t.Fatalf("%d casts read, pg_cast has %d", len(c.Rows), n)
	}
	want := map[[2]string]wal.CastRow{
		{"bigint", "integer"}: {Source: "bigint", Target: "integer", SourceName: "int8", TargetName: "int4", Function: "int4", Implicit: "in assignment",
			Description: "narrowing", HasComment: true},
		{"integer", "bigint"}:             {Source: "integer", Target: "bigint", SourceName: "int4", TargetName: "int8", Function: "int8", Implicit: "yes"},
		{"text", "character varying"}:     {Source: "text", Target: "character varying", SourceName: "text", TargetName: "varchar", Function: "(binary coercible)", Implicit: "yes"},
		{"integer", "bit"}:                {Source: "integer", Target: "bit", SourceName: "int4", TargetName: "bit", Function: "bit", Implicit: "no"},
		{"public.mood", "text"}:           {Source: "public.mood", Target: "text", SourceName: "mood", TargetName: "text", Function: "(with inout)", Implicit: "no", UserTypes: true},
		{"character varying", "regclass"}: {Source: "character varying", Target: "regclass", SourceName: "varchar", TargetName: "regclass", Function: "regclass", Implicit: "yes"},
	}
	seen := 0
	for i, r := range c.Rows {
		if w, ok := want[[2]string{r.Source, r.Target}]; ok {
			seen++
			if r != w {
				t.Errorf("cast %s → %s: %+v, want %+v", r.Source, r.Target, r, w)
			}
		}
		if r.UserTypes != (r.Source == "public.mood") {
			t.Errorf("cast %s → %s: UserTypes %v", r.Source, r.Target, r.UserTypes)
		}
		if i > 0 && c.Rows[i-1].Source == r.Source && c.Rows[i-1].Target == r.Target {
			t.Errorf("cast %s → %s listed twice", r.Source, r.Target)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d expected casts read", seen, len(want))
	}
}
