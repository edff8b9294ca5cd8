package sqlfront_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestVectorizedPath: statements the flat planner refuses (several FROM
// items, joins of three tables, outer joins, subqueries in FROM and in
// expressions, WITH, set operations, VALUES) are answered by sql/exec
// exactly as PostgreSQL answers them, in text and binary format, with
// the same column names and types (Describe of a prepared statement).
func TestVectorizedPath(t *testing.T) {
	r := newRig(t, []string{"public.va", "public.vb", "public.vc"}, []string{
		"CREATE TABLE va (id int PRIMARY KEY, name text, amount numeric(10,2), b bool)",
		"INSERT INTO va SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'n' || g END, g * 1.25, g % 3 = 0 FROM generate_series(1, 300) g",
		"CREATE TABLE vb (id int PRIMARY KEY, a_id int, qty int8, price float8, d date)",
		"INSERT INTO vb SELECT g, g % 350, g * 3, g / 8.0, date '2024-01-01' + g FROM generate_series(1, 900) g",
		"CREATE TABLE vc (code char(3) PRIMARY KEY, label varchar(20))",
		"INSERT INTO vc VALUES ('a', 'alpha'), ('bb', 'beta'), ('ccc', NULL)",
	})
	queries := []string{
		"SELECT va.id, vb.id, vb.qty FROM va, vb WHERE va.id = vb.a_id AND va.id < 20 ORDER BY 1, 2",
		"SELECT count(*), sum(vb.qty), avg(va.amount) FROM va JOIN vb ON va.id = vb.a_id JOIN va va2 ON va2.id = vb.a_id + 1",
		"SELECT va.id, vb.id FROM va LEFT JOIN vb ON va.id = vb.a_id AND vb.qty > 100 WHERE va.id > 290 ORDER BY 1, 2",
		"SELECT va.id, vb.id FROM va RIGHT JOIN vb ON va.id = vb.a_id WHERE vb.id > 880 ORDER BY 2",
		"SELECT va.id, vb.id FROM va FULL JOIN vb ON va.id = vb.a_id WHERE va.id IS NULL OR vb.id IS NULL ORDER BY 1, 2",
		"SELECT * FROM (SELECT a_id, sum(qty) AS s FROM vb GROUP BY a_id) x WHERE s > 2000 ORDER BY s DESC, a_id LIMIT 5",
		"WITH t AS (SELECT a_id, count(*) AS n FROM vb GROUP BY a_id) SELECT n, count(*) FROM t GROUP BY n ORDER BY n",
		"SELECT id FROM va WHERE amount > (SELECT avg(price) FROM vb) AND id IN (SELECT a_id FROM vb WHERE qty < 60) ORDER BY id",
		"SELECT id FROM va WHERE NOT EXISTS (SELECT 1 FROM vb WHERE vb.a_id = va.id) ORDER BY id",
		"SELECT name FROM va WHERE id < 10 UNION SELECT label FROM vc ORDER BY 1",
		"SELECT a_id FROM vb INTERSECT SELECT id FROM va WHERE id % 50 = 0 ORDER BY 1",
		"SELECT id FROM va WHERE id < 5 EXCEPT ALL SELECT a_id FROM vb WHERE a_id = 3 ORDER BY 1",
		"SELECT code, length(code), label FROM vc, (VALUES (1), (2)) v(x) WHERE x = 1 ORDER BY code",
		"SELECT d + interval '1 month' AS due, d - 1, price * 2 FROM vb, vc WHERE vb.id < 3 AND vc.code = 'a' ORDER BY 1",
		"SELECT b, count(DISTINCT name), max(name), min(amount) FROM va, vc WHERE vc.code = 'bb' GROUP BY b ORDER BY b",
	}
	// With parameters (declared by the client or inferred).
	withArgs := []struct {
		sql  string
		args []any
	}{
		{"SELECT va.id, vb.qty FROM va, vb WHERE va.id = vb.a_id AND va.id < $1 ORDER BY 1, 2 LIMIT $2", []any{6, 4}},
		{"SELECT name FROM va WHERE id = $1 UNION ALL SELECT label FROM vc WHERE code = $2 ORDER BY 1", []any{3, "bb"}},
		{"WITH t AS (SELECT * FROM vb WHERE price > $1) SELECT count(*), max(d) FROM t, va WHERE va.id = t.a_id", []any{100.5}},
	}
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeExec} {
		pgc := connectMode(t, r.pgURL, mode)
		scc := connectMode(t, r.sqlURL, mode)
		for _, q := range withArgs {
			want, werr := resultOf(ctx, pgc, q.sql, q.args...)
			got, gerr := resultOf(ctx, scc, q.sql, q.args...)
			if werr != nil || gerr != nil || !slices.Equal(want, got) {
				t.Errorf("mode %v: %s %v:\n PostgreSQL %q %v\n sidecar    %q %v", mode, q.sql, q.args, want, werr, got, gerr)
			}
		}
		pgc.Close(ctx)
		scc.Close(ctx)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheDescribe} {
		pgc := connectMode(t, r.pgURL, mode)
		scc := connectMode(t, r.sqlURL, mode)
		for _, q := range queries {
			want, werr := resultOf(ctx, pgc, q)
			got, gerr := resultOf(ctx, scc, q)
			if werr != nil || gerr != nil {
				t.Errorf("mode %v: %s: PostgreSQL %v, sidecar %v", mode, q, werr, gerr)
				continue
			}
			if !slices.Equal(want, got) {
				t.Errorf("mode %v: %s:\n PostgreSQL %q\n sidecar    %q", mode, q, want, got)
			}
		}
		pgc.Close(ctx)
		scc.Close(ctx)
	}
	// A refusal of both paths names what is missing: the new path's
	// when the flat planner's names a construct the new path runs.
	scc := connectMode(t, r.sqlURL, pgx.QueryExecModeSimpleProtocol)
	defer scc.Close(ctx)
	if _, err := resultOf(ctx, scc, "SELECT id, row_number() OVER () FROM va UNION SELECT 1, 1"); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("want a refusal naming window functions, got %v", err)
	}
}

// resultOf is a statement's column descriptions (name, type OID,
// typmod) and rows as text.
func resultOf(ctx context.Context, conn *pgx.Conn, q string, args ...any) ([]string, error) {
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for _, f := range rows.FieldDescriptions() {
		out = append(out, fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.TypeModifier))
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		s := ""
		for i, v := range vals {
			if i > 0 {
				s += "|"
			}
			s += fmtAny(v)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
