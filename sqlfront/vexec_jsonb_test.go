package sqlfront_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestJSONBCompare: jsonb equality and ordering over the wire, on the
// flat path's shapes (one table: WHERE, ORDER BY, GROUP BY, DISTINCT)
// and joins, answered as PostgreSQL's jsonb_cmp (numbers by value,
// '1.0' = '1'; kind order; the empty array lowest); json's comparisons
// fail with PostgreSQL's 42883 or are refused (0A000), never answered.
func TestJSONBCompare(t *testing.T) {
	r := newRig(t, []string{"public.jb"}, []string{
		"CREATE TABLE jb (id int PRIMARY KEY, j jsonb, t json)",
		`INSERT INTO jb VALUES (1, '1', '1'), (2, '1.0', '1.0'), (3, '[]', '[]'), (4, 'null', 'null'), (5, NULL, NULL),
		 (6, '{"a": 1}', '{"a": 1}'), (7, '{"a": 1.00}', '{"a":1.00}'), (8, '"é"', '"\u00e9"'), (9, '[1, [2]]', '[1,[2]]'),
		 (10, '{}', '{}'), (11, 'true', 'true'), (12, '"b"', '"b"'), (13, '[1.0, [2.0]]', '[1.0,[2.0]]'), (14, '10', '10')`,
	})
	queries := []string{
		"SELECT id FROM jb WHERE j = '1' ORDER BY id",
		"SELECT id FROM jb WHERE j <> '1.00' ORDER BY id",
		"SELECT id FROM jb WHERE j > '[]' ORDER BY id",
		"SELECT id FROM jb WHERE j IN ('{\"a\": 1}', '[1, [2]]') ORDER BY id",
		"SELECT id, j FROM jb ORDER BY j, id",
		"SELECT id, j FROM jb ORDER BY j DESC NULLS LAST, id LIMIT 5",
		"SELECT count(*), min(id) FROM jb GROUP BY j ORDER BY 2",
		"SELECT count(DISTINCT j) FROM jb",
		"SELECT count(*) FROM (SELECT DISTINCT j FROM jb) s",
		"SELECT a.id, b.id FROM jb a JOIN jb b ON a.j = b.j AND a.id < b.id ORDER BY 1, 2",
		"SELECT id, j = '1'::jsonb, j < '\"a\"' FROM jb ORDER BY id",
		"SELECT json_agg(j ORDER BY id), jsonb_agg(t ORDER BY id DESC), json_object_agg(id, t ORDER BY id), jsonb_object_agg(id, j ORDER BY id) FROM jb",
		"SELECT jsonb_typeof(j), jsonb_agg(id ORDER BY id) FROM jb GROUP BY 1 ORDER BY 1",
		"SELECT e.key, e.value, count(*) FROM (SELECT * FROM jb WHERE jsonb_typeof(j) = 'object') s, jsonb_each(s.j) e GROUP BY 1, 2 ORDER BY 1, 2",
		"SELECT id, jsonb_array_elements_text(j) FROM jb WHERE jsonb_typeof(j) = 'array' ORDER BY 1, 2",
		"SELECT id, j || '[1]', j || '{\"z\": 1}' FROM jb WHERE j IS NOT NULL ORDER BY id",
		"SELECT id, j - 'a', j - 0 FROM jb WHERE jsonb_typeof(j) IN ('array') ORDER BY id",
		"SELECT id, j - 'a', j - ARRAY['a'] FROM jb WHERE jsonb_typeof(j) IN ('object') ORDER BY id",
	}
	ctx := context.Background()
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
		for _, q := range []string{"SELECT id FROM jb WHERE t = '1'", "SELECT id FROM jb ORDER BY t", "SELECT t, count(*) FROM jb GROUP BY t", "SELECT DISTINCT t FROM jb"} {
			_, werr := resultOf(ctx, pgc, q)
			_, gerr := resultOf(ctx, scc, q)
			var we, ge *pgconn.PgError
			if !errors.As(werr, &we) || !errors.As(gerr, &ge) || we.Code != ge.Code && ge.Code != "0A000" {
				t.Errorf("mode %v: %s: PostgreSQL %v, sidecar %v", mode, q, werr, gerr)
			}
		}
		pgc.Close(ctx)
		scc.Close(ctx)
	}
}
