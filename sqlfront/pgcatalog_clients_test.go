package sqlfront_test

import (
	"strings"
	"testing"
)

// The client calls of issue 23 that must work unmodified against a
// replica. Each call prints one line: its answer, or ERR and the
// SQLSTATE. Lines sidecar must answer as PostgreSQL does are compared.

// jdbcCatalogWalk: ResultSetMetaData on a table-backed result and the
// DatabaseMetaData calls DBeaver makes, one line per call.
const jdbcCatalogWalk = `
import java.sql.*;
import java.util.*;
public class Walk {
  interface Call { String run() throws Exception; }
  static String rows(ResultSet rs, String... cols) throws SQLException {
    StringBuilder sb = new StringBuilder();
    while (rs.next()) {
      sb.append("[");
      for (String c : cols) sb.append(rs.getString(c)).append(";");
      sb.append("]");
    }
    rs.close();
    return sb.toString();
  }
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], a[1], "")) {
      DatabaseMetaData md = c.getMetaData();
      Map<String, Call> calls = new LinkedHashMap<>();
      calls.put("getColumnTypeName", () -> {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + a[2])) {
          ResultSetMetaData m = rs.getMetaData();
          StringBuilder sb = new StringBuilder();
          for (int i = 1; i <= m.getColumnCount(); i++) {
            sb.append(m.getColumnTypeName(i)).append(" ").append(m.isNullable(i)).append(" ").append(m.isAutoIncrement(i)).append(" ")
              .append(m.getTableName(i)).append(" ").append(m.getSchemaName(i)).append(";");
          }
          return sb.toString();
        }
      });
      calls.put("getTables", () -> rows(md.getTables(null, "public", a[2], new String[]{"TABLE"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS"));
      calls.put("getTablesAll", () -> rows(md.getTables(null, "public", "%", null), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS"));
      calls.put("getTablesViews", () -> rows(md.getTables(null, "public", "%", new String[]{"TABLE", "VIEW", "MATERIALIZED VIEW"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS"));
      calls.put("getColumnsAll", () -> rows(md.getColumns(null, "public", "%", "%"), "TABLE_NAME", "COLUMN_NAME", "TYPE_NAME"));
      calls.put("getColumns", () -> rows(md.getColumns(null, "public", a[2], "%"), "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE",
        "DECIMAL_DIGITS", "NULLABLE", "IS_NULLABLE", "COLUMN_DEF", "ORDINAL_POSITION", "IS_AUTOINCREMENT", "REMARKS"));
      calls.put("getPrimaryKeys", () -> rows(md.getPrimaryKeys(null, "public", a[2]), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME"));
      calls.put("getImportedKeys", () -> rows(md.getImportedKeys(null, "public", a[2]), "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "FK_NAME"));
      calls.put("getExportedKeys", () -> rows(md.getExportedKeys(null, "public", a[2]), "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "FK_NAME"));
      calls.put("getIndexInfo", () -> rows(md.getIndexInfo(null, "public", a[2], false, true), "INDEX_NAME", "NON_UNIQUE", "COLUMN_NAME", "ORDINAL_POSITION"));
      calls.put("getSchemas", () -> rows(md.getSchemas(), "TABLE_SCHEM"));
      calls.put("getTypeInfo", () -> rows(md.getTypeInfo(), "TYPE_NAME", "DATA_TYPE", "PRECISION", "NULLABLE", "CASE_SENSITIVE", "SEARCHABLE"));
      calls.put("getFunctions", () -> rows(md.getFunctions(null, "public", "%"), "FUNCTION_SCHEM", "FUNCTION_NAME", "FUNCTION_TYPE"));
      calls.put("getProcedures", () -> rows(md.getProcedures(null, "public", "%"), "PROCEDURE_SCHEM", "PROCEDURE_NAME", "PROCEDURE_TYPE"));
      calls.put("getUDTs", () -> rows(md.getUDTs(null, "public", "%", null), "TYPE_SCHEM", "TYPE_NAME", "CLASS_NAME", "DATA_TYPE"));
      calls.put("getTableTypes", () -> rows(md.getTableTypes(), "TABLE_TYPE"));
      calls.put("getCatalogs", () -> rows(md.getCatalogs(), "TABLE_CAT"));
      calls.put("getIndexInfoAll", () -> rows(md.getIndexInfo(null, "public", a[2], false, true), "INDEX_NAME", "NON_UNIQUE", "TYPE",
        "COLUMN_NAME", "ASC_OR_DESC", "CARDINALITY", "PAGES", "FILTER_CONDITION"));
      for (Map.Entry<String, Call> e : calls.entrySet()) {
        String out;
        try { out = e.getValue().run(); } catch (SQLException x) { out = "ERR " + x.getSQLState() + " " + x.getMessage().split("\n")[0]; }
        System.out.println(e.getKey() + ": " + out);
      }
    }
  }
}
`

