package sqlfront

import (
	"fmt"
	"strconv"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// The database's types beyond its domains and enums (wal.TypeDetailFacts,
// read by the copy and the catalog poll with the schemas, carried by one
// table; replication/relmeta_typedetail.go): pg_type lists its composite
// types (CREATE TYPE … AS), ranges, multiranges, base types (an
// extension's) and shell types with their arrays beside the domains and
// enums, with typacl; pg_class the composite types' relations (relkind
// 'c'); pg_constraint the domains' constraints; pg_description the
// types' comments; pg_collation the collations outside pg_catalog and
// those the types name. psql's \dT, \dT+, \dT pattern, \dD, \dD+ and
// \dO print PostgreSQL's output from them. Like the other polled facts
// they are up to one poll (~2 s) stale after CREATE/ALTER/DROP TYPE,
// DOMAIN or COLLATION, GRANT … ON TYPE and COMMENT ON TYPE; when they
// were not read (a record written before, more than wal.MaxTypeDetails
// rows) the statements needing them are refused.

// typeDetail is the database's types' details as read (nil: not read,
// or two tables' records disagree, between two polls' records).
func typeDetail(tables []Table) *wal.TypeDetailFacts {
	return carriedSection(tables, func(s *wal.SchemaFacts) *wal.TypeDetailFacts { return s.TypeDetail }, (*wal.TypeDetailFacts).Equal) // pgcatalog_extensions.go
}

// typeDetailUnread is the refusal of what needs the types' details when
// they were not read.
func typeDetailUnread(what string) *Error {
	return unsupported(-1, what+": the database's types' details were not read from the server "+
		"(more than "+strconv.Itoa(wal.MaxTypeDetails)+" rows, or the mirror was copied by an older sidecar: the next catalog poll reads them)")
}

// otherTypes are the types of the details pg_type lists beside the
// domains and enums (none when either was not read).
func otherTypes(tables []Table) []wal.OtherType {
	if userTypes(tables) == nil {
		return nil
	}
	if d := typeDetail(tables); d != nil {
		return d.Types
	}
	return nil
}

// listedTypeRows are pg_type's rows of listedTypes: typacl as read (the
// details), and the other types' typrelid, typisdefined and, for those
// not arrays, their unknown I/O functions and typispreferred.
func listedTypeRows(tables []Table) [][]*string {
	d := typeDetail(tables)
	others := map[uint32]wal.OtherType{}
	for _, t := range otherTypes(tables) {
		others[t.OID] = t
	}
	acls := map[uint32][]string{}
	if d != nil {
		for _, a := range d.ACLs {
			acls[a.OID] = a.ACL
		}
	}
	var out [][]*string
	for _, t := range listedTypes(tables) {
		row := listedTypeRow(t) // pgcatalog_usertypes.go
		if d != nil {
			row[len(row)-1] = relOptions(acls[t.OID]) // typacl: text[] of the aclitems' text, NULL when none
		}
		if o, ok := others[t.OID]; ok {
			row[9], row[11] = bv(o.Defined), u32(o.Relid)
			if el, ok := others[o.Elem]; !ok || el.Array != o.OID {
				row[8] = pgUnknown // typispreferred: not read
				copy(row[15:22], typeIORow(0))
			}
		}
		out = append(out, row)
	}
	return out
}

// compositeClassRows are pg_class's rows of the composite types'
// relations (relkind 'c'): psql's \dT tells composite types from the
// tables' row types by them.
func compositeClassRows(cx *pgCatCtx) [][]*string {
	var out [][]*string
	u := pgUnknown
	for _, t := range otherTypes(cx.tables) {
		if t.Type != 'c' || t.Relid == 0 {
			continue
		}
		out = append(out, []*string{u32(t.Relid), sv(t.Name), u32(t.Namespace), u32(t.OID), sv("0"), u32(t.Owner), sv("0"), sv("0"), sv("0"), sv("0"), u, sv("0"), sv("0"),
			sv("f"), sv("f"), sv("p"), sv("c"), u, sv("0"), sv("f"), sv("f"), sv("f"), sv("f"), sv("f"), sv("t"), sv("n"), sv("f"), sv("0"), u, u, u, nil, nil})
	}
	return out
}

// typeDetailNamespaceFacts adds the schemas of the other types and the
// collations to read.
func typeDetailNamespaceFacts(tables []Table, read map[string]wal.NamespaceFacts) {
	if d := typeDetail(tables); d != nil {
		addNamespaceFacts(d.Namespaces, read) // pgcatalog_extensions.go
	}
}

// typeDetailNamespaces adds the schemas of the other types and the
// collations to pg_namespace's names and OIDs.
func typeDetailNamespaces(tables []Table, names []string, oids map[string]uint32) []string {
	if d := typeDetail(tables); d != nil {
		return addNamespaces(d.Namespaces, names, oids) // pgcatalog_extensions.go
	}
	return names
}

// domainConstraintRows are pg_constraint's rows of the domains'
// constraints (in the base layout, pgcatalog_schema.go): conbin is
// unknown (a node tree), NULL for 17's NOT NULL constraints.
func domainConstraintRows(cx *pgCatCtx) [][]*string {
	d := typeDetail(cx.tables)
	if d == nil {
		return nil
	}
	var out [][]*string
	for _, c := range d.Constraints {
		bin := pgUnknown
		if c.Type != 'c' {
			bin = nil
		}
		out = append(out, []*string{u32(c.OID), sv(c.Name), u32(c.Namespace), sv(charText(c.Type)), bv(c.Deferrable), bv(c.Deferred), bv(c.Validated),
			sv("0"), u32(c.TypeOID), sv("0"), sv("0"), sv("0"), sv(" "), sv(" "), sv(" "), bv(c.Local), iv(int64(c.InhCount)), bv(c.NoInherit),
			nil, nil, nil, nil, nil, nil, nil, bin})
	}
	return out
}

// domainConstraintDef is pg_get_constraintdef of a domain's constraint
// (ok false for another OID).
func domainConstraintDef(tables []Table, oid uint32, pretty bool) (string, bool) {
	d := typeDetail(tables)
	if d == nil {
		return "", false
	}
	for _, c := range d.Constraints {
		if c.OID == oid {
			if pretty {
				return c.DefPretty, true
			}
			return c.Def, true
		}
	}
	return "", false
}

// typeDescriptions are pg_description's rows of the types' comments
// (classoid pg_type).
func typeDescriptions(tables []Table) [][]*string {
	d := typeDetail(tables)
	if d == nil {
		return nil
	}
	var out [][]*string
	for _, c := range d.Comments {
		out = append(out, []*string{u32(c.OID), sv("1247"), sv("0"), sv(c.Comment)})
	}
	for _, c := range d.CollationComments {
		out = append(out, []*string{u32(c.OID), sv("3456"), sv("0"), sv(c.Comment)})
	}
	return out
}

// collationComment is obj_description(oid, 'pg_collation') of a
// collation read (NULL when it has none); another's is refused.
func collationComment(tables []Table, oid uint32) (types.Value, error) {
	d := typeDetail(tables)
	if d == nil {
		return nil, typeDetailUnread("obj_description of a collation")
	}
	for _, c := range d.CollationComments {
		if c.OID == oid {
			return c.Comment, nil
		}
	}
	for _, c := range d.Collations {
		if c.OID == oid {
			return nil, nil
		}
	}
	return nil, unsupported(-1, fmt.Sprintf("obj_description of the collation %d (sidecar read the collations outside pg_catalog and those the types name)", oid))
}

// typeComment is obj_description(oid, 'pg_type'): the comment of a type
// pg_type lists outside pg_catalog (NULL when it has none); the built-in
// types' comments are not read (refused).
func typeComment(tables []Table, oid uint32) (types.Value, error) {
	d := typeDetail(tables)
	if d == nil {
		return nil, typeDetailUnread("obj_description of a type")
	}
	listed := false
	for _, t := range listedTypes(tables) {
		listed = listed || t.OID == oid
	}
	if !listed {
		return nil, unsupported(-1, fmt.Sprintf("obj_description of the type %d (sidecar keeps the comments of the types outside pg_catalog)", oid))
	}
	for _, c := range d.Comments {
		if c.OID == oid {
			return c.Comment, nil
		}
	}
	return nil, nil
}

// userTypeScan says whether a proven pg_type scan's rows are all types
// outside pg_catalog (whose comments, ACLs and constraints were read):
// restricted to domains or enums, or to schemas other than pg_catalog.
func (r *reach) userTypeScan(s *lplan.Scan) bool {
	f := r.typeFacts()
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || op != "=" && op != "in" {
			continue
		}
		switch col {
		case "typtype":
			if f.domainsOrEnums(other) { // pgcatalog_types.go
				return true
			}
		case "typnamespace":
			if r.userNamespaceOIDs(other, 0) || r.notSystemSchema(other) {
				return true
			}
		}
	}
	return false
}

