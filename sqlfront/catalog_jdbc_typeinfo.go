package sqlfront

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/wal"
)

// pgjdbc's getTypeInfo and getUDTs, and the driver's type cache they
// fill first, read pg_type whole: every built-in type (which differ by
// major), every table's row type, the enums, domains and ranges of the
// database. They are answered from the pg_type rows the catalog poll
// reads (wal.TypeListFacts, section 'z'), in the server's scan order,
// and refused when those were not read.

// jdbcTypeInfoQuery is getTypeInfo's query (pgjdbc 42.x, without
// hideUnprivilegedObjects): no ORDER BY, so its rows come in pg_type's
// heap order (a hash join probing pg_namespace with pg_type's sequential
// scan); pgjdbc sorts them by JDBC type with a stable sort, so that
// order shows within each JDBC type.
const jdbcTypeInfoQuery = "SELECT t.typname,t.oid FROM pg_catalog.pg_type t" +
	" JOIN pg_catalog.pg_namespace n ON (t.typnamespace = n.oid) " +
	" WHERE n.nspname  != 'pg_toast'" +
	" AND " +
	" (t.typrelid = 0 OR (SELECT c.relkind = 'c' FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid))"

// jdbcTypeCacheFrom is the FROM of the type cache's lookups
// (TypeInfoCache): each type's position on current_schemas(false), sp.r.
const jdbcTypeCacheFrom = "  FROM pg_catalog.pg_type " +
	"  LEFT JOIN (select ns.oid as nspoid, ns.nspname, r.r " +
	"          from pg_namespace as ns " +
	"          join ( select s.r, (current_schemas(false))[s.r] as nspname " +
	"                   from generate_series(1, array_upper(current_schemas(false), 1)) as s(r) ) as r " +
	"         using ( nspname ) " +
	"       ) as sp " +
	"    ON sp.nspoid = typnamespace "

// jdbcTypeCacheAll is cacheSQLTypes' query: every pg_type row, whether
// it is an array (typinput array_in), its typtype, name and OID, by
// search path position then OID descending (the first row of a name
// gives the name's JDBC type).
const jdbcTypeCacheAll = "SELECT typinput='pg_catalog.array_in'::regproc as is_array, typtype, typname, pg_type.oid " +
	jdbcTypeCacheFrom + " ORDER BY sp.r, pg_type.oid DESC;"

// jdbcTypeCacheByOID is getSQLType(oid)'s query: the row of one OID
// (sidecar's engine answers it for the types it serves; a type it does
// not, such as tid for getVersionColumns, is answered from the rows
// read).
const jdbcTypeCacheByOID = "SELECT typinput='pg_catalog.array_in'::regproc as is_array, typtype, typname, pg_type.oid " +
	jdbcTypeCacheFrom + " WHERE pg_type.oid = $1  ORDER BY sp.r, pg_type.oid DESC;"

// jdbcTypeCacheByName is getPGType(name)'s query: the OID of the type
// of that name first on the search path (the greatest OID when none of
// them is on it).
const jdbcTypeCacheByName = "SELECT pg_type.oid, typname " + jdbcTypeCacheFrom +
	" WHERE typname = $1  ORDER BY sp.r, pg_type.oid DESC LIMIT 1;"

// The texts above with their runs of spaces as one.
var (
	jdbcTypeInfoText        = jdbcNormText(jdbcTypeInfoQuery)
	jdbcTypeCacheAllText    = jdbcNormText(jdbcTypeCacheAll)
	jdbcTypeCacheByNameText = jdbcNormText(jdbcTypeCacheByName)
	jdbcTypeCacheByOIDText  = jdbcNormText(jdbcTypeCacheByOID)
)

// jdbcNormText is query with its runs of spaces as one and without its
// final semicolon (pgjdbc's parser drops it; its texts differ in spaces
// between versions).
func jdbcNormText(query string) string {
	return strings.TrimSuffix(strings.Join(strings.Fields(query), " "), ";")
}

var ()

