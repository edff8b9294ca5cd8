package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestReadMatrixPaths: the scale benchmark's read matrix, issued as pgx
// issues it (extended protocol, integers asked for in binary), takes the
// fast paths: the point get and the 10k-key range ordered by the key are
// sent as stored, count+sum and the group/having aggregate run on the
// query engine; the answers are PostgreSQL's.
func TestReadMatrixPaths(t *testing.T) {
	r := newRig(t, []string{"public.t"}, []string{
		"CREATE TABLE t (id bigint PRIMARY KEY, k text, v text, score int, grp int)",
		"INSERT INTO t SELECT g, 'key-' || g, 'value-' || g, (g * 7919) % 1000, g % 100 FROM generate_series(1, 30000) g",
	})
	ctx := context.Background()
	sc, err := pgx.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(ctx)
	pgc, err := pgx.Connect(ctx, r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	type row struct {
		id         int64
		k, v       string
		score, grp int32
	}
	read := func(c *pgx.Conn, sql string, args ...any) []row {
		rows, err := c.Query(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		defer rows.Close()
		var out []row
		for rows.Next() {
			var x row
			if err := rows.Scan(&x.id, &x.k, &x.v, &x.score, &x.grp); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			out = append(out, x)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out
	}
	same := func(sql string, got, want []row) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, PostgreSQL %d", sql, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d %+v, PostgreSQL %+v", sql, i, got[i], want[i])
			}
		}
	}
	for _, c := range []struct {
		sql  string
		args []any
	}{
		{"SELECT id, k, v, score, grp FROM t WHERE id = $1", []any{int64(777)}},
		{"SELECT id, k, v, score, grp FROM t WHERE id BETWEEN $1 AND $1 + 9999 ORDER BY id", []any{int64(12345)}},
	} {
		before := r.srv.DirectRuns()
		got := read(sc, c.sql, c.args...)
		if r.srv.DirectRuns() == before {
			t.Errorf("%s: not sent as stored", c.sql)
		}
		same(c.sql, got, read(pgc, c.sql, c.args...))
	}
	aggs := []string{
		"SELECT count(*), sum(score)::text FROM t",
		"SELECT grp, count(*), sum(score)::text, min(id) FROM t GROUP BY grp HAVING sum(score) % 7 <> 0 ORDER BY grp",
	}
	for _, sql := range aggs {
		texts := func(c *pgx.Conn) [][]any {
			rows, err := c.Query(ctx, sql)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			return out
		}
		before := r.srv.EngineRuns()
		got := texts(sc)
		if r.srv.EngineRuns() == before {
			t.Errorf("%s: not on the query engine", sql)
		}
		want := texts(pgc)
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, PostgreSQL %d", sql, len(got), len(want))
		}
		for i := range got {
			for j := range got[i] {
				if g, w := got[i][j], want[i][j]; g != w {
					t.Fatalf("%s: row %d column %d: %v (%T), PostgreSQL %v (%T)", sql, i, j, g, g, w, w)
				}
			}
		}
	}
}