// proveUserSchemaTypes says whether a pg_type scan's rows are the types
// of schemas other than pg_catalog and information_schema (or of a name
// pattern no type of theirs matches) other than the tables' and views'
// row types, when the details were read: pg_type then lists them all.
// psql's \dT: `n.nspname <> 'pg_catalog' AND n.nspname <>
// 'information_schema'` (or a pattern) and `(t.typrelid = 0 OR (SELECT
// c.relkind = 'c' FROM pg_class c WHERE c.oid = t.typrelid))`.
func (r *reach) proveUserSchemaTypes(s *lplan.Scan) bool {
	f := r.typeFacts()
	if !f.userTypes || !f.others || !f.elemsServed || !r.rowTypesExcluded(s) {
		return false
	}
	for _, cond := range r.restr[s] {
		if col, other, op, ok := r.comparison(cond, s); ok && col == "typnamespace" && (op == "=" || op == "in") &&
			(r.userNamespaceOIDs(other, 0) || r.notSystemSchema(other)) {
			return true
		}
		if r.excludesSystemTypeNames(cond, s) {
			return true
		}
	}
	return false
}

// rowTypesExcluded says whether conditions on a pg_type scan's rows are
// false or NULL for every row type of a relation other than a composite
// type and for its array type (pg_type lists neither): typtype
// restricted to constants other than 'c' and 'b', or one excluding the
// row types (typrelid = 0, typtype other than 'c', psql's `typrelid = 0
// OR (SELECT c.relkind = 'c' FROM pg_class c WHERE c.oid = typrelid)`)
// and one excluding the array types (psql's `NOT EXISTS (SELECT 1 FROM
// pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid)`, typtype
// other than 'b').
func (r *reach) rowTypesExcluded(s *lplan.Scan) bool {
	return r.typtypeExcludes(s, "c") && r.typtypeExcludes(s, "b") || r.relationRowTypesExcluded(s) && (r.arrayTypesExcluded(s) || r.typtypeExcludes(s, "b"))
}

