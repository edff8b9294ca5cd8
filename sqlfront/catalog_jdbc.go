package sqlfront

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/wal"
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

// jdbcCanned returns the plan of a pgjdbc metadata query, or nil, its
// columns described as PostgreSQL describes them for the followed
// server of tables' version (catalog_canned_types.go: types and the
// catalog columns they are).
func jdbcCanned(query string, tables []Table) (*plan, error) {
	version := serverVersion(tables)
	var specs []string
	var rows func(ex *execCtx) ([][]*string, error)
	switch {
	case isJDBCFieldMeta(query): // catalog_jdbc_fieldmeta.go
		var err error
		if specs, rows, err = jdbcFieldMeta(query, version); specs == nil || err != nil {
			return nil, err
		}
	case strings.Contains(query, "AS SELF_REFERENCING_COL_NAME") && strings.Contains(query, "pg_catalog.pg_class c"):
		specs = []string{"table_cat", "table_schem:name@pg_namespace.nspname", "table_name:name@pg_class.relname", "table_type",
			"remarks@pg_description.description", "type_cat", "type_schem", "type_name", "self_referencing_col_name", "ref_generation"}
		rows = func(ex *execCtx) ([][]*string, error) {
			kinds, err := jdbcRelkinds(query)
			if err != nil {
				return nil, err
			}
			if err := jdbcPartitionedListed(ex, query, kinds['p'], "getTables"); err != nil {
				return nil, err
			}
			var out [][]*string
			for _, t := range ex.src.Tables() {
				kind := relKind(&t)[0] // 'p' for a partitioned table followed as one
				if kinds[kind] && matches(jdbcSchemaLike, query, t.Schema) && matches(jdbcTableLike, query, t.Rel) {
					sf := schemaFactsOf(&t)
					if sf == nil {
						return nil, unsupported(-1, "getTables of "+t.Name+": its comment was not read (copied by an older sidecar; a resync reads it)")
					}
					out = append(out, []*string{nil, strp(t.Schema), strp(t.Rel), strp(map[byte]string{'r': "TABLE", 'p': "PARTITIONED TABLE"}[kind]),
						nonEmpty(sf.Comment), strp(""), strp(""), strp(""), strp(""), strp("")})
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
		specs = []string{"nspname:name@pg_namespace.nspname", "relname:name@pg_class.relname", "attname:name@pg_attribute.attname",
			"atttypid:oid@pg_attribute.atttypid", "attnotnull:bool", "atttypmod:int4@pg_attribute.atttypmod", "attlen:int2@pg_attribute.attlen",
			"typtypmod:int4@pg_type.typtypmod", "attnum:int8", "attidentity:char", "attgenerated:char", "adsrc",
			"description@pg_description.description", "typbasetype:oid@pg_type.typbasetype", "typtype:char@pg_type.typtype"}
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
			if err := jdbcPartitionedListed(ex, query, true, "getColumns"); err != nil {
				return nil, err
			}
			if jdbcSystemRelations(query) {
				return nil, unsupported(-1, "getColumns of PostgreSQL's own relations (pg_catalog, information_schema): pass a schema pattern not matching them")
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
					ty, err := jdbcColumnType(tables, c.TypeOID) // catalog_jdbc_types.go
					if err != nil {
						return nil, err
					}
					out = append(out, []*string{strp(t.Schema), strp(t.Rel), strp(c.Name), u32(c.TypeOID), strp(boolText(f.NotNull || ty.notNull)),
						strp(strconv.Itoa(int(c.TypeMod))), strp(strconv.Itoa(int(ty.len))), strp(strconv.Itoa(int(ty.typmod))), strp(strconv.Itoa(i + 1)),
						charOrNil(f.Identity), charOrNil(f.Generated), def, nonEmpty(c.comment(sf)), u32(ty.base), strp(charText(ty.typtype))})
				}
			}
			return out, nil
		}
	case isJDBCTypeList(query, tables): // catalog_jdbc_typeinfo.go
		specs, rows = jdbcTypeListCanned(query)
	case isJDBCBestRow(query): // catalog_jdbc_bestrow.go
		specs = jdbcBestRowSpecs
		rows = func(ex *execCtx) ([][]*string, error) { return jdbcBestRow(ex, query) }
	case strings.Contains(query, "information_schema._pg_expandarray(i.indkey)") && strings.Contains(query, "PK_NAME"):
		specs = []string{"table_cat", "table_schem:name@pg_namespace.nspname", "table_name:name@pg_class.relname",
			"column_name:name@pg_attribute.attname", "key_seq:int4", "pk_name:name@pg_class.relname"}
		rows = func(ex *execCtx) ([][]*string, error) {
			var out [][]*string
			err := jdbcPrimaryKeys(ex, query, "getPrimaryKeys", func(t *Table, pk *wal.KeyConstraint) error {
				for k, c := range pk.Columns {
					out = append(out, []*string{nil, strp(t.Schema), strp(t.Rel), strp(c), strp(strconv.Itoa(k + 1)), strp(pk.Name)})
				}
				return nil
			})
			return out, err
		}
	default:
		return nil, nil
	}
	p := &plan{kind: "select", tag: "SELECT"}
	var cols []Column
	for i, spec := range specs {
		cc, err := cannedColumn(spec, version)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col(cc.name, cc.typ))
		p.cols = append(p.cols, outCol{name: cc.name, typ: cc.typ, typmod: -1, tableOID: cc.tableOID, attnum: cc.attnum})
		p.targets = append(p.targets, &colExpr{idx: i, t: cc.typ})
	}
	p.from = []*fromItem{{virt: &virtual{cols: cols, rows: rows}}}
	p.params = jdbcTypeListParams(query) // catalog_jdbc_typeinfo.go: the type lookups' $1
	return p, nil
}