// jdbcUDTs matches getUDTs' query: the JDBC type of every base type
// pgjdbc knows (its CASE, read from the text), the typtype clause (types
// null: composites and domains; else STRUCT and DISTINCT as asked), the
// name and schema patterns.
var jdbcUDTs = regexp.MustCompile(`^select null as type_cat, n\.nspname as type_schem, t\.typname as type_name,  null as class_name, ` +
	`CASE WHEN t\.typtype='c' then 2002 else 2001 end as data_type, pg_catalog\.obj_description\(t\.oid, 'pg_type'\)  as remarks, ` +
	`CASE WHEN t\.typtype = 'd' then  \(select CASE((?: when base_type\.oid = \d+ then -?\d+)*) else 1111 end from pg_type base_type ` +
	`where base_type\.oid=t\.typbasetype\) else null end as base_type from pg_catalog\.pg_type t, pg_catalog\.pg_namespace n ` +
	`where t\.typnamespace = n\.oid and n\.nspname != 'pg_catalog' and n\.nspname != 'pg_toast'` +
	`( and t\.typtype IN \('c','d'\) | and \(false (?: or t\.typtype = '[cd]')* \) )` +
	`(?: and t\.typname like '((?:[^']|'')*)')?(?: and n\.nspname like '((?:[^']|'')*)')? order by data_type, type_schem, type_name$`)

// jdbcUDTWhen is one "when base_type.oid = N then M" of getUDTs' CASE.
var jdbcUDTWhen = regexp.MustCompile(`when base_type\.oid = (\d+) then (-?\d+)`)

// jdbcTypeListCanned returns the specs and rows of one of the pg_type
// queries above, or nil specs.
func jdbcTypeListCanned(query string) ([]string, func(ex *execCtx) ([][]*string, error)) {
	switch jdbcNormText(query) {
	case jdbcTypeInfoText:
		return []string{"typname:name@pg_type.typname", "oid:oid@pg_type.oid"}, jdbcTypeInfoRows
	case jdbcTypeCacheAllText:
		return []string{"is_array:bool", "typtype:char@pg_type.typtype", "typname:name@pg_type.typname", "oid:oid@pg_type.oid"}, jdbcTypeCacheRows
	case jdbcTypeCacheByOIDText:
		return []string{"is_array:bool", "typtype:char@pg_type.typtype", "typname:name@pg_type.typname", "oid:oid@pg_type.oid"}, jdbcTypeByOIDRows
	case jdbcTypeCacheByNameText:
		return []string{"oid:oid@pg_type.oid", "typname:name@pg_type.typname"}, jdbcTypeByNameRows
	}
	if m := jdbcUDTs.FindStringSubmatchIndex(query); m != nil {
		q := jdbcUDTQuery{cases: query[m[2]:m[3]], kinds: query[m[4]:m[5]]}
		for i, p := range []**string{&q.name, &q.schema} {
			if a := m[6+2*i]; a >= 0 {
				*p = strp(strings.ReplaceAll(query[a:m[7+2*i]], "''", "'"))
			}
		}
		return []string{"type_cat", "type_schem:name@pg_namespace.nspname", "type_name:name@pg_type.typname", "class_name",
				"data_type:int4", "remarks", "base_type:int4"},
			func(ex *execCtx) ([][]*string, error) { return jdbcUDTRows(ex, q) }
	}
	return nil, nil
}

// jdbcTypeRows are the pg_type rows read and the schemas' names by OID,
// or the refusal of call when they were not read. Temporary schemas'
// rows are not read: with some there (TempTypes), a call listing them
// is refused — the lookups of one type (lookup) are answered when the
// type found cannot be hidden by one.
func jdbcTypeRows(ex *execCtx, call string) ([]wal.TypeListEntry, map[uint32]string, error) {
	typs, ns, temp, err := jdbcTypeRowsTemp(ex, call)
	if err == nil && temp {
		err = jdbcTempTypesRefusal(call)
	}
	return typs, ns, err
}

// jdbcTempTypesRefusal refuses call while temporary schemas hold types.
func jdbcTempTypesRefusal(call string) error {
	return unsupported(-1, call+" while other sessions' temporary tables exist (their row types are not read)")
}

// jdbcTypeRowsTemp is jdbcTypeRows, saying whether temporary schemas
// held types instead of refusing.
func jdbcTypeRowsTemp(ex *execCtx, call string) ([]wal.TypeListEntry, map[uint32]string, bool, error) {
	l, ok := readTypeList(ex.src.Tables())
	if !ok {
		return nil, nil, false, unsupported(-1, call+": the database's pg_type rows were not read (more than "+strconv.Itoa(wal.MaxListedTypes)+
			" types, or the mirror was copied by an older sidecar: the next catalog poll reads them)")
	}
	for _, t := range l.types {
		if _, ok := l.schemas[t.Namespace]; !ok {
			return nil, nil, false, unsupported(-1, call+": a type's schema was not read (created since the last catalog poll)")
		}
	}
	return l.types, l.schemas, l.temp, nil
}