// typtypeExcludes says whether a condition restricts a pg_type scan's
// typtype to constants other than kind.
func (r *reach) typtypeExcludes(s *lplan.Scan, kind string) bool {
	for _, cond := range r.restr[s] {
		if col, other, op, ok := r.comparison(cond, s); ok && col == "typtype" && (op == "=" || op == "in") {
			all := len(other) > 0
			for _, o := range other {
				k, ok := constText([]lplan.Scalar{o})
				all = all && ok && k != kind
			}
			if all {
				return true
			}
		}
	}
	return false
}

// arrayTypesExcluded says whether the scan s (t) is filtered by psql's
// NOT EXISTS (SELECT 1 FROM pg_type el WHERE el.oid = t.typelem AND
// el.typarray = t.oid): an anti join (sql/opt's decorrelation) or a NOT
// EXISTS condition whose pg_type scan is so restricted.
func (r *reach) arrayTypesExcluded(s *lplan.Scan) bool {
	for _, cond := range r.restr[s] {
		if b, ok := cond.(*lplan.BoolOp); ok && b.Op == "NOT" && len(b.Args) == 1 {
			if sub, ok := strip(b.Args[0]).(*lplan.Subquery); ok && sub.Kind == lplan.SubExists && r.elementLookup(sub.Plan, s) {
				return true
			}
		}
	}
	return r.root != nil && r.antiElementJoin(r.root, s)
}

// antiElementJoin says whether rel holds an anti join with s on its left
// and an elementLookup of s on its right.
func (r *reach) antiElementJoin(rel lplan.Rel, s *lplan.Scan) bool {
	if j, ok := rel.(*lplan.Join); ok && j.Kind == lplan.AntiJoin && planHas(j.Left, s) && r.elementLookup(j.Right, s) {
		return true
	}
	for _, in := range rel.Inputs() {
		if r.antiElementJoin(in, s) {
			return true
		}
	}
	return false
}