// jdbcUserKinds are pgjdbc's getTables type clauses for the relation
// kinds sidecar lists completely, by relkind: TABLE, PARTITIONED TABLE
// and VIEW outside the system schemas, MATERIALIZED VIEW.
var jdbcUserKinds = map[string]byte{
	"c.relkind = 'r' AND n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'":       'r',
	"c.relkind = 'p' AND n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'":       'p',
	"c.relkind = 'v' AND n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema'": 'v',
	"c.relkind = 'm'": 'm',
}

// jdbcRelkinds returns the relkinds pgjdbc's getTables query asks for:
// only those its type clauses name (" AND (false OR ( … ) …"), which
// must be the clauses of kinds sidecar lists completely (jdbcUserKinds)
// — else the call is refused, never answered without the indexes,
// sequences, composite types, foreign tables or system and temporary
// relations PostgreSQL would list (types null asks for every kind).
// The clauses were read by their relkind alone before: SYSTEM TABLE
// and TEMPORARY TABLE listed the followed tables as TABLE.
func jdbcRelkinds(query string) (map[byte]bool, error) {
	i := strings.Index(query, " AND (false ")
	if i < 0 {
		return nil, unsupported(-1, "getTables of every relation type (types null); pass the types, such as TABLE and VIEW")
	}
	rest := query[i:]
	if j := strings.Index(rest, " ORDER BY "); j >= 0 {
		rest = rest[:j]
	}
	kinds := map[byte]bool{}
	for clause, k := range jdbcUserKinds {
		if strings.Contains(rest, "( "+clause+" )") {
			kinds[k] = true
			rest = strings.ReplaceAll(rest, "( "+clause+" )", "")
		}
	}
	if strings.Contains(rest, "relkind") {
		return nil, unsupported(-1, "getTables of this type (sidecar lists tables, partitioned tables, views and materialized views outside the system schemas)")
	}
	return kinds, nil
}

// jdbcSystemRelations says whether getColumns' patterns may match a
// relation of pg_catalog or information_schema (pgcatalog_relnames.go:
// PostgreSQL's own tables and views, which pgjdbc's relkind list takes
// in and sidecar's answer does not hold).
func jdbcSystemRelations(query string) bool {
	if !matches(jdbcSchemaLike, query, "pg_catalog") && !matches(jdbcSchemaLike, query, "information_schema") {
		return false
	}
	for _, names := range [][]string{pgCatalogRelations14, infoSchemaRelations} {
		for _, n := range names {
			if matches(jdbcTableLike, query, n) {
				return true
			}
		}
	}
	for n := range pgCatalogRelationsSince {
		if matches(jdbcTableLike, query, n) {
			return true
		}
	}
	return false
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

// jdbcPartitionedListed refuses a getTables asking for partitioned
// tables (asked) or a getColumns whose patterns match a partitioned
// table above the followed partitions (pgcatalog_partitioned.go):
// PostgreSQL lists it (relkind 'p'), but its comment and its columns'
// NOT NULL, defaults and comments are not read — the call answered
// without it before. Also when a partition's ancestors were not read.
func jdbcPartitionedListed(ex *execCtx, query string, asked bool, call string) error {
	if !asked {
		return nil
	}
	parts, read := partitionedClasses(ex.src.Tables())
	if !read {
		return unsupported(-1, call+" of partitioned tables: a followed partition's ancestors were not read (copied by an older sidecar; a resync reads them)")
	}
	for _, a := range parts {
		if matches(jdbcSchemaLike, query, a.Schema) && matches(jdbcTableLike, query, a.Name) {
			return unsupported(-1, call+" of the partitioned table "+a.Schema+"."+a.Name+" (its comment and columns' facts are not read)")
		}
	}
	return nil
}
