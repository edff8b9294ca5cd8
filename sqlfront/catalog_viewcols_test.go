package sqlfront_test

import (
	"strings"
	"testing"
)

// viewColsRig follows a table and the views above it: a plain view, one
// whose columns have defaults set by ALTER VIEW (one a nextval: pgjdbc's
// isAutoIncrement reads it), one computing columns (an array, a
// collation not its type's, a window count), a view over a view and a
// materialized view.
func viewColsRig(t *testing.T) *rig {
	return newRig(t, []string{"public.items"}, []string{
		`CREATE TABLE items (id serial PRIMARY KEY, name varchar(20) NOT NULL, tag text COLLATE "C", tags int[], price numeric(8,2))`,
		"INSERT INTO items (name, tag, tags, price) VALUES ('a', 'x', '{1,2}', 1.5), ('b', NULL, NULL, NULL)",
		"CREATE VIEW item_names AS SELECT id, name FROM items",
		"CREATE VIEW item_defs AS SELECT id, name, price FROM items",
		"ALTER VIEW item_defs ALTER COLUMN id SET DEFAULT nextval('items_id_seq')",
		"ALTER VIEW item_defs ALTER COLUMN price SET DEFAULT 2.5",
		`CREATE VIEW item_calc AS SELECT id * 2 AS twice, tag || 'y' AS tagy, tags, name::text COLLATE "C" AS cname, count(*) OVER () AS n FROM items`,
		"CREATE VIEW item_top AS SELECT name, id FROM item_names WHERE id < 10",
		"CREATE MATERIALIZED VIEW item_mat AS SELECT id, tags FROM items",
		"COMMENT ON VIEW item_names IS 'names'",
	})
}

// TestCatalogViewColumns: pg_attribute lists a view's and a materialized
// view's columns and pg_attrdef the defaults ALTER VIEW set on them, as
// PostgreSQL does, so that pgjdbc's ResultSetMetaData over a view's
// columns (it looks the view's columns up in pg_attribute joined with
// pg_attrdef) answers as on PostgreSQL: it was refused (no rows for
// views in pg_attribute, their defaults not read).
func TestCatalogViewColumns(t *testing.T) {
	r := viewColsRig(t)
	const views = "c.relname IN ('item_names', 'item_defs', 'item_calc', 'item_top', 'item_mat')"
	catalogCompare(t, r, []string{
		"SELECT c.relname, a.attname, a.attnum, a.atttypid, a.atttypmod, a.attlen, a.attnotnull, a.atthasdef, a.attidentity, a.attgenerated, " +
			"a.attisdropped FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE " + views +
			" AND a.attnum > 0 ORDER BY 1, 3",
		"SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid " +
			"JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('v', 'm') AND n.nspname = 'public' AND a.attnum > 0 ORDER BY 1, a.attnum",
		"SELECT c.relname, d.adnum, pg_get_expr(d.adbin, d.adrelid), pg_get_expr(d.adbin, d.adrelid, true) FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid WHERE " +
			views + " ORDER BY 1, 2",
		"SELECT a.attname, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum " +
			"WHERE a.attrelid IN (SELECT oid FROM pg_class WHERE relname = 'item_defs') AND a.attnum > 0 ORDER BY a.attnum",
		"SELECT count(*) FROM pg_attribute WHERE attrelid IN (SELECT oid FROM pg_class WHERE relname = 'item_names')", // a view has no system columns
		"SELECT t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid IN (SELECT oid FROM pg_class WHERE relname = 'item_calc') " +
			"AND a.attnum > 0 ORDER BY a.attnum",
		"SELECT relnatts FROM pg_class c WHERE " + views + " ORDER BY relname",
		"SELECT * FROM item_defs ORDER BY id",
		// A table's columns: attndims of a non-array column (an array
		// column's, the dimensions its declaration wrote, is not read).
		"SELECT attname, attndims FROM pg_attribute WHERE attrelid IN (SELECT oid FROM pg_class WHERE relname = 'items') AND attnum > 0 AND attname <> 'tags' ORDER BY attnum",
	}, []string{
		// attcollation and atthasmissing are not known for the tables'
		// columns (the views' collations are read).
		"SELECT c.relname, a.attname, a.attcollation FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid WHERE " + views + " AND a.attnum > 0 ORDER BY 1, 3",
		"SELECT attname, attndims FROM pg_attribute WHERE attrelid IN (SELECT oid FROM pg_class WHERE relname = 'items') AND attnum > 0 ORDER BY attnum",
		// pg_description lacks the views' comments (obj_description
		// answers them): a join reaching a view's is refused (it was
		// answered without the comment).
		"SELECT c.relname, d.description FROM pg_class c JOIN pg_description d ON d.objoid = c.oid WHERE c.relkind = 'v' ORDER BY 1",
	})
	// pgjdbc's ResultSetMetaData over the views' columns (the table's for
	// reference), and its getColumns over the views: PostgreSQL's answers.
	meta := javaProgram(t, "ResultMeta", jdbcResultMeta)
	queries := []string{"SELECT * FROM items", "SELECT * FROM item_names", "SELECT * FROM item_defs", "SELECT * FROM item_calc", "SELECT * FROM item_top",
		"SELECT n.name, i.price FROM item_names n JOIN items i ON i.id = n.id"}
	got := clientLines(meta(append([]string{"jdbc:postgresql://" + r.addr + "/app?sslmode=disable", "app"}, queries...)...))
	want := clientLines(meta(append([]string{"jdbc:postgresql://" + strings.TrimPrefix(r.pgURL, "postgres://postgres@"), "postgres"}, queries...)...))
	for _, q := range queries {
		if got[q] != want[q] {
			t.Errorf("pgjdbc %s:\n  sidecar    %s\n  PostgreSQL %s", q, got[q], want[q])
		}
	}
}

// TestCatalogViewColumnsFollowDDL: a view's column defaults and columns
// change without a row change (ALTER VIEW … SET/DROP DEFAULT, CREATE OR
// REPLACE VIEW appending a column); the daemon's catalog poll reads
// them again, so pg_attribute and pg_attrdef follow, as PostgreSQL.
func TestCatalogViewColumnsFollowDDL(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.g"}, []string{"CREATE TABLE g (id int PRIMARY KEY, a int, s text)", "INSERT INTO g VALUES (1, 2, 'x')",
		"CREATE VIEW gv AS SELECT id, a FROM g"})
	pgc, scp := liveConns(t, pgURL)
	const attrs = "SELECT a.attnum, a.attname, a.atttypid, a.atthasdef, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a " +
		"LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid IN (SELECT oid FROM pg_class WHERE relname = 'gv') ORDER BY 1"
	same := func(what string) {
		t.Helper()
		res := pgc.ExecParams(t.Context(), attrs, nil, nil, nil, nil).Read()
		if res.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", attrs, res.Err)
		}
		want := strings.Join(rowsText(res), ";")
		eventuallySQL(t, sqlURL, scp, what+": ", attrs, func(rows []string, err error) bool { return err == nil && strings.Join(rows, ";") == want })
	}
	same("followed")
	execSQL(t, pgURL, "ALTER VIEW gv ALTER COLUMN a SET DEFAULT 7")
	same("after ALTER VIEW … SET DEFAULT")
	execSQL(t, pgURL, `CREATE OR REPLACE VIEW gv AS SELECT id, a, s COLLATE "C" AS s FROM g`)
	same("after CREATE OR REPLACE VIEW appending a column")
	execSQL(t, pgURL, "ALTER VIEW gv ALTER COLUMN a DROP DEFAULT")
	same("after ALTER VIEW … DROP DEFAULT")
}
