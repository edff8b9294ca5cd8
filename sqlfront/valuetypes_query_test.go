package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/query"
	"github.com/sidecar-dev/sidecar/sqlfront"
)

// TestQueryValueTypes (issue 21): the scan engine (POST /api/query,
// sidecar agg), over the in-memory HEAD and over the trees, compares
// uuid, inet, cidr and interval columns by value as PostgreSQL does —
// upper-case and braced uuid literals, '10.0.0.1/8' < '10.0.0.1/32'
// (network_cmp: the mask length before the address), '1 mon' = '30
// days' — groups uuid, inet and cidr columns and orders the groups by
// value, and keeps refusing what it cannot answer exactly: GROUP BY and
// min/max of interval (equal values print differently), jsonb beyond
// count and IS NULL (1.0 = 1), LIKE. Before, every comparison of these
// columns was refused (they had been compared as text: wrong).
func TestQueryValueTypes(t *testing.T) {
	r := newRig(t, []string{"public.vt"}, []string{
		`CREATE TABLE vt (id int PRIMARY KEY, u uuid, i inet, c cidr, iv interval, j jsonb)`,
		`INSERT INTO vt VALUES
			(1, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '10.0.0.1/8', '10.0.0.0/8', '1 mon', '{"a": 1, "b": 2}'),
			(2, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12', '10.0.0.1/32', '10.0.0.0/16', '30 days', '{"b":2,"a":1}'),
			(3, '{a0eebc999c0b4ef8bb6d6bb9bd380a11}', '10.0.0.1', '10.1.0.0/16', '29 days 24:00:00', '[1.0]'),
			(4, NULL, NULL, NULL, NULL, NULL),
			(5, '00000000-0000-0000-0000-000000000000', '::1.2.3.4', '::/0', '-1 day', '[1]'),
			(6, 'ffffffff-ffff-ffff-ffff-ffffffffffff', '9.255.255.255/32', '192.168.0.0/24', '1 year', '"x"'),
			(7, 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '10.0.0.2/8', '10.0.0.0/24', '11 mons 30 days', '{}'),
			(8, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12', '2001:db8::1/64', '2001:db8::/32', '00:00:01', 'null')`,
	}, []string{
		`INSERT INTO vt VALUES (9, 'B0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '10.0.0.1/8', '10.0.0.0/8', '720:00:00', '{"a":1}')`,
		`UPDATE vt SET iv = '1 mon 1 day' WHERE id = 7`,
	})
	ctx := context.Background()
	pgc := connectBoth(t, r)["postgresql"]
	engines := queryEngines(r)
	leaf := func(col, op string, vals ...string) *query.Expr { return &query.Expr{Op: op, Col: col, Values: vals} }
	count := []query.Agg{{Func: "count"}}
	answered := []struct {
		req query.Request
		sql string
	}{
		{query.Request{Aggs: count, Where: leaf("u", "=", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")},
			"SELECT count(*) FROM vt WHERE u = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'"},
		{query.Request{Aggs: count, Where: leaf("u", "in", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12}", "b0eebc999c0b4ef8bb6d6bb9bd380a11")},
			"SELECT count(*) FROM vt WHERE u IN ('{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12}', 'b0eebc999c0b4ef8bb6d6bb9bd380a11')"},
		{query.Request{Aggs: count, Where: leaf("u", ">", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")},
			"SELECT count(*) FROM vt WHERE u > 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'"},
		{query.Request{GroupBy: []string{"u"}, Aggs: []query.Agg{{Func: "count"}, {Func: "sum", Col: "id"}}},
			"SELECT u, count(*), sum(id) FROM vt GROUP BY u ORDER BY u"},
		{query.Request{Aggs: count, Where: leaf("i", "<", "10.0.0.1/32")},
			"SELECT count(*) FROM vt WHERE i < '10.0.0.1/32'"},
		{query.Request{Aggs: count, Where: leaf("i", "=", "10.0.0.1/32")},
			"SELECT count(*) FROM vt WHERE i = '10.0.0.1/32'"},
		{query.Request{Aggs: count, Where: leaf("i", "between", "9.0.0.0/8", "10.0.0.1/9")},
			"SELECT count(*) FROM vt WHERE i BETWEEN '9.0.0.0/8' AND '10.0.0.1/9'"},
		{query.Request{Aggs: count, Where: leaf("i", "in", "::ffff:0:0/0", "0:0::1.2.3.4")},
			"SELECT count(*) FROM vt WHERE i IN ('::ffff:0:0/0', '0:0::1.2.3.4')"},
		{query.Request{GroupBy: []string{"i"}, Aggs: []query.Agg{{Func: "count"}, {Func: "sum", Col: "id"}}},
			"SELECT i, count(*), sum(id) FROM vt GROUP BY i ORDER BY i"},
		{query.Request{GroupBy: []string{"c"}, Aggs: []query.Agg{{Func: "count"}}, Having: leaf("c", ">", "10.0.0.0/9"), OrderBy: []query.Order{{Key: "c", Desc: true}}},
			"SELECT c, count(*) FROM vt GROUP BY c HAVING c > '10.0.0.0/9' ORDER BY c DESC"},
		{query.Request{Aggs: count, Where: leaf("iv", "=", "30 days")},
			"SELECT count(*) FROM vt WHERE iv = '30 days'"},
		{query.Request{Aggs: []query.Agg{{Func: "count"}, {Func: "sum", Col: "id"}}, Where: leaf("iv", ">=", "1 mon")},
			"SELECT count(*), sum(id) FROM vt WHERE iv >= '1 mon'"},
		{query.Request{Aggs: []query.Agg{{Func: "sum", Col: "id"}}, Where: &query.Expr{Op: "not", Args: []*query.Expr{leaf("iv", "in", "P1M", "@ 1 year")}}},
			"SELECT sum(id) FROM vt WHERE NOT iv IN ('P1M', '@ 1 year')"},
		{query.Request{Aggs: count, Where: leaf("j", "is_not_null")},
			"SELECT count(*) FROM vt WHERE j IS NOT NULL"},
	}
	for _, a := range answered {
		a.req.Table = "public.vt"
		queryMatchesPG(t, engines, pgc, a.req, a.sql)
	}
	refused := map[string]query.Request{
		"group by iv":    {GroupBy: []string{"iv"}, Aggs: count},
		"max(iv)":        {Aggs: []query.Agg{{Func: "max", Col: "iv"}}},
		"min(i)":         {Aggs: []query.Agg{{Func: "min", Col: "i"}}},
		"j = '[1]'":      {Aggs: count, Where: leaf("j", "=", "[1]")},
		"group by j":     {GroupBy: []string{"j"}, Aggs: count},
		"u like 'a0%'":   {Aggs: count, Where: leaf("u", "like", "a0%")},
		"i = 'nonsense'": {Aggs: count, Where: leaf("i", "=", "nonsense")},
	}
	for what, req := range refused {
		req.Table = "public.vt"
		for name, e := range engines {
			res, _, err := e.Run(ctx, req)
			if err == nil {
				got, _ := res.Text(0, 0)
				t.Errorf("query (%s) answered %s (%s), want it refused", name, what, got)
			} else if !errors.Is(err, query.ErrBadRequest) {
				t.Errorf("query (%s) %s: %v, want a bad request", name, what, err)
			}
		}
	}
}

// queryEngines are the scan engine over the rig's in-memory HEAD and
// over its trees.
func queryEngines(r *rig) map[string]*query.Engine {
	return map[string]*query.Engine{
		"head": {Tree: r.hist, Heads: r.src.(*sqlfront.HistorySource).Head},
		"tree": {Tree: r.hist},
	}
}

// queryMatchesPG runs req on each engine and wants PostgreSQL's rows for
// sql, in its order.
func queryMatchesPG(t *testing.T, engines map[string]*query.Engine, pgc *pgconn.PgConn, req query.Request, sql string) {
	t.Helper()
	ctx := context.Background()
	want := pgc.ExecParams(ctx, sql, nil, nil, nil, nil).Read()
	if want.Err != nil {
		t.Fatalf("PostgreSQL: %s: %v", sql, want.Err)
	}
	exp := rowsText(want)
	for name, e := range engines {
		res, _, err := e.Run(ctx, req)
		if err != nil {
			t.Errorf("query (%s) %s: %v", name, sql, err)
			continue
		}
		var got []string
		for i := range res.Rows {
			var cells []string
			for c := range res.Columns {
				if s, ok := res.Text(i, c); ok {
					cells = append(cells, fmt.Sprintf("%q", s))
				} else {
					cells = append(cells, "NULL")
				}
			}
			got = append(got, strings.Join(cells, "|"))
		}
		if !slices.Equal(got, exp) {
			t.Errorf("query (%s) %s:\n got %q\nwant %q", name, sql, got, exp)
		}
	}
}
