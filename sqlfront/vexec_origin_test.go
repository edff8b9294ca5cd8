package sqlfront_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// jdbcResultMeta: pgjdbc's ResultSetMetaData of each query (it reads the
// columns' table OID and attnum, then the catalog for them).
const jdbcResultMeta = `
import java.sql.*;
public class ResultMeta {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], a[1], "")) {
      for (int k = 2; k < a.length; k++) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(a[k])) {
          ResultSetMetaData m = rs.getMetaData();
          StringBuilder sb = new StringBuilder();
          for (int i = 1; i <= m.getColumnCount(); i++)
            sb.append(m.getColumnTypeName(i)).append(" ").append(m.isNullable(i)).append(" ").append(m.isAutoIncrement(i)).append(" ")
              .append(m.getTableName(i)).append(" ").append(m.getColumnName(i)).append(";");
          System.out.println(a[k] + ": " + sb);
        } catch (SQLException x) { System.out.println(a[k] + ": ERR " + x.getSQLState()); }
      }
    }
  }
}
`

// describeOrigins runs q (extended protocol) and returns its result
// columns' table OID/attnum ("name:oid/attnum …"), or "ERR sqlstate".
func describeOrigins(t *testing.T, c *pgconn.PgConn, q string) string {
	t.Helper()
	rr := c.ExecParams(context.Background(), q, nil, nil, nil, nil)
	var b strings.Builder
	for _, f := range rr.FieldDescriptions() {
		fmt.Fprintf(&b, "%s:%d/%d ", f.Name, f.TableOID, f.TableAttributeNumber)
	}
	if _, err := rr.Close(); err != nil {
		if pe, ok := err.(*pgconn.PgError); ok {
			return "ERR " + pe.Code
		}
		t.Fatalf("%s: %v", q, err)
	}
	return b.String()
}