// jdbcTypeInfoRows answers jdbcTypeInfoQuery: the rows outside pg_toast
// that are not a relation's row type other than a composite type's, in
// the order read.
func jdbcTypeInfoRows(ex *execCtx) ([][]*string, error) {
	typs, ns, err := jdbcTypeRows(ex, "getTypeInfo")
	if err != nil {
		return nil, err
	}
	var out [][]*string
	for _, t := range typs {
		if ns[t.Namespace] != "pg_toast" && (t.RelKind == 0 || t.RelKind == 'c') {
			out = append(out, []*string{strp(t.Name), u32(t.OID)})
		}
	}
	return out, nil
}

// jdbcSearchPositions is sp.r of the type cache's queries: each schema's
// 1-based position on current_schemas(false) (the session's search_path
// entries that exist, "$user" as the session user, pg_temp left out: a
// sidecar session has no temporary schema; each schema once).
func jdbcSearchPositions(ex *execCtx, ns map[uint32]string) map[uint32]int {
	byName := make(map[string]uint32, len(ns))
	for oid, n := range ns {
		byName[n] = oid
	}
	pos := map[uint32]int{}
	for _, p := range searchPathOf(ex.sess) { // pgcatalog_plan.go
		if p == "$user" {
			p = ex.sess.user
		}
		oid, ok := byName[p]
		if !ok || strings.HasPrefix(p, "pg_temp") {
			continue
		}
		if _, dup := pos[oid]; !dup {
			pos[oid] = len(pos) + 1
		}
	}
	return pos
}

// jdbcTypeCacheOrder sorts typs as ORDER BY sp.r, pg_type.oid DESC:
// schemas on the path by position, the others (sp.r NULL) last.
func jdbcTypeCacheOrder(ex *execCtx, typs []wal.TypeListEntry, ns map[uint32]string) []wal.TypeListEntry {
	pos := jdbcSearchPositions(ex, ns)
	rank := func(t wal.TypeListEntry) int {
		if r, ok := pos[t.Namespace]; ok {
			return r
		}
		return len(pos) + 1
	}
	sorted := slices.Clone(typs)
	slices.SortFunc(sorted, func(a, b wal.TypeListEntry) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return cmp.Compare(b.OID, a.OID)
	})
	return sorted
}

// jdbcTypeCacheRows answers jdbcTypeCacheAll.
func jdbcTypeCacheRows(ex *execCtx) ([][]*string, error) {
	typs, ns, err := jdbcTypeRows(ex, "pgjdbc's type cache")
	if err != nil {
		return nil, err
	}
	var out [][]*string
	for _, t := range jdbcTypeCacheOrder(ex, typs, ns) {
		out = append(out, []*string{strp(boolText(t.IsArray)), strp(charText(t.Type)), strp(t.Name), u32(t.OID)})
	}
	return out, nil
}

// jdbcTypeByOIDRows answers jdbcTypeCacheByOID for the bound OID.
func jdbcTypeByOIDRows(ex *execCtx) ([][]*string, error) {
	typs, _, temp, err := jdbcTypeRowsTemp(ex, "pgjdbc's type lookup")
	if err != nil {
		return nil, err
	}
	if len(ex.params) != 1 {
		return nil, unsupported(-1, "pgjdbc's type lookup without its parameter")
	}
	var oid int64
	switch v := ex.params[0].(type) {
	case nil:
		return nil, nil // oid = NULL: no row
	case int64:
		oid = v
	case int32:
		oid = int64(v)
	case int16:
		oid = int64(v)
	case uint32:
		oid = int64(v)
	default:
		return nil, unsupported(-1, "pgjdbc's type lookup with a parameter that is not an integer")
	}
	for _, t := range typs {
		if int64(t.OID) == oid {
			return [][]*string{{strp(boolText(t.IsArray)), strp(charText(t.Type)), strp(t.Name), u32(t.OID)}}, nil
		}
	}
	if temp && oid >= firstNormalOID {
		return nil, jdbcTempTypesRefusal("pgjdbc's type lookup") // maybe a temporary table's row type
	}
	return nil, nil
}

// jdbcTypeByNameRows answers jdbcTypeCacheByName for the bound name.
func jdbcTypeByNameRows(ex *execCtx) ([][]*string, error) {
	typs, ns, temp, err := jdbcTypeRowsTemp(ex, "pgjdbc's type lookup")
	if err != nil {
		return nil, err
	}
	if len(ex.params) != 1 {
		return nil, unsupported(-1, "pgjdbc's type lookup without its parameter")
	}
	if ex.params[0] == nil {
		return nil, nil // typname = NULL: no row
	}
	name, ok := ex.params[0].(string)
	if !ok {
		return nil, unsupported(-1, "pgjdbc's type lookup with a parameter that is not text")
	}
	pos := jdbcSearchPositions(ex, ns)
	for _, t := range jdbcTypeCacheOrder(ex, typs, ns) {
		if t.Name != name {
			continue
		}
		if _, onPath := pos[t.Namespace]; !onPath && temp {
			break // a temporary table's row type of that name may come first
		}
		return [][]*string{{u32(t.OID), strp(t.Name)}}, nil
	}
	if temp {
		return nil, jdbcTempTypesRefusal("pgjdbc's type lookup")
	}
	return nil, nil
}

