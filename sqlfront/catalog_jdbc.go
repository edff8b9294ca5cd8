package sqlfront

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// pgjdbc's DatabaseMetaData queries (42.x: getTables, getColumns,
// getPrimaryKeys) change shape with their arguments, so they are
// recognised by text only pgjdbc writes and their patterns read from the
// text; the answers come from the mirror's relations.

var (
	jdbcSchemaLike = regexp.MustCompile(`n\.nspname (LIKE|=) '((?:[^']|'')*)'`)
	jdbcTableLike  = regexp.MustCompile(`(?:c|ct)\.relname (LIKE|=) '((?:[^']|'')*)'`)
	jdbcColumnLike = regexp.MustCompile(`attname (LIKE|=) '((?:[^']|'')*)'`)
)

// matches applies the pattern re finds in the WHERE clause of query to
// s: LIKE as LIKE, = exactly (getPrimaryKeys writes =); no pattern
// matches everything.
func matches(re *regexp.Regexp, query, s string) bool {
	if i := strings.Index(query, " WHERE "); i >= 0 {
		query = query[i:]
	}
	m := re.FindStringSubmatch(query)
	if m == nil {
		return true
	}
	p := strings.ReplaceAll(m[2], "''", "'")
	if m[1] == "=" {
		return s == p
	}
	return likeMatch(s, p)
}

// jdbcCanned returns the plan of a pgjdbc metadata query, or nil.
func jdbcCanned(query string) *plan {
	var cols []Column
	var rows func(ex *execCtx) ([][]*string, error)
	switch {
	case strings.Contains(query, "AS SELF_REFERENCING_COL_NAME") && strings.Contains(query, "pg_catalog.pg_class c"):
		cols = []Column{col("table_cat", oidText), col("table_schem", oidName), col("table_name", oidName), col("table_type", oidText),
			col("remarks", oidText), col("type_cat", oidText), col("type_schem", oidText), col("type_name", oidText),
			col("self_referencing_col_name", oidText), col("ref_generation", oidText)}
		rows = func(ex *execCtx) ([][]*string, error) {
			kinds, err := jdbcRelkinds(query)
			if err != nil {
				return nil, err
			}
			var out [][]*string
			for _, t := range ex.src.Tables() {
				if kinds['r'] && matches(jdbcSchemaLike, query, t.Schema) && matches(jdbcTableLike, query, t.Rel) {
					sf := schemaFactsOf(&t)
					if sf == nil {
						return nil, unsupported(-1, "getTables of "+t.Name+": its comment was not read (copied by an older sidecar; a resync reads it)")
					}
					out = append(out, []*string{nil, strp(t.Schema), strp(t.Rel), strp("TABLE"), nonEmpty(sf.Comment), strp(""), strp(""), strp(""), strp(""), strp("")})
				}
			}
			// The views pg_class lists, when the query asks for their
			// relkind (pgjdbc's type clauses: c.relkind = 'v' for VIEW,
			// 'm' for MATERIALIZED VIEW); ORDER BY TABLE_TYPE, TABLE_SCHEM,
			// TABLE_NAME.
			tables := ex.src.Tables()
			_, ns := (&pgCatCtx{tables: tables}).namespaces()
			for _, v := range listedViews(tables, ns) {
				kind := map[byte]string{'v': "VIEW", 'm': "MATERIALIZED VIEW"}[v.Kind]
				if kind == "" || !kinds[v.Kind] ||
					!matches(jdbcSchemaLike, query, v.Schema) || !matches(jdbcTableLike, query, v.Name) {
					continue
				}
				out = append(out, []*string{nil, strp(v.Schema), strp(v.Name), strp(kind), nonEmpty(v.Comment), strp(""), strp(""), strp(""), strp(""), strp("")})
			}
			sort.SliceStable(out, func(i, j int) bool {
				for k := 3; k >= 1; k -= 2 { // TABLE_TYPE, then schema and name
					if *out[i][k] != *out[j][k] {
						return *out[i][k] < *out[j][k]
					}
				}
				return *out[i][2] < *out[j][2]
			})
			return out, nil
		}
	case strings.Contains(query, "row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum"):
		cols = []Column{col("nspname", oidName), col("relname", oidName), col("attname", oidName), col("atttypid", oidOID), col("attnotnull", oidBool),
			col("atttypmod", oidInt4), col("attlen", oidInt2), col("typtypmod", oidInt4), col("attnum", oidInt8), col("attidentity", oidCharType),
			col("attgenerated", oidCharType), col("adsrc", oidText), col("description", oidText), col("typbasetype", oidOID), col("typtype", oidCharType)}
		rows = func(ex *execCtx) ([][]*string, error) {
			var out [][]*string
			// A view's columns are listed by PostgreSQL too (relkind 'v'
			// and 'm' are in pgjdbc's list); their comments and types are
			// not all read: refused rather than left out.
			tables := ex.src.Tables()
			_, ns := (&pgCatCtx{tables: tables}).namespaces()
			for _, v := range listedViews(tables, ns) {
				if matches(jdbcSchemaLike, query, v.Schema) && matches(jdbcTableLike, query, v.Name) {
					return nil, unsupported(-1, "getColumns of the view "+v.Schema+"."+v.Name)
				}
			}
			for _, t := range tables {
				if !matches(jdbcSchemaLike, query, t.Schema) || !matches(jdbcTableLike, query, t.Rel) {
					continue
				}
				cols, ok := tableColumnsView(&t) // catalog_columns.go
				if !ok {
					return nil, notCarriedUnread("getColumns", &t)
				}
				for i, c := range cols {
					if !matches(jdbcColumnLike, query, c.Name) {
						continue
					}
					f, sf := c.facts, schemaFactsOf(&t)
					if f == nil || sf == nil {
						return nil, unsupported(-1, "getColumns of "+t.Name+": its NOT NULL and defaults were not read (copied by an older sidecar; a resync reads them)")
					}
					var def *string
					if f.HasDefault {
						def = strp(f.Default) // pgjdbc: pg_get_expr(def.adbin, def.adrelid)
					}
					out = append(out, []*string{strp(t.Schema), strp(t.Rel), strp(c.Name), u32(c.TypeOID), strp(boolText(f.NotNull)),
						strp(strconv.Itoa(int(c.TypeMod))), strp(strconv.Itoa(int(typeSize(c.TypeOID)))), strp("-1"), strp(strconv.Itoa(i + 1)),
						charOrNil(f.Identity), charOrNil(f.Generated), def, nonEmpty(c.comment(sf)), strp("0"), strp("b")})
				}
			}
			return out, nil
		}
	case strings.Contains(query, "information_schema._pg_expandarray(i.indkey)") && strings.Contains(query, "PK_NAME"):
		cols = []Column{col("table_cat", oidText), col("table_schem", oidName), col("table_name", oidName), col("column_name", oidName),
			col("key_seq", oidInt4), col("pk_name", oidName)}
		rows = func(ex *execCtx) ([][]*string, error) {
			var out [][]*string
			for _, t := range ex.src.Tables() {
				if !matches(jdbcSchemaLike, query, t.Schema) || !matches(jdbcTableLike, query, t.Rel) {
					continue
				}
				if t.Facts == nil || t.Facts.Columns == nil {
					return nil, unsupported(-1, "getPrimaryKeys of "+t.Name+": its primary key was not read (copied by an older sidecar; a resync reads it)")
				}
				if pk := t.Facts.PrimaryKey; pk != nil {
					for k, c := range pk.Columns {
						out = append(out, []*string{nil, strp(t.Schema), strp(t.Rel), strp(c), strp(strconv.Itoa(k + 1)), strp(pk.Name)})
					}
				}
			}
			return out, nil
		}
	default:
		return nil
	}
	p := &plan{kind: "select", tag: "SELECT"}
	for i, c := range cols {
		p.cols = append(p.cols, outCol{name: c.Name, typ: c.TypeOID, typmod: -1})
		p.targets = append(p.targets, &colExpr{idx: i, t: c.TypeOID})
	}
	p.from = []*fromItem{{virt: &virtual{cols: cols, rows: rows}}}
	return p
}