// TestRowDescriptionOrigins: a result column's table OID and attribute
// number (what pgjdbc's getTableName, getColumnName, isNullable and
// isAutoIncrement read) are PostgreSQL's on the engine path: a view's
// column names the view and its position (PostgreSQL marks origins
// before the rewriter expands views), a subquery's or join's column the
// column it passes, an expression none. The engine path said 0/0 for
// every column.
func TestRowDescriptionOrigins(t *testing.T) {
	r := newRig(t, []string{"public.accounts", "public.items"}, []string{
		"CREATE TABLE accounts (id int PRIMARY KEY, name text, balance numeric(12,2))",
		"CREATE TABLE items (id int PRIMARY KEY, gone int, acct int REFERENCES accounts, name varchar(20) NOT NULL, qty int, tags text[])",
		"ALTER TABLE items DROP COLUMN gone", // attnums are not positions
		"INSERT INTO accounts VALUES (1, 'a', 1), (2, 'b', 2)", "INSERT INTO items VALUES (1, 1, 'x', 3, '{a,b}'), (2, 2, 'y', 4, NULL)",
		"CREATE VIEW item_names AS SELECT id, name FROM items",
		"CREATE VIEW v_expr AS SELECT id + 1 AS x, name, upper(name) AS u, qty FROM items",
		"CREATE VIEW v_nested AS SELECT name, id FROM item_names",
		"CREATE VIEW v_join AS SELECT i.id, a.name AS acct_name, i.qty FROM items i JOIN accounts a ON a.id = i.acct",
		"CREATE VIEW v_dup AS SELECT id, id AS id2, name FROM items",
	})
	sc, err := pgconn.Connect(context.Background(), r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close(context.Background())
	pgc, err := pgconn.Connect(context.Background(), r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(context.Background())
	same := []string{
		"SELECT * FROM item_names",
		"SELECT name FROM item_names",
		"SELECT n.id, n.name, n.id + 1 FROM item_names n",
		"SELECT * FROM v_expr",
		"SELECT x, u FROM v_expr WHERE qty > 0",
		"SELECT * FROM v_nested",
		"SELECT * FROM v_join ORDER BY id",
		"SELECT s.id FROM (SELECT id FROM item_names) s",
		"SELECT s.name FROM (SELECT name FROM items) s",
		"SELECT v.name, i.name, i.qty FROM item_names v JOIN items i ON i.id = v.id",
		"SELECT count(*), name FROM item_names GROUP BY name",
		"SELECT id, lower(name), qty FROM items",
		"SELECT DISTINCT id FROM item_names",
		"SELECT id FROM item_names UNION SELECT id FROM items",
		"SELECT id FROM item_names ORDER BY name LIMIT 1",
		"SELECT i.qty, a.name FROM items i LEFT JOIN accounts a ON a.id = i.acct",
		"SELECT i.qty, (SELECT count(*) FROM accounts) FROM items i",
		"SELECT coalesce(qty, 0), qty, coalesce(qty), greatest(qty), qty + 0 FROM items",
		"SELECT id, row_number() OVER (ORDER BY id) FROM item_names",
		"SELECT i.qty, i.tags[1] FROM items i, LATERAL (SELECT 1) l",
		"SELECT -id, id::int4, name::varchar(20), name::varchar, name::text FROM item_names",
		"SELECT s.x FROM (SELECT +qty AS x, qty AS y FROM items) s", // a unary plus: 0/0 (the binder reads it as the column)
		"SELECT (SELECT i.qty), ((qty)) FROM items i",
		"SELECT * FROM (SELECT * FROM items i JOIN accounts a ON a.id = i.acct) j",
		"SELECT DISTINCT ON (name) name, id FROM item_names ORDER BY name, id",
		"SELECT max(id) OVER (), id FROM v_nested",
		"SELECT x.name FROM (SELECT name FROM v_join JOIN item_names USING (id)) x",
	}
	for _, q := range same {
		if got, want := describeOrigins(t, sc, q), describeOrigins(t, pgc, q); got != want {
			t.Errorf("%s:\n  sidecar    %s\n  PostgreSQL %s", q, got, want)
		}
	}
	// Answered as PostgreSQL or refused (a view column at two positions);
	// a CTE's columns still say 0/0 where PostgreSQL names the origin.
	for _, q := range []string{"SELECT * FROM v_dup", "SELECT id2 FROM v_dup"} {
		if got, want := describeOrigins(t, sc, q), describeOrigins(t, pgc, q); got != want && got != "ERR 0A000" {
			t.Errorf("%s:\n  sidecar    %s\n  PostgreSQL %s (or 0A000)", q, got, want)
		}
	}
	q := "WITH c AS (SELECT id FROM item_names) SELECT id FROM c"
	if got, want := describeOrigins(t, sc, q), describeOrigins(t, pgc, q); got != want && got != "id:0/0 " {
		t.Errorf("%s:\n  sidecar    %s\n  PostgreSQL %s (or 0/0)", q, got, want)
	}
	// pgjdbc over the engine path: a table's columns through a subquery
	// and a join are described as PostgreSQL describes them, and a
	// view's columns name the view, whose pg_attribute rows and column
	// defaults the catalog serves (TestCatalogViewColumns; refused
	// before they were read, 0/0 before that).
	meta := javaProgram(t, "ResultMeta", jdbcResultMeta)
	queries := []string{"SELECT s.id, s.qty FROM (SELECT id, qty FROM items) s", "SELECT i.id, a.name, lower(i.name) FROM items i JOIN accounts a ON a.id = i.acct ORDER BY 1",
		"SELECT * FROM item_names"}
	got := clientLines(meta(append([]string{"jdbc:postgresql://" + r.addr + "/app?sslmode=disable", "app"}, queries...)...))
	want := clientLines(meta(append([]string{"jdbc:postgresql://" + strings.TrimPrefix(r.pgURL, "postgres://postgres@"), "postgres"}, queries...)...))
	for _, q := range queries {
		if got[q] != want[q] {
			t.Errorf("pgjdbc %s:\n  sidecar    %s\n  PostgreSQL %s", q, got[q], want[q])
		}
	}
}
