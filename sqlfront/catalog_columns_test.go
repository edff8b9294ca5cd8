package sqlfront_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// generatedRig follows a table with two generated columns the stream
// does not carry (one NOT NULL, of a collation not its type's, one with
// a comment), a dropped column before them (attnums with a gap), a
// default, a unique constraint and an index over columns after them.
func generatedRig(t *testing.T) *rig {
	return newRig(t, []string{"public.inc", "public.job"}, []string{
		"CREATE TABLE inc (id int PRIMARY KEY, gone int, opened timestamptz NOT NULL, closed timestamptz, " +
			"dur interval GENERATED ALWAYS AS (closed - opened) STORED, sev int DEFAULT 2, " +
			`label varchar(12) COLLATE "C" GENERATED ALWAYS AS ('sev ' || sev::text) STORED NOT NULL, note text, UNIQUE (sev, note))`,
		"ALTER TABLE inc DROP COLUMN gone",
		"COMMENT ON COLUMN inc.dur IS 'how long'", "COMMENT ON COLUMN inc.note IS 'a note'",
		"CREATE INDEX inc_note ON inc (note, sev)",
		"INSERT INTO inc (id, opened, closed, sev, note) SELECT g, timestamptz '2026-11-30 00:00+00' + g * interval '7 minutes', " +
			"timestamptz '2026-11-30 00:00+00' + g * interval '9 minutes', g % 4, 'n' || g FROM generate_series(1, 5) g",
		// Types pgjdbc knows without asking pg_type (it reads an
		// interval's through regproc, which the catalog refuses).
		"CREATE TABLE job (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, gone text, a int NOT NULL, b numeric(8,2) DEFAULT 1.5, " +
			"total numeric GENERATED ALWAYS AS (a + b) STORED, tag text GENERATED ALWAYS AS ('t' || a) STORED NOT NULL, note varchar(10))",
		"ALTER TABLE job DROP COLUMN gone", "COMMENT ON COLUMN job.total IS 'a plus b'",
		"INSERT INTO job (a, b, note) VALUES (1, 2, 'x'), (3, NULL, NULL)",
	})
}

