package sqlfront_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// jdbcTypeInfoProgram calls getTypeInfo, getUDTs and getVersionColumns
// (TypeInfo.java), printing each answer as Audit.java does.
const jdbcTypeInfoProgram = `
import java.sql.*;
import java.util.*;
public class TypeInfo {
  interface Call { ResultSet run() throws Exception; }
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], a[1], "")) {
      DatabaseMetaData md = c.getMetaData();
      Map<String, Call> calls = new LinkedHashMap<>();
      calls.put("getTypeInfo", () -> md.getTypeInfo());
      calls.put("getUDTs(null,null,null,null)", () -> md.getUDTs(null, null, null, null));
      calls.put("getUDTs(public,%)", () -> md.getUDTs(null, "public", "%", null));
      calls.put("getUDTs(s2,%,STRUCT)", () -> md.getUDTs(null, "s2", "%", new int[]{Types.STRUCT}));
      calls.put("getUDTs(null,pos%,DISTINCT)", () -> md.getUDTs(null, null, "pos%", new int[]{Types.DISTINCT}));
      calls.put("getUDTs(public.pair)", () -> md.getUDTs(null, null, "public.pair", null));
      calls.put("getUDTs(null,%,ARRAY)", () -> md.getUDTs(null, null, "%", new int[]{Types.ARRAY}));
      calls.put("getVersionColumns(public,t)", () -> md.getVersionColumns(null, "public", "t"));
      for (Map.Entry<String, Call> e : calls.entrySet()) {
        StringBuilder sb = new StringBuilder();
        sb.append("== ").append(e.getKey()).append("\n");
        try (ResultSet rs = e.getValue().run()) {
          ResultSetMetaData m = rs.getMetaData();
          sb.append("cols:");
          for (int i = 1; i <= m.getColumnCount(); i++) sb.append(" ").append(m.getColumnName(i)).append(":").append(m.getColumnType(i)).append(":").append(m.getColumnTypeName(i))
            .append(":").append(m.getTableName(i)).append(":").append(m.getSchemaName(i)).append(":").append(m.isNullable(i));
          sb.append("\n");
          while (rs.next()) {
            sb.append("row:");
            for (int i = 1; i <= m.getColumnCount(); i++) sb.append(" ").append(rs.getString(i)).append("|");
            sb.append("\n");
          }
        } catch (SQLException x) {
          sb.append("ERR ").append(x.getSQLState()).append(" ").append(String.valueOf(x.getMessage()).split("\n")[0]).append("\n");
        }
        System.out.print(sb);
      }
    }
  }
}
`

// TestJDBCTypeInfo: pgjdbc's getTypeInfo (every pg_type row but the
// relations' row types, in the server's scan order within each JDBC
// type: the built-in types of the followed major and the database's
// own), getUDTs (composites, every table's row type, domains with their
// base type's JDBC type and comments, by pattern and type) and
// getVersionColumns (tid's JDBC type, looked up by name then OID) answer
// as PostgreSQL, also after the catalog poll reads types created and
// dropped since the copy. All three were refused 0A000 (pg_type read
// without a condition restricting it to the types sidecar serves).
func TestJDBCTypeInfo(t *testing.T) {
	r := newRig(t, []string{"public.t", "s2.u"}, []string{
		"CREATE SCHEMA s2", "CREATE TYPE gone AS (x int)", "DROP TYPE gone",
		"CREATE DOMAIN posint AS int NOT NULL CHECK (VALUE > 0)", "COMMENT ON DOMAIN posint IS 'positive'", "CREATE DOMAIN short AS varchar(10)",
		"CREATE DOMAIN s2.posnum AS numeric", "CREATE DOMAIN s2.tags AS text[]", "CREATE TYPE mood AS ENUM ('sad', 'ok')", "CREATE TYPE s2.mood AS ENUM ('x')",
		"CREATE TYPE pair AS (a int, b text)", "COMMENT ON TYPE pair IS 'two'", "CREATE TYPE s2.pair AS (c date)", "CREATE TYPE floatrange AS RANGE (subtype = float8)",
		"CREATE TABLE t (id int PRIMARY KEY, m mood, d posint, p pair)", "CREATE TABLE s2.u (id int PRIMARY KEY, n s2.posnum)",
		"CREATE VIEW v AS SELECT id FROM t", "CREATE SEQUENCE sq",
	})
	prog := javaProgram(t, "TypeInfo", jdbcTypeInfoProgram)
	u, err := url.Parse(r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	compare := func(when string) {
		t.Helper()
		got := jdbcCalls(prog("jdbc:postgresql://"+r.addr+"/"+db+"?sslmode=disable", "app"))
		want := jdbcCalls(prog("jdbc:postgresql://"+strings.TrimPrefix(r.pgURL, "postgres://postgres@"), "postgres"))
		if len(want) != 8 {
			t.Fatalf("%s: PostgreSQL answered %d calls, want 8", when, len(want))
		}
		for k, w := range want {
			if strings.HasPrefix(w, "ERR") || got[k] != w {
				t.Errorf("%s: %s:\nsidecar:\n%sPostgreSQL:\n%s", when, k, got[k], w)
			}
		}
		if !strings.Contains(want["getTypeInfo"], "row: floatrange|") || !strings.Contains(want["getUDTs(null,null,null,null)"], "row: null| public| posint| null| 2001| positive| 4|") {
			t.Errorf("%s: PostgreSQL's answers lack the database's types:\n%s%s", when, want["getTypeInfo"], want["getUDTs(null,null,null,null)"])
		}
	}
	compare("after the copy")
	execSQL(t, r.pgURL, "CREATE DOMAIN s2.later AS bigint", "DROP TYPE s2.pair", "CREATE TYPE s2.pair2 AS (d int)", "COMMENT ON DOMAIN short IS 'short text'")
	pollFacts(t, r) // pgcatalog_usertypes_test.go
	compare("after the poll")
	// Another session's temporary table: its row types are not read, so
	// the calls listing them are refused until it is gone.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, r.pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE scratch (x int)"); err != nil {
		t.Fatal(err)
	}
	pollFacts(t, r)
	got := jdbcCalls(prog("jdbc:postgresql://"+r.addr+"/"+db+"?sslmode=disable", "app"))
	for _, k := range []string{"getTypeInfo", "getUDTs(null,null,null,null)", "getUDTs(public,%)"} {
		if !strings.HasPrefix(got[k], "ERR 0A000") {
			t.Errorf("with a temporary table: %s answered:\n%s", k, got[k])
		}
	}
	if err := conn.Close(ctx); err != nil {
		t.Fatal(err)
	}
	pollFacts(t, r)
	compare("after the temporary table")
}