// elementLookup says whether rel holds a pg_type scan (el) whose rows
// are restricted to el.oid = s.typelem and el.typarray = s.oid.
func (r *reach) elementLookup(rel lplan.Rel, s *lplan.Scan) bool {
	for _, el := range r.scans {
		if r.rels[el].name != "pg_type" || el == s || !planHas(rel, el) {
			continue
		}
		elem, array := false, false
		for _, c := range r.restr[el] {
			col, other, op, ok := r.comparison(c, el)
			if !ok || op != "=" || len(other) != 1 {
				continue
			}
			ref, ok := strip(other[0]).(*lplan.ColRef)
			if !ok {
				continue
			}
			o, ok := r.cols[ref.ID]
			if !ok || o.scan != s {
				continue
			}
			elem = elem || col == "oid" && o.name == "typelem"
			array = array || col == "typarray" && o.name == "oid"
		}
		if elem && array {
			return true
		}
	}
	return false
}

// planHas says whether scan s is one of rel's (not its subqueries').
func planHas(rel lplan.Rel, s *lplan.Scan) bool {
	if rel == lplan.Rel(s) {
		return true
	}
	for _, in := range rel.Inputs() {
		if planHas(in, s) {
			return true
		}
	}
	return false
}

// relationRowTypesExcluded says whether a condition is false or NULL
// for every row type of a relation other than a composite type.
func (r *reach) relationRowTypesExcluded(s *lplan.Scan) bool {
	zeroRelid := func(cond lplan.Scalar) bool {
		col, other, op, ok := r.comparison(cond, s)
		k, isConst := constText(other)
		return ok && col == "typrelid" && op == "=" && isConst && k == "0"
	}
	if r.typtypeExcludes(s, "c") {
		return true
	}
	for _, cond := range r.restr[s] {
		if zeroRelid(cond) {
			return true
		}
		b, ok := cond.(*lplan.BoolOp)
		if !ok || b.Op != "OR" || len(b.Args) != 2 {
			continue
		}
		for i, a := range b.Args {
			if zeroRelid(a) && r.compositeKindOf(b.Args[1-i], s) {
				return true
			}
		}
	}
	return false
}

// compositeKindOf says whether e is a scalar subquery whose value is
// `relkind = 'c'` of the pg_class row whose oid is s's typrelid.
func (r *reach) compositeKindOf(e lplan.Scalar, s *lplan.Scan) bool {
	sub, ok := strip(e).(*lplan.Subquery)
	if !ok || sub.Kind != lplan.SubScalar || len(sub.Plan.Columns()) != 1 {
		return false
	}
	defs := r.defs[sub.Plan.Columns()[0]]
	if len(defs) != 1 {
		return false
	}
	op, ok := defs[0].(*lplan.Op)
	if !ok || op.Op != "=" || len(op.Args) != 2 {
		return false
	}
	ref, ok := strip(op.Args[0]).(*lplan.ColRef)
	k, isConst := constText(op.Args[1:])
	if !ok || !isConst || k != "c" {
		return false
	}
	src, ok := r.cols[ref.ID]
	if !ok || src.rel.name != "pg_class" || src.name != "relkind" {
		return false
	}
	for _, cond := range r.restr[src.scan] {
		col, other, op, ok := r.comparison(cond, src.scan)
		if !ok || col != "oid" || op != "=" || len(other) != 1 {
			continue
		}
		if c, ok := strip(other[0]).(*lplan.ColRef); ok {
			if o, ok := r.cols[c.ID]; ok && o.scan == s && o.name == "typrelid" {
				return true
			}
		}
	}
	return false
}

// builtinFormatNames are format_type's names of PostgreSQL's built-in
// types that are not their typname (SQL's spellings), and the prefix of
// information_schema's types when that schema is not on the path.
var builtinFormatNames = []string{"bigint", "bit varying", "boolean", "character", "character varying", "double precision", "integer",
	"real", "smallint", "time without time zone", "time with time zone", "timestamp without time zone", "timestamp with time zone",
	"information_schema.", "pg_catalog."}