// sqlalchemyInspect: create_engine without options, the inspector.
const sqlalchemyInspect = `
import sys, warnings, sqlalchemy
warnings.simplefilter("ignore")  # PostgreSQL's expression index warning goes to stderr
def call(name, fn):
    try:
        out = fn()
    except Exception as e:
        code = getattr(getattr(e, "orig", None), "pgcode", None)
        out = "ERR %s %s" % (code, str(e).splitlines()[0][:200])
    print("%s: %s" % (name, out))
eng = sqlalchemy.create_engine(sys.argv[1])
call("connect", lambda: eng.connect().execute(sqlalchemy.text("SELECT count(*) FROM " + sys.argv[2])).scalar())
ins = None
def inspector():
    global ins
    ins = sqlalchemy.inspect(eng)
    return "ok"
call("inspect", inspector)
call("get_schema_names", lambda: [s for s in ins.get_schema_names() if s == "public"])
call("get_table_names", lambda: sorted(ins.get_table_names()))
call("has_table", lambda: ins.has_table(sys.argv[2]))
call("get_columns", lambda: [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in ins.get_columns(sys.argv[2])])
call("get_pk_constraint", lambda: ins.get_pk_constraint(sys.argv[2]))
call("get_foreign_keys", lambda: ins.get_foreign_keys(sys.argv[2]))
call("get_indexes", lambda: ins.get_indexes(sys.argv[2]))
call("get_unique_constraints", lambda: ins.get_unique_constraints(sys.argv[2]))
call("get_check_constraints", lambda: ins.get_check_constraints(sys.argv[2]))
call("get_table_comment", lambda: ins.get_table_comment(sys.argv[2]))
`

// clientLines runs a client against sidecar and PostgreSQL and returns
// both outputs' lines by call name.
func clientLines(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok {
			m[k] = v
		}
	}
	return m
}

// catalogRig follows a table whose columns have NOT NULL outside the
// key, defaults, a serial, a foreign key, a check, indexes and comments,
// and the table it references (a unique constraint, no defaults).
func catalogRig(t *testing.T) *rig {
	return newRig(t, []string{"public.accounts", "public.items"}, []string{
		"CREATE TABLE accounts (id int PRIMARY KEY, name text UNIQUE, balance numeric(12,2))",
		"CREATE TABLE items (id serial CONSTRAINT items_key PRIMARY KEY, acct int REFERENCES accounts ON DELETE CASCADE, " +
			"name varchar(20) NOT NULL DEFAULT 'x', qty int DEFAULT 1 + 1 CHECK (qty > 0), at timestamptz)",
		"CREATE INDEX items_name ON items (lower(name)) WHERE qty > 1", "CREATE INDEX items_at ON items USING hash (at)",
		"CREATE INDEX accounts_bal ON accounts (balance DESC NULLS LAST, id) INCLUDE (name) WITH (fillfactor = 70)",
		"CREATE UNIQUE INDEX items_qty ON items (qty, acct DESC) WHERE qty < 100",
		"COMMENT ON TABLE items IS 'the items'", "COMMENT ON COLUMN items.qty IS 'how many'",
		"INSERT INTO accounts VALUES (1, 'a', 1)", "INSERT INTO items (qty) VALUES (3)",
		// A view: the listings (psql \d, getTables, information_schema)
		// name it as PostgreSQL does, or refuse.
		"CREATE VIEW item_names AS SELECT id, name FROM items", "COMMENT ON VIEW item_names IS 'names only'",
	})
}

// compareCalls checks each client call: the ones in same answer as on
// PostgreSQL; every other one answers as PostgreSQL or is refused with a
// SQLSTATE (never a different answer).
func compareCalls(t *testing.T, table string, got, want map[string]string, same []string) {
	t.Helper()
	must := map[string]bool{}
	for _, c := range same {
		must[c] = true
	}
	for call, w := range want {
		g := got[call]
		switch {
		case g == w:
		case must[call]:
			t.Errorf("%s %s:\n  sidecar    %s\n  PostgreSQL %s", table, call, g, w)
		case strings.HasPrefix(g, "ERR 0A000") || strings.HasPrefix(g, "ERR 42"):
			t.Logf("%s %s refused: %s", table, call, g)
		default:
			t.Errorf("%s %s answered differently:\n  sidecar    %s\n  PostgreSQL %s", table, call, g, w)
		}
	}
}

