package sqlfront

import (
	"regexp"
	"strconv"
	"strings"
)

// pgjdbc's ResultSetMetaData (getColumnTypeName, isNullable,
// isAutoIncrement, getTableName, getSchemaName) reads each result
// column's origin — the table OID and attnum of its RowDescription —
// from pg_class, pg_attribute, pg_type and pg_attrdef, the pairs joined
// as a list of SELECTs (PgResultSetMetaData.fetchFieldMetaData). A
// result read from a system catalog names that catalog (vexec_origin.go
// catalogOrigin, the canned answers' columns), which the engine's
// pg_class and pg_attribute do not list: the lookup was refused, and
// with it every getColumnTypeName of getSchemas, getFunctions,
// getProcedures, getUDTs and of any catalog query's result. When every
// origin in the list is a system catalog sidecar serves, the lookup is
// answered from PostgreSQL's own columns of that catalog for the
// followed major (catalog_jdbc_columns.go): name, NOT NULL, never a
// default or identity. Lists naming a followed relation stay on the
// engine.

// jdbcFieldMetaHead and jdbcFieldMetaTail are the fixed text around
// pgjdbc's list of origins.
const (
	jdbcFieldMetaHead = "SELECT c.oid, a.attnum, a.attname, c.relname, n.nspname, a.attnotnull OR (t.typtype = 'd' AND t.typnotnull), " +
		"a.attidentity != '' OR pg_catalog.pg_get_expr(d.adbin, d.adrelid) LIKE '%nextval(%' FROM pg_catalog.pg_class c " +
		"JOIN pg_catalog.pg_namespace n ON (c.relnamespace = n.oid) JOIN pg_catalog.pg_attribute a ON (c.oid = a.attrelid) " +
		"JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid) LEFT JOIN pg_catalog.pg_attrdef d ON (d.adrelid = a.attrelid AND d.adnum = a.attnum) JOIN ("
	jdbcFieldMetaTail = ") vals ON (c.oid = vals.oid AND a.attnum = vals.attnum) "
)

// jdbcFieldMetaPair is one origin of the list: "SELECT 2615 AS oid , 2
// AS attnum" first, "SELECT 2615, 3" after, joined by " UNION ALL ".
var jdbcFieldMetaPair = regexp.MustCompile(`^SELECT (\d+)(?: AS oid )?, (-?\d+)(?: AS attnum)?$`)

// isJDBCFieldMeta says whether query is pgjdbc's origin lookup.
func isJDBCFieldMeta(query string) bool {
	return strings.HasPrefix(query, jdbcFieldMetaHead) && strings.HasSuffix(query, jdbcFieldMetaTail)
}

// catalogNameByOID is catalogTableOIDs inverted.
func catalogNameByOID(oid uint32) (string, bool) {
	for name, o := range catalogTableOIDs {
		if o == oid {
			return name, true
		}
	}
	return "", false
}

// jdbcFieldMeta returns the columns and rows of pgjdbc's origin lookup
// when every origin in it is a system catalog's column (OID 0, a result
// column of no table, matches no row), nil specs otherwise (the engine
// plans it). The followed server's major must be known (the catalogs'
// columns differ by major).
func jdbcFieldMeta(query string, version int) ([]string, func(ex *execCtx) ([][]*string, error), error) {
	list := strings.TrimSuffix(strings.TrimPrefix(query, jdbcFieldMetaHead), jdbcFieldMetaTail)
	type origin struct {
		rel    string
		attnum int
	}
	var origins []origin
	for _, part := range strings.Split(list, " UNION ALL ") {
		m := jdbcFieldMetaPair.FindStringSubmatch(part)
		if m == nil {
			return nil, nil, nil
		}
		oid, err1 := strconv.ParseUint(m[1], 10, 32)
		attnum, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil {
			return nil, nil, nil
		}
		if oid == 0 {
			continue
		}
		rel, ok := catalogNameByOID(uint32(oid))
		if !ok {
			return nil, nil, nil
		}
		origins = append(origins, origin{rel, attnum})
	}
	if len(origins) == 0 {
		return nil, nil, nil
	}
	cols := catalogColumnsByMajor[version/10000]
	if cols == nil {
		return nil, nil, unsupported(-1, "pgjdbc's result metadata of a system catalog's column when the followed server's major was not read")
	}
	specs := []string{"oid:oid@pg_class.oid", "attnum:int2@pg_attribute.attnum", "attname:name@pg_attribute.attname",
		"relname:name@pg_class.relname", "nspname:name@pg_namespace.nspname", "?column?:bool", "?column?:bool"}
	rows := func(*execCtx) ([][]*string, error) {
		var out [][]*string
		for _, o := range origins {
			// One row per listed pair, as the join gives (a pair listed
			// twice joins twice), in the list's order: PostgreSQL's hash
			// join promises none, pgjdbc reads the rows by (oid, attnum).
			fields := strings.Fields(cols[o.rel])
			if o.attnum < 1 || o.attnum > len(fields) {
				// A system column (negative attnum) or none: PostgreSQL
				// has rows for the system columns, not read here.
				if o.attnum < 0 {
					return nil, unsupported(-1, "pgjdbc's result metadata of the system column of "+o.rel)
				}
				continue
			}
			name, notNull := strings.CutSuffix(fields[o.attnum-1], "!")
			out = append(out, []*string{u32(catalogTableOIDs[o.rel]), strp(strconv.Itoa(o.attnum)), strp(name), strp(o.rel),
				strp("pg_catalog"), strp(boolText(notNull)), strp("f")})
		}
		return out, nil
	}
	return specs, rows, nil
}