// excludesSystemTypeNames says whether cond is a name pattern (psql's
// `t.typname ~ '^(p)$' OR format_type(t.oid, NULL) ~ '^(p)$'`, or one
// of them) that no type of pg_catalog or information_schema matches:
// each anchored pattern's literal prefix starts none of their names
// (typname, or format_type's text).
func (r *reach) excludesSystemTypeNames(cond lplan.Scalar, s *lplan.Scan) bool {
	args := []lplan.Scalar{cond}
	if b, ok := cond.(*lplan.BoolOp); ok && b.Op == "OR" {
		args = b.Args
	}
	for _, a := range args {
		f, ok := strip(a).(*lplan.Func)
		if !ok || f.Name != "textregexeq" || len(f.Args) != 2 {
			return false
		}
		pat, ok := constText(f.Args[1:])
		if !ok {
			return false
		}
		prefix, _, ok := regexPrefix(pat) // pgcatalog_reach.go
		if !ok || prefix == "" || strings.HasPrefix("pg_", prefix) || strings.HasPrefix(prefix, "pg_") || strings.HasPrefix(prefix, "_") {
			return false
		}
		switch x := strip(f.Args[0]).(type) {
		case *lplan.ColRef:
			if src, ok := r.cols[x.ID]; !ok || src.scan != s || src.name != "typname" {
				return false
			}
		case *lplan.Func:
			if x.Name != "format_type" || len(x.Args) != 2 {
				return false
			}
			c, ok := strip(x.Args[0]).(*lplan.ColRef)
			if src, found := r.cols[c.ID]; !ok || !found || src.scan != s || src.name != "oid" {
				return false
			}
		default:
			return false
		}
		for n := range builtinTypeNames { // pgcatalog_types.go
			if strings.HasPrefix(n, prefix) {
				return false
			}
		}
		for _, n := range builtinFormatNames {
			if strings.HasPrefix(n, prefix) || strings.HasPrefix(prefix, n) {
				return false
			}
		}
	}
	return len(args) > 0
}

// proveTypeDetail proves the scans of pg_constraint keyed by contypid
// and of pg_description keyed by objoid on a pg_type scan whose rows
// are all outside pg_catalog (their constraints and comments were read).
func (r *reach) proveTypeDetail(s *lplan.Scan) bool {
	if typeDetail(r.tableList) == nil {
		return false
	}
	key := map[string]string{"pg_constraint": "contypid", "pg_description": "objoid"}[r.rels[s].name]
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || col != key || op != "=" && op != "in" {
			continue
		}
		if r.allVals(other, 0, func(string) bool { return false }, func(src colSource) bool {
			return src.rel.name == "pg_type" && src.name == "oid" && r.userTypeScan(src.scan) ||
				src.rel.name == "pg_collation" && src.name == "oid" && r.rels[s].name == "pg_description"
		}) {
			return true
		}
	}
	return false
}

// collationRel is pg_collation: the collations the details read (those
// outside pg_catalog and information_schema, those a type outside
// pg_catalog names, default, C and POSIX). Its base layout holds every
// major's columns (collationLayouts picks them).
var collationRel = &pgRel{schema: "pg_catalog", name: "pg_collation",
	cols: pgc("oid oid, collname name, collnamespace oid, collowner oid, collprovider char, collisdeterministic bool, collencoding int4, " +
		"collcollate text, collctype text, colliculocale text, collversion text, collicurules text, colllocale text"),
	refuse: func(cx *pgCatCtx) error {
		if typeDetail(cx.tables) == nil {
			return typeDetailUnread("pg_collation")
		}
		return nil
	},
	rows: func(cx *pgCatCtx) [][]*string {
		d := typeDetail(cx.tables)
		if d == nil {
			return nil
		}
		var out [][]*string
		for _, c := range d.Collations {
			loc := nullOr(c.Locale, c.LocaleNull) // pgcatalog_database.go
			out = append(out, []*string{u32(c.OID), sv(c.Name), u32(c.Namespace), u32(c.Owner), sv(charText(c.Provider)), bv(c.Deterministic),
				iv(int64(c.Encoding)), nullOr(c.Collate, c.CollateNull), nullOr(c.Ctype, c.CtypeNull), loc, nullOr(c.Version, c.VersionNull),
				nullOr(c.Rules, c.RulesNull), loc})
		}
		return out
	}}

// collationLayouts are pg_collation's columns by major (14.23, 15.18,
// 16.14, 17.10, 18.4): 15 made collcollate and collctype text and added
// colliculocale, 16 collicurules, 17 renamed colliculocale colllocale.
var collationLayouts = []majorLayout{
	{140000, "oid, collname, collnamespace, collowner, collprovider, collisdeterministic, collencoding, collcollate name, collctype name, collversion"},
	{150000, "oid, collname, collnamespace, collowner, collprovider, collisdeterministic, collencoding, collcollate, collctype, colliculocale, collversion"},
	{160000, "oid, collname, collnamespace, collowner, collprovider, collisdeterministic, collencoding, collcollate, collctype, colliculocale, " +
		"collicurules, collversion"},
	{170000, "oid, collname, collnamespace, collowner, collprovider, collisdeterministic, collencoding, collcollate, collctype, colllocale, " +
		"collicurules, collversion"},
}

