package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRegColumnTypes: a reg-typed result column (pg_typeof's regtype,
// a ::regclass cast) is described with PostgreSQL's type OID, not as
// text (statement.go retyped the engine's columns from their text
// targets: the corpus saw pg_typeof as 25 where PostgreSQL says 2206);
// its binary format is refused, never a name's bytes sent as an OID.
func TestRegColumnTypes(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.rc"}, []string{"CREATE TABLE rc (id int PRIMARY KEY, v text)", "INSERT INTO rc VALUES (1, 'a')"})
	ctx := context.Background()
	pgc, scp := liveConns(t, pgURL)
	eventuallySQL(t, sqlURL, scp, "", "SELECT count(*) FROM rc", func(_ []string, err error) bool { return err == nil })
	for _, q := range []string{
		"SELECT pg_typeof(1)",
		"WITH q AS (SELECT 'foo' AS x) SELECT x, pg_typeof(x) FROM q",
		"SELECT v, pg_typeof(v), pg_typeof(id) FROM rc",
		"SELECT 'rc'::regclass, 'rc'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'rc')",
	} {
		want := pgc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		got := (*scp).ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if want.Err != nil || got.Err != nil {
			t.Fatalf("%s: PostgreSQL %v, sidecar %v", q, want.Err, got.Err)
		}
		if len(got.FieldDescriptions) != len(want.FieldDescriptions) {
			t.Fatalf("%s: %d columns, PostgreSQL %d", q, len(got.FieldDescriptions), len(want.FieldDescriptions))
		}
		for i, w := range want.FieldDescriptions {
			if g := got.FieldDescriptions[i]; g.DataTypeOID != w.DataTypeOID || string(g.Name) != string(w.Name) {
				t.Errorf("%s: column %d %s type %d, PostgreSQL %s type %d", q, i, g.Name, g.DataTypeOID, w.Name, w.DataTypeOID)
			}
		}
		if g, w := rowsText(got), rowsText(want); len(g) != len(w) || (len(g) > 0 && g[0] != w[0]) {
			t.Errorf("%s: %q, PostgreSQL %q", q, g, w)
		}
	}
	res := (*scp).ExecParams(ctx, "SELECT pg_typeof(1)", nil, nil, nil, []int16{1}).Read()
	if pe, ok := res.Err.(*pgconn.PgError); !ok || pe.Code != "0A000" {
		t.Errorf("a regtype column in binary format: %v, want 0A000", res.Err)
	}
}