// TestCatalogJDBCWalk: pgjdbc's ResultSetMetaData on a table-backed
// result (getColumnTypeName: pgjdbc joins five catalog tables) and
// DatabaseMetaData, compared with PostgreSQL's.
func TestCatalogJDBCWalk(t *testing.T) {
	r := catalogRig(t)
	pgAddr := strings.TrimPrefix(r.pgURL, "postgres://postgres@")
	walk := javaProgram(t, "Walk", jdbcCatalogWalk) // compiled once for its four runs
	for _, table := range []string{"accounts", "items"} {
		got := clientLines(walk("jdbc:postgresql://"+r.addr+"/app?sslmode=disable", "app", table))
		want := clientLines(walk("jdbc:postgresql://"+pgAddr, "postgres", table))
		// getCatalogs: this pgjdbc lists the current database only (the
		// rig serves the mirror as "app").
		if got["getCatalogs"] != "[app;]" || strings.Count(want["getCatalogs"], ";]") != 1 {
			t.Errorf("%s getCatalogs: %s, want [app;] (PostgreSQL: %s)", table, got["getCatalogs"], want["getCatalogs"])
		}
		delete(got, "getCatalogs")
		delete(want, "getCatalogs")
		compareCalls(t, table, got, want, []string{"getColumnTypeName", "getTables", "getTablesViews", "getColumns", "getPrimaryKeys", "getImportedKeys", "getExportedKeys", "getSchemas",
			"getFunctions", "getProcedures", "getTableTypes"}) // the source has no functions of its own: pg_proc's listing is empty (pgcatalog_proc.go); getProcedures joins pg_class by relname 'pg_proc' (pgcatalog_sysclass.go)
		// getIndexInfo calls information_schema._pg_expandarray, which
		// PostgreSQL has: refused 0A000 (it was 42883).
		for _, call := range []string{"getIndexInfo", "getIndexInfoAll"} {
			if g := got[call]; g != want[call] && !strings.HasPrefix(g, "ERR 0A000") {
				t.Errorf("%s %s: %s, want PostgreSQL's answer or 0A000", table, call, g)
			}
		}
	}
}

// TestCatalogSQLAlchemy: SQLAlchemy + psycopg2 with no driver options
// (psycopg2's hstore probe reads pg_type.typarray) and the inspector.
func TestCatalogSQLAlchemy(t *testing.T) {
	needPython(t, "sqlalchemy", "python3-sqlalchemy")
	needPython(t, "psycopg2", "python3-psycopg2")
	pythonCalls(t, catalogRig(t), sqlalchemyInspect, "connect", "inspect", "get_schema_names", "get_table_names", "has_table",
		"get_foreign_keys", "get_unique_constraints", "get_check_constraints", "get_table_comment", "get_pk_constraint", "get_indexes",
		"get_columns") // get_columns: regclass casts, pg_type_is_visible, pg_enum
}

// pythonCalls runs a Python client script over SQLAlchemy + psycopg2
// against sidecar and PostgreSQL for each of the rig's tables and
// compares its calls (compareCalls).
func pythonCalls(t *testing.T, r *rig, script string, same ...string) {
	t.Helper()
	for _, table := range []string{"accounts", "items"} {
		got := clientLines(runPython(t, script, "postgresql+psycopg2://"+strings.TrimPrefix(r.sqlURL, "postgres://"), table))
		want := clientLines(runPython(t, script, "postgresql+psycopg2://"+strings.TrimPrefix(r.pgURL, "postgres://"), table))
		compareCalls(t, table, got, want, same)
	}
}

