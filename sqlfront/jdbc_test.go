package sqlfront_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testenv"
)

const jdbcJar = "/usr/share/java/postgresql.jar"

// Client.java: a prepared statement run past pgjdbc's prepareThreshold
// (5: from then on a named server-side statement with binary results),
// result metadata, an AS OF and a refused write.
const jdbcClient = `
import java.sql.*;
public class Client {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], "app", "")) {
      PreparedStatement ps = c.prepareStatement("SELECT name, balance FROM accounts WHERE id = ?");
      StringBuilder sb = new StringBuilder();
      for (int i = 3; i < 13; i++) {
        ps.setInt(1, i);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) sb.append(rs.getString(1)).append("=").append(rs.getBigDecimal(2)).append(" ");
        }
      }
      System.out.println(sb.toString().trim());
      try (ResultSet rs = ps.executeQuery()) {
        ResultSetMetaData md = rs.getMetaData();
        System.out.println(md.getColumnName(1) + ":" + md.getColumnType(1) + " " + md.getColumnName(2) + ":" + md.getColumnType(2));
      }
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM accounts AS OF 'HEAD~1'")) {
        rs.next();
        System.out.println(rs.getLong(1));
      }
      try (Statement s = c.createStatement()) {
        s.executeUpdate("UPDATE accounts SET name = 'x'");
      } catch (SQLException e) {
        System.out.println(e.getSQLState());
      }
      System.out.println(c.getMetaData().getDatabaseProductVersion());
    }
  }
}
`

// runJava runs a single-file Java program with pgjdbc on the class path.
func runJava(t *testing.T, name, source string, args ...string) string {
	t.Helper()
	return javaProgram(t, name, source)(args...)
}

// javaProgram compiles a single-file Java program with pgjdbc on the
// class path (javac, into the test's temp dir) and returns what runs it
// with args. A test that runs one program several times (against
// sidecar and PostgreSQL, per table) compiles it once: java's
// source-file launcher compiles on every run, ~2 CPU-s each, 5× the
// run of the compiled class.
func javaProgram(t *testing.T, name, source string) func(args ...string) string {
	t.Helper()
	if _, err := os.Stat(jdbcJar); err != nil {
		testenv.Missing(t, "pgjdbc ("+jdbcJar+")", "install Debian's libpostgresql-jdbc-java package")
	}
	java := testenv.LookPath(t, "install Debian's default-jdk-headless package", "java")
	javac := testenv.LookPath(t, "install Debian's default-jdk-headless package", "javac")
	dir := t.TempDir()
	src := filepath.Join(dir, name+".java")
	if err := os.WriteFile(src, []byte(source), 0o600); err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(dir, "classes")
	if out, err := exec.Command(javac, "-nowarn", "-cp", jdbcJar, "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac %s: %v\n%s", name, err, out)
	}
	return func(args ...string) string {
		t.Helper()
		out, err := exec.Command(java, append([]string{"-cp", jdbcJar + string(filepath.ListSeparator) + classes, name}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("java %s: %v\n%s", name, err, out)
		}
		return string(out)
	}
}

// Meta.java: DatabaseMetaData getTables, getColumns, getPrimaryKeys.
const jdbcMeta = `
import java.sql.*;
public class Meta {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], a[1], "")) {
      DatabaseMetaData md = c.getMetaData();
      String[][] calls = {{"public", "accounts"}, {"public", "%"}, {"public", "acc%"}};
      for (String[] x : calls) {
        try (ResultSet rs = md.getTables(null, x[0], x[1], new String[]{"TABLE"})) {
          while (rs.next()) System.out.println("T " + rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + " " + rs.getString("TABLE_TYPE"));
        }
        try (ResultSet rs = md.getColumns(null, x[0], x[1], "%")) {
          while (rs.next()) System.out.println("C " + rs.getString("TABLE_NAME") + "." + rs.getString("COLUMN_NAME") + " " + rs.getInt("DATA_TYPE") + " " +
            rs.getString("TYPE_NAME") + " " + rs.getInt("COLUMN_SIZE") + " " + rs.getInt("DECIMAL_DIGITS") + " " + rs.getString("IS_NULLABLE") + " " + rs.getInt("ORDINAL_POSITION"));
        }
        try (ResultSet rs = md.getPrimaryKeys(null, x[0], x[1])) {
          while (rs.next()) System.out.println("P " + rs.getString("TABLE_NAME") + "." + rs.getString("COLUMN_NAME") + " " + rs.getInt("KEY_SEQ") + " " + rs.getString("PK_NAME"));
        }
      }
    }
  }
}
`

// TestJDBCMetadata compares pgjdbc's DatabaseMetaData answers from sidecar
// with PostgreSQL's for the followed tables.
func TestJDBCMetadata(t *testing.T) {
	r := historyRig(t)
	meta := javaProgram(t, "Meta", jdbcMeta)
	got := meta("jdbc:postgresql://"+r.addr+"/app?sslmode=disable", "app")
	pgAddr := strings.TrimPrefix(r.pgURL, "postgres://postgres@")
	want := meta("jdbc:postgresql://"+pgAddr, "postgres")
	if got != want {
		t.Errorf("sidecar:\n%s\nPostgreSQL:\n%s", got, want)
	}
}

func TestJDBC(t *testing.T) {
	r := historyRig(t)
	out := runJava(t, "Client", jdbcClient, "jdbc:postgresql://"+r.addr+"/app?sslmode=disable")
	want := "n3=3.00 n4=4.00 n5=5.00 n6=6.00 n7=7.00 n8=8.00 n9=9.00 n10=10.00 n11=11.00 n12=12.00\nname:12 balance:2\n50\n25006\n" + pg.ServerVersionString() + "\n"
	if out != want {
		t.Errorf("pgjdbc:\n%s\nwant\n%s", out, want)
	}
	_ = strings.TrimSpace
}