// TestCatalogGeneratedColumns: the catalog lists a followed table's
// generated columns, which the stream does not carry, as PostgreSQL
// does — pg_attribute at their attnums (and the columns after them, and
// after a dropped column, at theirs), pg_attrdef with their expressions,
// information_schema.columns, pg_description, conkey/indkey, psql's \d
// and \d+, pgjdbc's getColumns and SQLAlchemy's get_columns — and a
// RowDescription gives a column's attnum as pg_attribute (issue 21:
// they were left out and every later attnum shifted). Reading the table
// itself still refuses them (TestGeneratedColumnsNotCarried).
func TestCatalogGeneratedColumns(t *testing.T) {
	r := generatedRig(t)
	const inc = " IN (SELECT oid FROM pg_class WHERE relname = 'inc')"
	catalogCompare(t, r, []string{
		"SELECT attname, attnum, atttypid, atttypmod, attgenerated, attnotnull, atthasdef, attlen FROM pg_attribute WHERE attrelid" + inc +
			" AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
		"SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'inc' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
		// The dropped column's row (PostgreSQL keeps it, renamed) and relnatts.
		"SELECT attnum, attname, atttypid, attisdropped, attnotnull, atthasdef, attgenerated, attlen, atttypmod, attidentity FROM pg_attribute WHERE attrelid" + inc + " AND attnum > 0 ORDER BY attnum",
		"SELECT relnatts FROM pg_class WHERE relname = 'inc'",
		"SELECT adnum, pg_get_expr(adbin, adrelid), pg_get_expr(adbin, adrelid, true) FROM pg_attrdef WHERE adrelid" + inc + " ORDER BY adnum",
		"SELECT a.attname, a.attgenerated, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum " +
			"WHERE a.attrelid" + inc + " AND a.attnum > 0 ORDER BY a.attnum",
		"SELECT column_name, ordinal_position, is_generated, generation_expression, column_default, is_nullable, data_type FROM information_schema.columns " +
			"WHERE table_name = 'inc' ORDER BY ordinal_position",
		"SELECT objsubid, description FROM pg_description WHERE objoid" + inc + " ORDER BY 1",
		"SELECT a.attname, col_description(a.attrelid, a.attnum) FROM pg_attribute a WHERE a.attrelid" + inc + " AND a.attnum > 0 ORDER BY a.attnum",
		"SELECT conname, conkey FROM pg_constraint WHERE conrelid" + inc + " ORDER BY 1",
		"SELECT indkey FROM pg_index WHERE indrelid" + inc + " ORDER BY indexrelid",
		"SELECT pg_get_serial_sequence('inc', 'dur') IS NULL",
		"SELECT a.attname, a.attnum, a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum " +
			"WHERE a.attrelid IN (SELECT oid FROM pg_class WHERE relname = 'job') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
		"SELECT column_name, ordinal_position, is_generated, generation_expression, column_default, is_nullable FROM information_schema.columns " +
			"WHERE table_name = 'job' ORDER BY ordinal_position",
		"SELECT id, opened, sev, note FROM inc ORDER BY id",
	}, []string{
		"SELECT dur FROM inc", "SELECT * FROM inc",
	})
	for _, cmd := range []string{`\d inc`, `\d+ inc`, `\d job`, `\d+ job`} {
		got, want := psqlBoth(t, r, cmd)
		if got != want {
			t.Errorf("%s:\n%s\nPostgreSQL:\n%s", cmd, got, want)
		}
	}
	// The attnums a RowDescription gives (clients look the columns up in
	// pg_attribute by them: pgjdbc's isNullable, getBaseColumnName).
	fields := func(url string) string {
		conn, err := pgx.Connect(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(t.Context())
		rows, err := conn.Query(t.Context(), "SELECT note, id, sev, opened FROM inc")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for _, f := range rows.FieldDescriptions() {
			fmt.Fprintf(&b, "%s:%d ", f.Name, f.TableAttributeNumber)
		}
		return b.String()
	}
	if got, want := fields(r.sqlURL), fields(r.pgURL); got != want {
		t.Errorf("RowDescription attnums: %s, PostgreSQL %s", got, want)
	}
	t.Run("pgjdbc", func(t *testing.T) {
		walk := javaProgram(t, "GenCols", jdbcGeneratedColumns)
		got := clientLines(walk("jdbc:postgresql://"+r.addr+"/app?sslmode=disable", "app"))
		want := clientLines(walk("jdbc:postgresql://"+strings.TrimPrefix(r.pgURL, "postgres://postgres@"), "postgres"))
		compareCalls(t, "job", got, want, []string{"getColumns", "metaData"})
	})
	t.Run("SQLAlchemy", func(t *testing.T) {
		needPython(t, "sqlalchemy", "python3-sqlalchemy")
		needPython(t, "psycopg2", "python3-psycopg2")
		for _, table := range []string{"inc", "job"} {
			got := clientLines(runPython(t, sqlalchemyInspect, "postgresql+psycopg2://"+strings.TrimPrefix(r.sqlURL, "postgres://"), table))
			want := clientLines(runPython(t, sqlalchemyInspect, "postgresql+psycopg2://"+strings.TrimPrefix(r.pgURL, "postgres://"), table))
			compareCalls(t, table, got, want, []string{"get_columns", "get_pk_constraint", "get_indexes", "get_unique_constraints"})
		}
	})
}

// jdbcGeneratedColumns: pgjdbc's getColumns of the table and the
// metadata of a result of its columns after the generated one.
const jdbcGeneratedColumns = `
import java.sql.*;
public class GenCols {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], a[1], "")) {
      try {
        StringBuilder sb = new StringBuilder();
        ResultSet rs = c.getMetaData().getColumns(null, "public", "job", "%");
        while (rs.next()) {
          for (String k : new String[]{"COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "NULLABLE", "COLUMN_DEF", "ORDINAL_POSITION", "IS_AUTOINCREMENT", "IS_GENERATEDCOLUMN", "REMARKS"})
            sb.append(rs.getString(k)).append(";");
          sb.append(" ");
        }
        System.out.println("getColumns: " + sb);
      } catch (SQLException x) { System.out.println("getColumns: ERR " + x.getSQLState() + " " + x.getMessage().split("\n")[0]); }
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT note, id, b, a FROM job")) {
        ResultSetMetaData m = rs.getMetaData();
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= m.getColumnCount(); i++)
          sb.append(m.getColumnTypeName(i)).append(" ").append(m.isNullable(i)).append(" ").append(((org.postgresql.PGResultSetMetaData) m).getBaseColumnName(i)).append(";");
        System.out.println("metaData: " + sb);
      } catch (SQLException x) { System.out.println("metaData: ERR " + x.getSQLState() + " " + x.getMessage().split("\n")[0]); }
    }
  }
}
`

// TestCatalogGeneratedColumnsFollowDDL: a generated column added to or
// dropped from a followed table changes no Relation of the stream (it
// carries none); the daemon's catalog poll reads the column facts again,
// so pg_attribute and information_schema.columns list it, at its
// attnum, and stop listing it (then as a dropped column), as PostgreSQL.
func TestCatalogGeneratedColumnsFollowDDL(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.g"}, []string{"CREATE TABLE g (id int PRIMARY KEY, a int)", "INSERT INTO g VALUES (1, 2)"})
	pgc, scp := liveConns(t, pgURL)
	const attrs = "SELECT attnum, attname, atttypid, attgenerated, attisdropped FROM pg_attribute WHERE attrelid IN (SELECT oid FROM pg_class WHERE relname = 'g') AND attnum > 0 ORDER BY 1"
	const cols = "SELECT column_name, ordinal_position, is_generated, generation_expression FROM information_schema.columns WHERE table_name = 'g' ORDER BY 2"
	same := func(what string) {
		t.Helper()
		for _, q := range []string{attrs, cols} {
			res := pgc.ExecParams(t.Context(), q, nil, nil, nil, nil).Read()
			if res.Err != nil {
				t.Fatalf("PostgreSQL: %s: %v", q, res.Err)
			}
			want := strings.Join(rowsText(res), ";")
			eventuallySQL(t, sqlURL, scp, what+": ", q, func(rows []string, err error) bool { return err == nil && strings.Join(rows, ";") == want })
		}
	}
	same("followed")
	execSQL(t, pgURL, "ALTER TABLE g ADD COLUMN dbl int GENERATED ALWAYS AS (a * 2) STORED")
	same("after ADD COLUMN … GENERATED")
	execSQL(t, pgURL, "ALTER TABLE g DROP COLUMN dbl")
	same("after DROP COLUMN of the generated column")
}