// TestCatalogPsqlDescribe: psql's \d of a table with NOT NULL outside
// the key, defaults, a serial, a named primary key, a unique constraint,
// a foreign key, a check, an expression index with a predicate and a
// hash index prints what PostgreSQL prints (its "Publications:" footer included),
// and so do \dn, \du and \dg. The other
// \d-family commands print what PostgreSQL prints or are refused with
// 0A000 (never other output).
func TestCatalogPsqlDescribe(t *testing.T) {
	r := catalogRig(t)
	must := []string{`\d items`, `\d accounts`, `\d+ items`, `\d+ accounts`, `\df`, `\df public.*`, `\di`, `\d`, `\dt`, `\d acc*s`, `\d i?ems`, `\dn`, `\du`, `\dg`}
	for _, cmd := range must {
		got, want := psqlBoth(t, r, cmd)
		if got != want {
			t.Errorf("%s:\n%s\nPostgreSQL:\n%s", cmd, got, want)
		}
	}
	// pg_database.oid is the source database's.
	got, err := psql(t, r.sqlURL, "-At", "-c", "SELECT oid FROM pg_database WHERE datname = current_database()")
	want, _ := psql(t, r.pgURL, "-At", "-c", "SELECT oid FROM pg_database WHERE datname = current_database()")
	if err != nil || got != want {
		t.Errorf("pg_database.oid: %s (%v), PostgreSQL %s", got, err, want)
	}
	// The cluster's other databases are read (pgcatalog_database.go):
	// a scan of every database, or of another one, answers as
	// PostgreSQL's (both were refused).
	for _, q := range []string{"SELECT datname FROM pg_database WHERE datname <> current_database() ORDER BY 1",
		"SELECT oid FROM pg_database WHERE datname = 'postgres'", "SELECT count(*) FROM pg_database WHERE datname <> 'x'"} {
		got, err := psql(t, r.sqlURL, "-At", "-c", q)
		want, werr := psql(t, r.pgURL, "-At", "-c", q)
		if err != nil || werr != nil || got != want {
			t.Errorf("%s: %s (%v), PostgreSQL %s (%v)", q, got, err, want, werr)
		}
	}
	for _, cmd := range []string{`\dt+`, `\df+`, `\l+`, `\ds`, `\d items_id_seq`, `\dv`, `\dv+`, `\d item_names`,
		`\di+`, `\dT`, `\dx`, `\dp`, `\dm`, `\dE`, `\dD`, `\dc`, `\dy`, `\dn+`, `\db`, `\dC`, `\do`, `\dd`, `\dL`} {
		got, err := psql(t, r.sqlURL, "-v", "VERBOSITY=verbose", "-c", cmd)
		want, _ := psql(t, r.pgURL, "-v", "VERBOSITY=verbose", "-c", cmd)
		switch {
		case err != nil && psqlState(got) == "0A000":
			t.Logf("%s refused: %s", cmd, strings.TrimSpace(got))
		case err != nil && psqlState(got) == psqlState(want) && psqlState(want) != "":
			// psql 15's \l+ on 17 and 18 (daticulocale is datlocale there)
			t.Logf("%s fails on PostgreSQL too: %s", cmd, strings.TrimSpace(got))
		case err != nil && strings.Contains(got, "ERROR:"):
			// A refusal says what is missing (0A000): \dp and \dn+ were
			// 42883, array_to_string(text) of the ACL columns.
			t.Errorf("%s refused with another SQLSTATE than 0A000: %s", cmd, strings.TrimSpace(got))
		case got != want:
			t.Errorf("%s answered differently:\n%s\nPostgreSQL:\n%s", cmd, got, want)
		}
	}
}

// psqlBoth runs psql's cmd against sidecar and PostgreSQL, each of
// which must answer.
func psqlBoth(t *testing.T, r *rig, cmd string) (got, want string) {
	t.Helper()
	got, err := psql(t, r.sqlURL, "-c", cmd)
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, got)
	}
	want, err = psql(t, r.pgURL, "-c", cmd)
	if err != nil {
		t.Fatalf("%s on PostgreSQL: %v\n%s", cmd, err, want)
	}
	return got, want
}

// pandasRead: pandas over SQLAlchemy + psycopg2 with no driver options:
// read_sql of a query (with and without parameters) and read_sql_table
// (which reflects the table through the inspector first).
const pandasRead = `
import sys, warnings, pandas, sqlalchemy
warnings.simplefilter("ignore")
def call(name, fn):
    try:
        df = fn()
        out = "%s %s" % (sorted(df.dtypes.astype(str).items()), df.to_dict("list"))
    except Exception as e:
        code = getattr(getattr(e, "orig", None), "pgcode", None)
        out = "ERR %s %s" % (code, str(e).splitlines()[0][:200])
    print("%s: %s" % (name, out))
eng = sqlalchemy.create_engine(sys.argv[1])
t = sys.argv[2]
call("read_sql", lambda: pandas.read_sql("SELECT * FROM " + t + " ORDER BY id", eng))
call("read_sql_params", lambda: pandas.read_sql(sqlalchemy.text("SELECT id, name FROM " + t + " WHERE id >= :lo ORDER BY id"), eng, params={"lo": 1}))
call("read_sql_table", lambda: pandas.read_sql_table(t, eng))
`

// TestCatalogPandas: pandas.read_sql and read_sql_table (which reflects
// the columns through SQLAlchemy's get_columns, whose query casts to
// regclass) answer as on PostgreSQL (same frames, same dtypes).
func TestCatalogPandas(t *testing.T) {
	needPython(t, "sqlalchemy", "python3-sqlalchemy")
	needPython(t, "psycopg2", "python3-psycopg2")
	needPython(t, "pandas", "python3-pandas")
	pythonCalls(t, catalogRig(t), pandasRead, "read_sql", "read_sql_params", "read_sql_table")
}
