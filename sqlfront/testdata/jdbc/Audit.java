import java.sql.*;
import java.util.*;
public class Audit {
  interface Call { ResultSet run() throws Exception; }
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], a[1], "")) {
      DatabaseMetaData md = c.getMetaData();
      Map<String, Call> calls = new LinkedHashMap<>();
      String[] schemas = {"public", "s2", "Mixed%", null};
      String[] tabs = {"%", "t_types", "Mixed Case", "v%", "parted%"};
      for (String s : schemas) for (String t : tabs) {
        String k = s + "," + t;
        calls.put("getTables(" + k + ",TABLE/VIEW)", () -> md.getTables(null, s, t, new String[]{"TABLE", "VIEW"}));
        calls.put("getTables(" + k + ",TABLE,PARTITIONED TABLE)", () -> md.getTables(null, s, t, new String[]{"TABLE", "PARTITIONED TABLE", "MATERIALIZED VIEW"}));
        calls.put("getColumns(" + k + ")", () -> md.getColumns(null, s, t, "%"));
        calls.put("getPrimaryKeys(" + k + ")", () -> md.getPrimaryKeys(null, s, t));
        calls.put("getImportedKeys(" + k + ")", () -> md.getImportedKeys(null, s, t));
        calls.put("getExportedKeys(" + k + ")", () -> md.getExportedKeys(null, s, t));
        calls.put("getBestRowIdentifier(" + k + ")", () -> md.getBestRowIdentifier(null, s, t, DatabaseMetaData.bestRowSession, true));
        calls.put("getVersionColumns(" + k + ")", () -> md.getVersionColumns(null, s, t));
        calls.put("getTablePrivileges(" + k + ")", () -> md.getTablePrivileges(null, s, t));
        calls.put("getColumnPrivileges(" + k + ")", () -> md.getColumnPrivileges(null, s, t, "%"));
        calls.put("getIndexInfo(" + k + ")", () -> md.getIndexInfo(null, s, t, false, true));
      }
      calls.put("getTables(null,%,SYSTEM TABLE)", () -> md.getTables(null, null, "%", new String[]{"SYSTEM TABLE"}));
      calls.put("getTables(null,pg_class,SYSTEM TABLE,TABLE)", () -> md.getTables(null, null, "pg_class", new String[]{"SYSTEM TABLE", "TABLE"}));
      calls.put("getTables(null,%,SYSTEM VIEW)", () -> md.getTables(null, null, "%", new String[]{"SYSTEM VIEW"}));
      calls.put("getTables(null,%,TEMPORARY TABLE)", () -> md.getTables(null, null, "%", new String[]{"TEMPORARY TABLE"}));
      calls.put("getTables(null,%,SEQUENCE,INDEX)", () -> md.getTables(null, null, "%", new String[]{"SEQUENCE", "INDEX"}));
      calls.put("getColumns(pg_catalog,pg_class)", () -> md.getColumns(null, "pg_catalog", "pg_class", "%"));
      calls.put("getColumns(null,views)", () -> md.getColumns(null, null, "views", "%"));
      calls.put("getColumns(public,t_types,id)", () -> md.getColumns(null, "public", "t_types", "id"));
      calls.put("getColumns(public,t_types,n_)", () -> md.getColumns(null, "public", "t_types", "n_"));
      calls.put("getCrossReference", () -> md.getCrossReference(null, "public", "parent", null, "s2", "child"));
      calls.put("getSchemas()", () -> md.getSchemas());
      calls.put("getSchemas(null,null)", () -> md.getSchemas(null, null));
      calls.put("getSchemas(null,s%)", () -> md.getSchemas(null, "s%"));
      calls.put("getSchemas(app,Mixed%)", () -> md.getSchemas(a[2], "Mixed%"));
      calls.put("getCatalogs", () -> md.getCatalogs());
      calls.put("getTableTypes", () -> md.getTableTypes());
      calls.put("getClientInfoProperties", () -> md.getClientInfoProperties());
      calls.put("getTypeInfo", () -> md.getTypeInfo());
      calls.put("getUDTs(null,null,null,null)", () -> md.getUDTs(null, null, null, null));
      calls.put("getUDTs(public,%)", () -> md.getUDTs(null, "public", "%", null));
      calls.put("getUDTs(public,%,STRUCT)", () -> md.getUDTs(null, "public", "%", new int[]{Types.STRUCT}));
      calls.put("getUDTs(public,%,DISTINCT)", () -> md.getUDTs(null, "public", "%", new int[]{Types.DISTINCT}));
      calls.put("getFunctions(public,%)", () -> md.getFunctions(null, "public", "%"));
      calls.put("getFunctions(null,%)", () -> md.getFunctions(null, null, "f%"));
      calls.put("getFunctionColumns(public,%)", () -> md.getFunctionColumns(null, "public", "%", "%"));
      calls.put("getProcedures(public,%)", () -> md.getProcedures(null, "public", "%"));
      calls.put("getProcedureColumns(public,%)", () -> md.getProcedureColumns(null, "public", "%", "%"));
      calls.put("getSuperTables", () -> md.getSuperTables(null, "public", "%"));
      calls.put("getSuperTypes", () -> md.getSuperTypes(null, "public", "%"));
      calls.put("getAttributes", () -> md.getAttributes(null, "public", "%", "%"));
      calls.put("getPseudoColumns", () -> md.getPseudoColumns(null, "public", "%", "%"));
      for (Map.Entry<String, Call> e : calls.entrySet()) {
        StringBuilder sb = new StringBuilder();
        sb.append("== ").append(e.getKey()).append("\n");
        try (ResultSet rs = e.getValue().run()) {
          ResultSetMetaData m = rs.getMetaData();
          sb.append("cols:");
          for (int i = 1; i <= m.getColumnCount(); i++) sb.append(" ").append(m.getColumnName(i)).append(":").append(m.getColumnType(i)).append(":").append(m.getColumnTypeName(i))
            .append(":").append(m.getTableName(i)).append(":").append(m.getSchemaName(i)).append(":").append(m.isNullable(i)).append(":").append(m.isAutoIncrement(i));
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