// proveCollation says whether a pg_collation scan's rows are ones the
// details read: oid restricted to read collations' OIDs (constants, or
// a proven pg_type scan's typcollation: every listed type's collation
// was read), or collnamespace to schemas other than pg_catalog and
// information_schema.
func (r *reach) proveCollation(s *lplan.Scan) bool {
	d := typeDetail(r.tableList)
	if d == nil {
		return false
	}
	read := map[uint32]bool{}
	for _, c := range d.Collations {
		read[c.OID] = true
	}
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || op != "=" && op != "in" {
			continue
		}
		switch col {
		case "oid":
			if r.allVals(other, 0, func(k string) bool {
				n, err := strconv.ParseUint(strings.TrimSpace(k), 10, 32)
				return err == nil && read[uint32(n)]
			}, func(src colSource) bool {
				return src.rel.name == "pg_type" && src.name == "typcollation" && r.typeFacts().collationsRead
			}) {
				return true
			}
		case "collnamespace":
			if r.userNamespaceOIDs(other, 0) || r.notSystemSchema(other) {
				return true
			}
		}
	}
	return false
}

// listedCollationsRead says whether every listed type's typcollation is
// a collation the details read (0: none).
func listedCollationsRead(tables []Table) bool {
	d := typeDetail(tables)
	if d == nil {
		return false
	}
	read := map[uint32]bool{0: true}
	for _, c := range d.Collations {
		read[c.OID] = true
	}
	for _, row := range catalogDef("pg_catalog", "pg_type").rows(&pgCatCtx{tables: tables}) {
		n, err := strconv.ParseUint(derefOr(row[28]), 10, 32)
		if err != nil || !read[uint32(n)] {
			return false
		}
	}
	return true
}

// derefOr is *p, "" for nil or unknown.
func derefOr(p *string) string {
	if p == nil || p == pgUnknown {
		return ""
	}
	return *p
}

// databaseEncoding is the followed database's encoding number as the
// databases were read (ok false when not).
func databaseEncoding(tables []Table) (int32, bool) {
	dbs, ok := clusterDatabases(tables) // pgcatalog_database.go
	cur := sourceDatabaseOID(tables)
	if !ok || cur == 0 {
		return 0, false
	}
	for _, d := range dbs {
		if d.OID == cur {
			return d.Encoding, true
		}
	}
	return 0, false
}

// typeDetailFuncs are the functions typeDetailFunc answers.
var typeDetailFuncs = map[string]bool{"pg_collation_is_visible": true, "getdatabaseencoding": true, "pg_char_to_encoding": true}

// typeDetailFunc answers pg_collation_is_visible (for the collations
// read), getdatabaseencoding (the followed database's, as read) and
// pg_char_to_encoding (an encoding's canonical name; its aliases are
// refused).
func (c *vecCatalog) typeDetailFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	want := map[string]int{"pg_collation_is_visible": 1, "getdatabaseencoding": 0, "pg_char_to_encoding": 1}[name]
	if len(args) != want {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	tables := c.pl.src.Tables()
	switch name {
	case "getdatabaseencoding":
		return &lplan.ExtFunc{Result: lplan.T(oidName), Eval: func([]types.Value) (types.Value, error) {
			enc, ok := databaseEncoding(tables)
			if !ok || enc < 0 || int(enc) >= len(encodingNames) {
				return nil, unsupported(-1, "getdatabaseencoding (the followed database's pg_database row was not read)")
			}
			return encodingNames[enc], nil
		}}, nil
	case "pg_char_to_encoding":
		return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidName)}, Result: lplan.T(oidInt4), Eval: func(v []types.Value) (types.Value, error) {
			s, _ := v[0].(string)
			for i, n := range encodingNames {
				if strings.EqualFold(s, n) {
					return int64(i), nil
				}
			}
			return nil, unsupported(-1, "pg_char_to_encoding of "+strconv.Quote(s)+" (sidecar knows the encodings' canonical names only)")
		}}, nil
	}
	path := c.searchPath()
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidOID)}, Result: lplan.T(oidBool), Eval: func(v []types.Value) (types.Value, error) {
		vis, err := collationVisible(tables, path, oidValue(v[0]))
		if err != nil {
			return nil, err
		}
		return vis, nil
	}}, nil
}

