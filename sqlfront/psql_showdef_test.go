package sqlfront_test

import "testing"

// TestPsqlShowView (issue 23): psql's \sv and \sv+ print a view's
// definition as PostgreSQL does (the lookup 'name'::regclass of a view
// was refused), with options and a check option, by a qualified and an
// unqualified name; regclass of a view is its OID, and an unknown name
// is 42P01 as on PostgreSQL.
func TestPsqlShowView(t *testing.T) {
	r := newRig(t, []string{"public.items", "shop.orders"}, []string{
		"CREATE SCHEMA shop",
		"CREATE TABLE items (id int PRIMARY KEY, name text, qty int)",
		"CREATE TABLE shop.orders (id int PRIMARY KEY, item int REFERENCES items, n int)",
		"CREATE VIEW item_names AS SELECT id, name FROM items WHERE qty > 0",
		"CREATE VIEW shop.big WITH (security_barrier) AS SELECT o.id, i.name FROM shop.orders o JOIN items i ON i.id = o.item WHERE o.n > 10",
		"CREATE VIEW shop.checked AS SELECT id, n FROM shop.orders WHERE n > 0 WITH LOCAL CHECK OPTION",
		"CREATE VIEW shop.cascade AS SELECT id, n FROM shop.checked WHERE n < 100 WITH CASCADED CHECK OPTION",
		"CREATE MATERIALIZED VIEW shop.totals AS SELECT item, sum(n) AS n FROM shop.orders GROUP BY item",
	})
	psqlSameOrSameError(t, r, false, `\sv item_names`, `\sv+ item_names`, `\sv public.item_names`, `\sv shop.big`, `\sv+ shop.big`,
		`\sv shop.checked`, `\sv shop.cascade`, `\sv nosuch`, `\sv shop.totals`)
	catalogCompare(t, r, []string{
		"SELECT 'item_names'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'item_names')",
		"SELECT 'shop.big'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'big')",
		"SELECT pg_get_viewdef('shop.checked'::regclass, true)",
	}, nil)
}
