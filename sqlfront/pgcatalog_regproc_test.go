package sqlfront_test

import (
	"strings"
	"testing"
)

// jdbcTypeLookup: pgjdbc's lookups of a type outside its own table (an
// interval column): ResultSetMetaData.getColumnTypeName and
// DatabaseMetaData.getColumns send `… WHERE t.oid = $1` and
// `typinput = 'pg_catalog.array_in'::regproc … WHERE pg_type.oid = $1`;
// then the same lookup as a prepared statement, by the OID given.
const jdbcTypeLookup = `
import java.sql.*;
public class Lookup {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], a[1], "")) {
      DatabaseMetaData md = c.getMetaData();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + a[2])) {
        ResultSetMetaData m = rs.getMetaData();
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= m.getColumnCount(); i++) sb.append(m.getColumnTypeName(i)).append(" ").append(m.getColumnType(i)).append(";");
        System.out.println("getColumnTypeName: " + sb);
      } catch (SQLException x) { System.out.println("getColumnTypeName: ERR " + x.getSQLState()); }
      try (ResultSet rs = md.getColumns(null, "public", a[2], "%")) {
        StringBuilder sb = new StringBuilder();
        while (rs.next()) sb.append(rs.getString("COLUMN_NAME")).append(" ").append(rs.getString("DATA_TYPE")).append(" ").append(rs.getString("TYPE_NAME"))
          .append(" ").append(rs.getString("COLUMN_SIZE")).append(" ").append(rs.getString("DECIMAL_DIGITS")).append(";");
        System.out.println("getColumns: " + sb);
      } catch (SQLException x) { System.out.println("getColumns: ERR " + x.getSQLState()); }
      String q = "SELECT typinput = 'pg_catalog.array_in'::regproc, typname, typinput, typsend FROM pg_catalog.pg_type WHERE oid = ?";
      for (int i = 3; i < a.length; i++) {
        try (PreparedStatement p = c.prepareStatement(q)) {
          p.setLong(1, Long.parseLong(a[i]));
          StringBuilder sb = new StringBuilder();
          try (ResultSet rs = p.executeQuery()) {
            while (rs.next()) sb.append(rs.getString(1)).append(" ").append(rs.getString(2)).append(" ").append(rs.getString(3)).append(" ").append(rs.getString(4)).append(";");
          }
          System.out.println("lookup " + a[i] + ": " + sb);
        } catch (SQLException x) { System.out.println("lookup " + a[i] + ": ERR " + x.getSQLState()); }
      }
    }
  }
}
`

// TestCatalogJDBCTypeLookup: pg_type's typinput … typanalyze are
// regproc (the built-in types' I/O functions, the same OIDs on 14–18)
// and a catalog statement proven by a parameter's value is answered when
// the bound value proves it (checked at each execution) — pgjdbc's
// getColumnTypeName and getColumns of a table with an interval column
// were refused (regproc, then `t.oid = $1`).
func TestCatalogJDBCTypeLookup(t *testing.T) {
	r := newRig(t, []string{"public.spans"}, []string{
		"CREATE TABLE spans (id int PRIMARY KEY, dur interval, tags text[], at timestamptz, n numeric(10,2))",
		"INSERT INTO spans VALUES (1, '1 day', '{a}', now(), 1.5)",
	})
	catalogCompare(t, r, []string{
		// Every served type's and array's I/O functions, by name and OID.
		"SELECT oid, typname, typinput, typoutput, typreceive, typsend, typmodin, typmodout, typanalyze, " +
			"typinput::oid, typoutput::oid, typreceive::oid, typsend::oid, typmodin::oid, typmodout::oid, typanalyze::oid FROM pg_type " +
			"WHERE oid IN (16, 17, 18, 19, 20, 21, 23, 25, 26, 114, 700, 701, 705, 1042, 1043, 1082, 1083, 1114, 1184, 1186, 1700, 2950, 3802, " +
			"1000, 1001, 1002, 1003, 1016, 1005, 1007, 1009, 199, 1021, 1022, 1014, 1015, 1182, 1183, 1115, 1185, 1187, 1231, 2951, 3807) ORDER BY oid",
		// information_schema's domains and their arrays.
		"SELECT typname, typinput, typoutput, typreceive, typsend, typmodin, typmodout, typanalyze FROM pg_type " +
			"WHERE typname IN ('cardinal_number', 'sql_identifier', 'yes_or_no', 'character_data', 'time_stamp', '_sql_identifier', '_yes_or_no') ORDER BY 1",
		"SELECT 'pg_catalog.array_in'::regproc, 'array_in'::regproc::oid, 'int4in'::regproc = 42, pg_typeof('interval_in'::regproc), '-'::regproc::oid, '750'::regproc",
		"SELECT typname FROM pg_type WHERE oid IN (1186, 1187, 23) AND typinput = 'pg_catalog.array_in'::regproc",
		// pgjdbc's lookup, as it sends it (without a parameter).
		"SELECT typinput='pg_catalog.array_in'::regproc as is_array, typtype, typname, pg_type.oid FROM pg_catalog.pg_type LEFT JOIN " +
			"(select ns.oid as nspoid, ns.nspname, r.r from pg_namespace as ns join ( select s.r, (current_schemas(false))[s.r] as nspname " +
			"from generate_series(1, array_upper(current_schemas(false), 1)) as s(r) ) as r using ( nspname ) ) as sp ON sp.nspoid = typnamespace " +
			"WHERE pg_type.oid = 1186 ORDER BY sp.r, pg_type.oid DESC",
	}, []string{
		"SELECT 'int4pl'::regproc::oid", // not a type's I/O function: not known
		"SELECT 1::oid::regproc",        // an OID of no function
	})
	pgAddr := strings.TrimPrefix(r.pgURL, "postgres://postgres@")
	lookup := javaProgram(t, "Lookup", jdbcTypeLookup)
	got := clientLines(lookup("jdbc:postgresql://"+r.addr+"/app?sslmode=disable", "app", "spans", "1186", "1187", "81"))
	want := clientLines(lookup("jdbc:postgresql://"+pgAddr, "postgres", "spans", "1186", "1187", "81"))
	for _, call := range []string{"getColumnTypeName", "getColumns", "lookup 1186", "lookup 1187"} {
		if got[call] != want[call] || want[call] == "" {
			t.Errorf("%s:\n  sidecar    %s\n  PostgreSQL %s", call, got[call], want[call])
		}
	}
	// pg_proc's own row type: a system type sidecar's pg_type lacks. The
	// same statement bound to it is refused, not answered without rows.
	if got["lookup 81"] != "ERR 0A000" || !strings.Contains(want["lookup 81"], "pg_proc") {
		t.Errorf("lookup 81: sidecar %q, want ERR 0A000 (PostgreSQL %q)", got["lookup 81"], want["lookup 81"])
	}
}