// collationVisible is pg_collation_is_visible of a collation read:
// whether its schema is the first on the search path (pg_catalog first
// when the path does not name it) holding a collation of its name for
// the database's encoding (or any); refused for a collation not read or
// of another encoding.
func collationVisible(tables []Table, path []string, oid uint32) (bool, error) {
	d := typeDetail(tables)
	if d == nil {
		return false, typeDetailUnread("pg_collation_is_visible")
	}
	enc, encOK := databaseEncoding(tables)
	nsName := map[uint32]string{}
	for _, n := range (&pgCatCtx{tables: tables}).namespaceFacts() {
		nsName[n.OID] = n.Name
	}
	var me *wal.CollationRow
	for i := range d.Collations {
		if d.Collations[i].OID == oid {
			me = &d.Collations[i]
		}
	}
	if me == nil || nsName[me.Namespace] == "" || !encOK || me.Encoding != -1 && me.Encoding != enc {
		return false, unsupported(-1, fmt.Sprintf("pg_collation_is_visible of the collation %d (sidecar read the collations outside pg_catalog and those the types name)", oid))
	}
	own := nsName[me.Namespace]
	if !containsStr(path, "pg_catalog") {
		path = append([]string{"pg_catalog"}, path...)
	}
	for _, p := range path {
		if p == own {
			return true, nil
		}
		for _, o := range d.Collations {
			if o.OID != oid && o.Name == me.Name && nsName[o.Namespace] == p && (o.Encoding == -1 || o.Encoding == enc) {
				return false, nil
			}
		}
		for _, n := range d.CollationNamesakes {
			if n.Name == me.Name && n.Namespace == p {
				return false, nil
			}
		}
	}
	return false, nil
}

// containsStr says whether list holds s.
func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// markDomainConstraintOrder lets ARRAY(SELECT … FROM pg_constraint r
// WHERE r.contypid = …) without ORDER BY (psql's \dD Check column)
// answer in pg_constraint's row order: PostgreSQL's sequential scan and
// its pg_constraint_contypid_index scan both return a domain's
// constraints in heap (TID) order, the order the details read them in
// (replication/relmeta_typedetail.go: ORDER BY ctid) and pg_constraint
// lists them. Any other ARRAY(SELECT …) without ORDER BY stays refused
// where its rows differ (sql/exec/arraysub.go).
func (r *reach) markDomainConstraintOrder(rel lplan.Rel) {
	for _, e := range lplan.ExprsOf(rel) {
		lplan.Walk(e, func(x lplan.Scalar) bool {
			if sub, ok := x.(*lplan.Subquery); ok {
				if sub.Kind == lplan.SubArray && sub.Keys == nil && r.domainConstraintScan(sub.Plan) {
					sub.Unordered = true
				}
				r.markDomainConstraintOrder(sub.Plan)
			}
			return true
		})
	}
	for _, in := range rel.Inputs() {
		r.markDomainConstraintOrder(in)
	}
}

// domainConstraintScan says whether rel is a projection of a proven
// pg_constraint scan restricted by contypid = a pg_type scan's oid (a
// type's, never 0: the tables' constraints, which pg_constraint does not
// list in PostgreSQL's order, are not among its rows), filtered.
func (r *reach) domainConstraintScan(rel lplan.Rel) bool {
	switch x := rel.(type) {
	case *lplan.Project:
		return r.domainConstraintScan(x.Input)
	case *lplan.Filter:
		return r.domainConstraintScan(x.Input)
	case *lplan.Scan:
		if rr := r.rels[x]; rr == nil || rr.name != "pg_constraint" || !r.proven[x] {
			return false
		}
		for _, cond := range r.restr[x] {
			col, other, op, ok := r.comparison(cond, x)
			if !ok || col != "contypid" || op != "=" || len(other) != 1 {
				continue
			}
			if ref, ok := strip(other[0]).(*lplan.ColRef); ok {
				if src, ok := r.cols[ref.ID]; ok && src.rel.name == "pg_type" && src.name == "oid" {
					return true
				}
			}
		}
	}
	return false
}