// jdbcRelkind matches the relkinds of pgjdbc's getTables type clauses
// ("c.relkind = 'v'", "c.relkind IN ('r','p')").
var jdbcRelkind = regexp.MustCompile(`c\.relkind (?:= '(.)'|IN \(([^)]*)\))`)

// jdbcRelkinds returns the relkinds pgjdbc's getTables query asks for:
// only those its type clauses name (" AND (false OR (…) …"), which must
// be kinds sidecar lists completely — tables, views, materialized views —
// else the call is refused, never answered without the indexes,
// sequences, composite types or foreign tables PostgreSQL would list
// (types null asks for every kind).
func jdbcRelkinds(query string) (map[byte]bool, error) {
	i := strings.Index(query, " AND (false ")
	if i < 0 {
		return nil, unsupported(-1, "getTables of every relation type (types null); pass the types, such as TABLE and VIEW")
	}
	kinds := map[byte]bool{}
	for _, m := range jdbcRelkind.FindAllStringSubmatch(query[i:], -1) {
		list := m[1]
		if list == "" {
			list = strings.NewReplacer("'", "", ",", "", " ", "").Replace(m[2])
		}
		for _, k := range []byte(list) {
			if !strings.ContainsRune("rpvm", rune(k)) {
				return nil, unsupported(-1, "getTables of relkind '"+string(k)+"' (sidecar lists tables and views)")
			}
			kinds[k] = true
		}
	}
	return kinds, nil
}

// charOrNil is a "char" value for this canned answer: NULL for none
// (the canned plan's "char" columns do not carry the empty value; pgjdbc
// reads NULL and ” alike).
func charOrNil(b byte) *string {
	if b == 0 {
		return nil
	}
	return strp(charText(b))
}

// nonEmpty is s, NULL when empty (a comment not set).
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return strp(s)
}