// jdbcUDTQuery is what getUDTs' query asks: its CASE's WHENs, its
// typtype clause, its name and schema LIKE patterns (nil: none).
type jdbcUDTQuery struct {
	cases, kinds string
	name, schema *string
}

// jdbcUDTRows answers getUDTs' query q: the composite types (STRUCT,
// 2002: every table's and view's row type too) and domains (DISTINCT,
// 2001: their base type's JDBC type by the query's CASE, else OTHER)
// outside pg_catalog and pg_toast, by data_type, schema and name
// (name's C order).
func jdbcUDTRows(ex *execCtx, q jdbcUDTQuery) ([][]*string, error) {
	typs, ns, err := jdbcTypeRows(ex, "getUDTs")
	if err != nil {
		return nil, err
	}
	base := map[uint32]string{}
	for _, w := range jdbcUDTWhen.FindAllStringSubmatch(q.cases, -1) {
		oid, err := strconv.ParseUint(w[1], 10, 32)
		if err != nil {
			return nil, unsupported(-1, "getUDTs with a base type OID out of range")
		}
		if _, dup := base[uint32(oid)]; !dup { // CASE takes the first WHEN
			base[uint32(oid)] = w[2]
		}
	}
	for _, p := range []*string{q.name, q.schema} {
		if p != nil && strings.HasSuffix(strings.ReplaceAll(*p, `\\`, ""), `\`) {
			return nil, unsupported(-1, "getUDTs with a pattern ending in its escape character") // PostgreSQL: 22025
		}
	}
	like := func(s string, p *string) bool { return p == nil || likeMatch(s, *p) }
	kinds := map[byte]bool{'c': strings.Contains(q.kinds, "'c'"), 'd': strings.Contains(q.kinds, "'d'")}
	var out [][]*string
	for _, t := range typs {
		schema := ns[t.Namespace]
		if !kinds[t.Type] || schema == "pg_catalog" || schema == "pg_toast" {
			continue
		}
		if !like(t.Name, q.name) || !like(schema, q.schema) {
			continue
		}
		dataType, baseType := "2001", (*string)(nil)
		if t.Type == 'c' {
			dataType = "2002"
		} else {
			b, known := base[t.BaseType]
			if !known {
				b = "1111"
			}
			baseType = strp(b)
		}
		out = append(out, []*string{nil, strp(schema), strp(t.Name), nil, strp(dataType), nonEmpty(t.Comment), baseType})
	}
	slices.SortStableFunc(out, func(a, b []*string) int {
		x, _ := strconv.Atoi(*a[4])
		y, _ := strconv.Atoi(*b[4])
		return cmp.Or(cmp.Compare(x, y), strings.Compare(*a[1], *b[1]), strings.Compare(*a[2], *b[2]))
	})
	return out, nil
}

// isJDBCTypeList says whether query is one jdbcTypeListCanned answers
// for tables: the lookups of one OID or name only when the pg_type rows
// were read (else sidecar's engine answers them for the types it
// serves, as before they were).
func isJDBCTypeList(query string, tables []Table) bool {
	if !strings.Contains(query, "pg_type") {
		return false
	}
	specs, _ := jdbcTypeListCanned(query)
	if specs == nil {
		return false
	}
	if q := jdbcNormText(query); q == jdbcTypeCacheByOIDText || q == jdbcTypeCacheByNameText {
		l := carriedSection(tables, func(s *wal.SchemaFacts) *wal.TypeListFacts { return s.TypeList }, (*wal.TypeListFacts).Equal)
		return l != nil && l.Types != nil
	}
	return true
}

// jdbcTypeListParams are the parameter types of the type cache's
// lookups ($1: the name, as typname = $1 infers it, or the OID, which
// pgjdbc binds as int8), none for the other queries: the canned plan
// declared none and pgjdbc's Bind of one failed 08P01.
func jdbcTypeListParams(query string) []uint32 {
	if !strings.Contains(query, "$1") {
		return nil
	}
	switch jdbcNormText(query) {
	case jdbcTypeCacheByNameText:
		return []uint32{oidName}
	case jdbcTypeCacheByOIDText:
		return []uint32{oidInt8}
	}
	return nil
}
