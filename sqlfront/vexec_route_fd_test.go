package sqlfront_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestRouteFunctionalDependency: a column of a table whose primary key
// is grouped on may be read outside an aggregate (PostgreSQL's
// functional dependency), on whichever path plans the statement; a
// replica identity on a unique index that is not the primary key, a
// primary key grouped only in part, or a table without one stay 42803,
// as in PostgreSQL.
func TestRouteFunctionalDependency(t *testing.T) {
	r := newRig(t, []string{"public.fa", "public.fb", "public.fu", "public.fk"}, []string{
		"CREATE TABLE fa (id int PRIMARY KEY, name text, grp int)",
		"INSERT INTO fa SELECT g, 'n' || g, g % 4 FROM generate_series(1, 20) g",
		"CREATE TABLE fb (a int, b int, note text, PRIMARY KEY (a, b))",
		"INSERT INTO fb SELECT g % 5, g, 'x' || g FROM generate_series(1, 30) g",
		"CREATE TABLE fu (u int NOT NULL, v text)",
		"CREATE UNIQUE INDEX fu_u ON fu (u)",
		"ALTER TABLE fu REPLICA IDENTITY USING INDEX fu_u",
		"INSERT INTO fu SELECT g, 'v' || g FROM generate_series(1, 10) g",
		"CREATE TABLE fk (name text, n int)",
		"ALTER TABLE fk REPLICA IDENTITY FULL",
		"INSERT INTO fk VALUES ('x', 1), ('y', 2), ('z', 2)",
	})
	ctx := context.Background()
	pgc := connectMode(t, r.pgURL, pgx.QueryExecModeSimpleProtocol)
	scc := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
	defer pgc.Close(ctx)
	defer scc.Close(ctx)
	for _, q := range []string{
		"SELECT id, name, count(*) FROM fa GROUP BY id ORDER BY id",
		"SELECT name, grp, count(*) FROM fa GROUP BY id ORDER BY name",
		"SELECT id, name FROM fa GROUP BY id HAVING name <> 'n3' ORDER BY grp, id",
		"SELECT fa.*, count(*) FROM fa GROUP BY fa.id ORDER BY 1",
		"SELECT a.id, a.name, count(k.n) FROM fa a LEFT JOIN fk k ON k.n = a.grp GROUP BY a.id ORDER BY a.id",
		"SELECT a, b, note FROM fb GROUP BY a, b ORDER BY a, b",
		"SELECT x.note, y.name FROM fb x JOIN fa y ON y.id = x.b GROUP BY x.a, x.b, y.id ORDER BY 1",
	} {
		want, werr := resultOf(ctx, pgc, q)
		got, gerr := resultOf(ctx, scc, q)
		if werr != nil || gerr != nil || !slices.Equal(want, got) {
			t.Errorf("%s:\n PostgreSQL %q %v\n sidecar    %q %v", q, want, werr, got, gerr)
		}
	}
	// 42803 on both; a statement the flat planner refuses (a subquery
	// in FROM) and sql/exec finds in error keeps the refusal.
	for q, refusal := range map[string]bool{
		"SELECT u, v, count(*) FROM fu GROUP BY u":                      false,
		"SELECT * FROM (SELECT u, v FROM fu GROUP BY u) s":              true,
		"SELECT a, note FROM fb GROUP BY a":                             false,
		"SELECT name, n FROM fk GROUP BY n":                             false,
		"SELECT x.note FROM fb x JOIN fa y ON y.id = x.b GROUP BY y.id": false,
	} {
		var pe *pgconn.PgError
		if _, err := resultOf(ctx, pgc, q); !errors.As(err, &pe) || pe.Code != "42803" {
			t.Errorf("PostgreSQL: %s: want 42803, got %v", q, err)
		}
		if _, err := resultOf(ctx, scc, q); !errors.As(err, &pe) || pe.Code != "42803" && (!refusal || pe.Code != "0A000") {
			t.Errorf("sidecar: %s: want 42803, got %v", q, err)
		}
	}
	// Grouping sets: no functional dependency in PostgreSQL either (an
	// error there; the sidecar's flat planner's refusal stands).
	q := "SELECT id, name FROM fa GROUP BY ROLLUP (id)"
	var pe *pgconn.PgError
	if _, err := resultOf(ctx, pgc, q); !errors.As(err, &pe) || pe.Code != "42803" {
		t.Errorf("PostgreSQL: %s: want 42803, got %v", q, err)
	}
	if _, err := resultOf(ctx, scc, q); !errors.As(err, &pe) || pe.Code != "42803" && pe.Code != "0A000" {
		t.Errorf("sidecar: %s: want 42803 or a refusal, got %v", q, err)
	}
}
