package sqlfront

import (
	"github.com/sidecar-dev/sidecar/internal/pgast"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// pg_catalog through the engine: the catalog relations below are tables
// of the tree planner's Catalog (vecCatalog), so any query over them —
// joins, subqueries, LEFT JOINs, UNION — is planned and run by
// sql/plan and sql/exec like a query over followed tables. Their rows are
// built from the followed tables at the statement's version and their
// catalog facts (wal.Facts): what PostgreSQL answers for a database
// holding only the followed tables. A column sidecar does not know (an
// owner, an ACL, statistics, a table copied before its column facts were
// read) reads as unknown: a statement that reads one is refused with
// 0A000 naming it, never answered differently.

// pgCol is one column of a catalog relation.
type pgCol struct {
	name string
	typ  lplan.Type
	// system: a system column (tableoid, pgcatalog_tableoid.go).
	system bool
}

// pgRel is one catalog relation.
type pgRel struct {
	schema, name string
	cols         []pgCol
	rows         func(cx *pgCatCtx) [][]*string
	// refuse, when set, refuses a statement reading the relation when
	// its rows are not known (not which values: which rows).
	refuse func(cx *pgCatCtx) error
}

// pgUnknown marks a value sidecar does not know; reading it is refused.
// The ACL columns (relacl, nspacl, attacl, typacl: aclitem[] in
// PostgreSQL) are always unknown and typed text[], so psql's
// array_to_string(relacl, E'\n') binds and is refused 0A000 naming the
// column (it was 42883: no array_to_string(text), a function PostgreSQL
// has for the real column).
var pgUnknown = new(string)

// pgStandIn marks the cells of a row standing for rows sidecar does not
// know (how many, or which values): the columns of a relation whose
// columns were not read, under its known schema and name. Unlike
// pgUnknown, such a row refuses a statement whenever one of its scans
// may keep it, whatever the statement reads: `SELECT count(*) FROM
// information_schema.columns WHERE table_schema = 'public'` reads no
// unknown value, yet would count one row for a relation of six columns
// (pgcatalog_skip.go).
var pgStandIn = new(string)

// nodeTree is the type of pg_attrdef.adbin as sidecar holds it: the
// default's text, readable only through pg_get_expr (typmod -194 marks
// it; its own output is refused).
var nodeTree = lplan.Type{OID: lplan.Text, Mod: -194}

// yesOrNo is how PostgreSQL describes a column of information_schema's
// domain yes_or_no (varchar(3)): a RowDescription names a domain's base
// type and typmod (sql_identifier name, character_data varchar,
// cardinal_number int4; yes_or_no varchar with typmod 7).
var yesOrNo = lplan.Type{OID: oidVarchar, Mod: 7}

// oidNodeTree is pg_node_tree, the type of a node tree sidecar holds as
// PostgreSQL prints it (pg_index.indexprs): its text is output as is.
const oidNodeTree = types.NodeTree

// nodeTreeSep separates the two forms adbin holds: pg_get_expr's plain
// text, then its pretty text.
const nodeTreeSep = "\x1f"

// pgCatCtx is what the rows are built from.
type pgCatCtx struct {
	tables   []Table
	db       string
	settings map[string]string // the session's (pg_settings)
	// path and user are the session's search path and user
	// (information_schema.columns' column_default).
	path []string
	user string
}

func pgc(spec string) []pgCol {
	var out []pgCol
	for _, f := range strings.Split(spec, ",") {
		name, typ, _ := strings.Cut(strings.TrimSpace(f), " ")
		typ, array := strings.CutSuffix(typ, "[]")
		t := lplan.T(map[string]uint32{"oid": oidOID, "name": oidName, "char": oidCharType, "int2": oidInt2, "int4": oidInt4, "int8": oidInt8,
			"bool": oidBool, "text": oidText, "varchar": oidVarchar, "timestamptz": oidTimestamptz, "float4": oidFloat4, "int2vector": types.Int2Vector, "oidvector": types.OidVector,
			"pg_node_tree": oidNodeTree}[typ])
		switch typ {
		case "node":
			t = nodeTree
		case "yes_or_no":
			t = yesOrNo
		case "regproc":
			t = regprocType // pgcatalog_regproc.go
		case "aclitem":
			t, array = aclItems, false // pgcatalog_database.go
		}
		if t.OID == 0 {
			panic("pg_catalog column type " + typ)
		}
		if array {
			t = lplan.T(types.ArrayOf(t.OID))
		}
		out = append(out, pgCol{name: name, typ: t})
	}
	return out
}

func sv(s string) *string { return &s }
func iv(n int64) *string  { return sv(strconv.FormatInt(n, 10)) }
func bv(b bool) *string {
	if b {
		return sv("t")
	}
	return sv("f")
}

// namespaces are pg_namespace's rows: PostgreSQL's own and the followed
// tables' schemas, with the OIDs the copy read (wal.NamespaceFacts); 0
// is an OID not read (information_schema's and a user schema's, for
// tables copied before they were read: initdb and CREATE SCHEMA assign
// them), unknown in the rows (nsOID).
func (cx *pgCatCtx) namespaces() ([]string, map[string]uint32) {
	names := []string{"pg_toast", "pg_catalog", "public", "information_schema"}
	oids := map[string]uint32{"pg_catalog": 11, "pg_toast": 99, "public": publicNamespaceOID, "information_schema": 0}
	read := cx.namespaceFacts()
	for n := range oids {
		if f, ok := read[n]; ok {
			oids[n] = f.OID
		}
	}
	for _, t := range cx.tables {
		if _, ok := oids[t.Schema]; !ok {
			oids[t.Schema] = read[t.Schema].OID
			names = append(names, t.Schema)
		}
	}
	parts, _ := partitionedClasses(cx.tables) // pgcatalog_partitioned.go
	for _, a := range parts {
		if _, ok := oids[a.Schema]; !ok {
			oids[a.Schema] = read[a.Schema].OID
			names = append(names, a.Schema)
		}
	}
	names = userTypeNamespaces(cx.tables, names, oids)      // pgcatalog_usertypes.go
	names = typeDetailNamespaces(cx.tables, names, oids)    // pgcatalog_typedetail.go
	names = extensionNamespaces(cx.tables, names, oids)     // pgcatalog_extensions.go
	return relationNamespaces(cx.tables, names, oids), oids // pgcatalog_relations.go
}

// namespaceFacts are the schemas the copy read with the followed
// tables, by name.
func (cx *pgCatCtx) namespaceFacts() map[string]wal.NamespaceFacts {
	read := map[string]wal.NamespaceFacts{}
	for i := range cx.tables {
		if s := schemaFactsOf(&cx.tables[i]); s != nil && s.NamespacesRead {
			for _, n := range s.Namespaces {
				read[n.Name] = n
			}
		}
	}
	userTypeNamespaceFacts(cx.tables, read)   // pgcatalog_usertypes.go
	extensionNamespaceFacts(cx.tables, read)  // pgcatalog_extensions.go
	typeDetailNamespaceFacts(cx.tables, read) // pgcatalog_typedetail.go
	relationNamespaceFacts(cx.tables, read)   // pgcatalog_relations.go
	return read
}

// systemTypes are information_schema's domains and their arrays as the
// copy read them (nil when no followed table's were read).
func systemTypes(tables []Table) []wal.TypeFacts {
	for i := range tables {
		if s := schemaFactsOf(&tables[i]); s != nil && s.NamespacesRead {
			return s.SystemTypes
		}
	}
	return nil
}

// serverVersion is the followed server's server_version_num as the
// copy and the catalog poll read it with the tables' facts: catalog rows
// that differ by major answer as that major. 0 when no table's was read
// (records written before) or the tables' disagree (read before and
// after an upgrade, until the poll reads them again): such rows are
// then unknown.
func serverVersion(tables []Table) int {
	v := 0
	for i := range tables {
		s := schemaFactsOf(&tables[i])
		if s == nil || s.ServerVersion == 0 {
			continue
		}
		if v != 0 && v != s.ServerVersion {
			return 0
		}
		v = s.ServerVersion
	}
	return v
}

// typeCategory is pg_type.typcategory of t on the followed server's
// major (version 0: unknown where majors differ — "char" is 'S' before
// 15, 'Z' from 15).
func typeCategory(t *types.Type, version int) *string {
	c := types.Dialect{Version: version}.Category(t)
	if version == 0 && c != (types.Dialect{Version: 140000}).Category(t) {
		return pgUnknown
	}
	return sv(string(rune(c)))
}

// nsOID is a schema OID's text, unknown for 0 (not read).
func nsOID(o uint32) *string {
	if o == 0 {
		return pgUnknown
	}
	return u32(o)
}

// colFacts returns the column facts of t's column i, nil when not read.
func colFacts(t *Table, i int) *wal.ColumnFacts {
	if t.Facts == nil || len(t.Facts.Columns) != len(t.Columns) {
		return nil
	}
	return &t.Facts.Columns[i]
}

func relKind(t *Table) string {
	if t.Facts != nil && t.Facts.Kind == 'p' {
		return "p"
	}
	return "r"
}

var pgRels = slices.Concat([]*pgRel{
	{schema: "pg_catalog", name: "pg_namespace", cols: pgc("oid oid, nspname name, nspowner oid, nspacl text[]"),
		rows: func(cx *pgCatCtx) [][]*string {
			names, oids := cx.namespaces()
			read := cx.namespaceFacts()
			var out [][]*string
			for _, n := range names {
				owner := pgUnknown
				if f, ok := read[n]; ok {
					owner = u32(f.OwnerOID)
				}
				out = append(out, []*string{nsOID(oids[n]), sv(n), owner, namespaceACL(cx.tables, oids[n])}) // pgcatalog_nspdetail.go
			}
			return out
		}},
	{schema: "pg_catalog", name: "pg_class", cols: pgc("oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid, " +
		"relfilenode oid, reltablespace oid, relpages int4, reltuples float4, relallvisible int4, reltoastrelid oid, relhasindex bool, relisshared bool, " +
		"relpersistence char, relkind char, relnatts int2, relchecks int2, relhasrules bool, relhastriggers bool, relhassubclass bool, relrowsecurity bool, " +
		"relforcerowsecurity bool, relispopulated bool, relreplident char, relispartition bool, relrewrite oid, relfrozenxid text, relminmxid text, " +
		"relacl aclitem[], reloptions text[], relpartbound text"),
		refuse: func(cx *pgCatCtx) error { return partitionedUnread(cx.tables, "pg_class") }, // pgcatalog_partitioned.go
		rows: func(cx *pgCatCtx) [][]*string {
			_, ns := cx.namespaces()
			var out [][]*string
			for _, t := range cx.tables {
				am := sv("2") // heap
				if relKind(&t) == "p" {
					am = sv("0")
				}
				sub, part := pgUnknown, pgUnknown
				if t.Facts != nil {
					sub, part = bv(len(t.Facts.Descendants) > 0), bv(t.Facts.PartitionOf != "")
				}
				u := pgUnknown
				hasIndex, checks, triggers := tableSchemaFacts(cx.tables, &t)
				out = append(out, []*string{u32(t.OID), sv(t.Rel), nsOID(ns[t.Schema]), u, sv("0"), ownerOID(&t), am, u, sv("0"), u, u, u, u, hasIndex, sv("f"),
					sv("p"), sv(relKind(&t)), relNatts(&t), checks, u, triggers, sub, u, u, sv("t"), u, part, sv("0"), u, u, u, tableRelOptions(&t), u})
			}
			out = append(append(out, indexClassRows(cx, ns)...), seqClassRows(cx, ns)...) // pgcatalog_seq.go
			out = append(out, systemClassRows(serverVersion(cx.tables))...)               // pgcatalog_sysclass.go
			out = append(out, partitionedClassRows(cx, ns)...)                            // pgcatalog_partitioned.go
			out = append(out, compositeClassRows(cx)...)                                  // pgcatalog_typedetail.go
			out = append(out, listedOnlyClassRows(cx)...)                                 // pgcatalog_relations.go
			return withRelACLs(cx, append(out, viewClassRows(cx, ns)...))                 // pgcatalog_views.go, pgcatalog_access.go
		}},
	{schema: "pg_catalog", name: "pg_attribute", cols: pgc("attrelid oid, attname name, atttypid oid, attstattarget int4, attlen int2, attnum int2, " +
		"attndims int4, attcacheoff int4, atttypmod int4, attbyval bool, attalign char, attstorage char, attcompression char, attnotnull bool, " +
		"atthasdef bool, atthasmissing bool, attidentity char, attgenerated char, attisdropped bool, attislocal bool, attinhcount int4, " +
		"attcollation oid, attacl aclitem[], attoptions text[], attfdwoptions text[], attmissingval text"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			u := pgUnknown
			for _, t := range cx.tables {
				out = append(out, systemAttributeRows(t.OID)...)
				cols, ok := tableColumnsView(&t) // catalog_columns.go
				if !ok {
					out = append(out, append([]*string{u32(t.OID)}, unknownRow(25)...))
				}
				for _, c := range cols {
					notNull, hasDef, ident, gen := u, u, u, u
					if f := c.facts; f != nil {
						notNull, hasDef, ident, gen = bv(f.NotNull), bv(f.HasDefault), sv(charText(f.Identity)), sv(charText(f.Generated))
					}
					length := u
					if ty, ok := types.Lookup(c.TypeOID); ok {
						length = iv(int64(ty.Len))
					}
					out = append(out, []*string{u32(t.OID), sv(c.Name), u32(c.TypeOID), u, length, iv(int64(c.attnum)), tableAttNDims(c.TypeOID), sv("-1"), iv(int64(c.TypeMod)),
						u, u, u, u, notNull, hasDef, u, ident, gen, sv("f"), u, u, u, u, u, u, u})
				}
				out = append(out, droppedAttributes(&t)...) // catalog_columns.go
			}
			_, ns := cx.namespaces()
			out = append(out, columnsReadAttributeRows(cx)...)                   // pgcatalog_partlists_cols.go
			return withColumnACLs(cx, append(out, viewAttributeRows(cx, ns)...)) // pgcatalog_viewcols.go, pgcatalog_access.go
		}},
	{schema: "pg_catalog", name: "pg_attrdef", cols: pgc("oid oid, adrelid oid, adnum int2, adbin node"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			for _, t := range cx.tables {
				cols, ok := tableColumnsView(&t) // catalog_columns.go
				if !ok || t.Facts == nil || len(t.Facts.Columns) != len(t.Columns) {
					out = append(out, []*string{pgUnknown, u32(t.OID), pgUnknown, pgUnknown}) // which columns have one is not known
					continue
				}
				for _, c := range cols {
					if f := c.facts; f.HasDefault {
						out = append(out, []*string{pgUnknown, u32(t.OID), iv(int64(c.attnum)), sv(f.Default + nodeTreeSep + f.DefaultPretty)})
					}
				}
			}
			_, ns := cx.namespaces()
			out = append(out, columnsReadAttrdefRows(cx)...) // pgcatalog_partlists_cols.go
			return append(out, viewAttrdefRows(cx, ns)...)   // pgcatalog_viewcols.go
		}},
	{schema: "pg_catalog", name: "pg_type", cols: append(pgc("oid oid, typname name, typnamespace oid, typowner oid, typlen int2, typbyval bool, typtype char, "+
		"typcategory char, typispreferred bool, typisdefined bool, typdelim char, typrelid oid, typsubscript text, typelem oid, typarray oid, "+
		"typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, typmodout regproc, typanalyze regproc, typalign char, typstorage char, "+
		"typnotnull bool, typbasetype oid, typtypmod int4, typndims int4, typcollation oid, typdefaultbin text, typdefault text"), pgCol{name: "typacl", typ: aclItems}),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			u := pgUnknown
			version := serverVersion(cx.tables)
			for _, ct := range catalogTypes {
				t, ok := types.Lookup(ct.oid)
				if !ok {
					continue
				}
				coll := "0"
				if t.Category == types.CatString && t.OID != types.Name {
					coll = "100"
				} else if t.OID == types.Name {
					coll = "950"
				}
				// typbyval: the fixed-length types of at most 8 bytes (on
				// 64-bit builds); unknown is a pseudo-type (typtype p).
				byval := bv(t.Len == 1 || t.Len == 2 || t.Len == 4 || t.Len == 8 && t.OID != types.Macaddr8) // macaddr8 is by reference
				kind := "b"
				if t.OID == types.Unknown {
					kind = "p"
				} else if types.IsRange(t.OID) {
					kind = "r"
				}
				row := []*string{u32(t.OID), sv(t.Name), sv("11"), sv("10"), iv(int64(t.Len)), byval, sv(kind), typeCategory(t, version),
					bv(t.Preferred), sv("t"), sv(","), sv("0"), u, u32(t.Elem), u32(t.Array)}
				row = append(append(row, typeIORow(t.OID)...), u, u, // pgcatalog_regproc.go
					sv("f"), sv("0"), sv("-1"), sv("0"), sv(coll), nil, nil, nil)
				out = append(out, row)
				if t.Array != 0 {
					row := []*string{u32(t.Array), sv("_" + t.Name), sv("11"), sv("10"), sv("-1"), sv("f"), sv("b"), sv("A"),
						sv("f"), sv("t"), sv(","), sv("0"), u, u32(t.OID), sv("0")}
					row = append(append(row, typeIORow(t.Array)...), u, u,
						sv("f"), sv("0"), sv("-1"), sv("0"), sv(coll), nil, nil, nil)
					out = append(out, row)
				}
			}
			// information_schema's domains, the database's domains, enums
			// and other types, and their arrays, as read
			// (pgcatalog_usertypes.go, pgcatalog_typedetail.go).
			return append(out, listedTypeRows(cx.tables)...)
		}},
	{schema: "pg_catalog", name: "pg_am", cols: pgc("oid oid, amname name, amhandler text, amtype char"),
		rows: func(*pgCatCtx) [][]*string {
			var out [][]*string
			for _, a := range []struct {
				oid        uint32
				name, kind string
			}{{2, "heap", "t"}, {403, "btree", "i"}, {405, "hash", "i"}, {783, "gist", "i"}, {2742, "gin", "i"}, {4000, "spgist", "i"}, {3580, "brin", "i"}} {
				out = append(out, []*string{u32(a.oid), sv(a.name), pgUnknown, sv(a.kind)})
			}
			return out
		}},
}, schemaRels, []*pgRel{settingsRel, sequenceRel, enumRel, procRel, databaseRel, languageRel, eventTriggerRel, operatorRel}, roleRels, // pgcatalog_schema.go, pgcatalog_settings.go, pgcatalog_seq.go, pgcatalog_reg.go, pgcatalog_proc.go, pgcatalog_database.go, pgcatalog_language.go, pgcatalog_listings.go, pgcatalog_roles.go
	infoSchemaRels, infoSchemaTableRels, catalogListingRels, // catalog_infoschema.go, catalog_infoschema_tables.go
	publicationRels, []*pgRel{extensionRel, policyRel, collationRel}, // pgcatalog_publications.go, pgcatalog_extensions.go, pgcatalog_access.go, pgcatalog_typedetail.go
	[]*pgRel{infoSchemaSequencesRel}) // pgcatalog_relations.go

// charText is a "char" column's text: empty for 0.
func charText(b byte) string {
	if b == 0 {
		return ""
	}
	return string(rune(b))
}

// systemAttributeRows are the pg_attribute rows of the system columns
// of the table rel (its ACL unknown, as a column's).
func systemAttributeRows(rel uint32) [][]*string {
	var out [][]*string
	u := pgUnknown
	for _, sc := range systemColumns {
		out = append(out, []*string{u32(rel), sv(sc.name), u32(sc.typ), u, iv(int64(sc.len)), iv(int64(sc.num)), sv("0"), sv("-1"), sv("-1"),
			u, u, u, u, sv("t"), sv("f"), sv("f"), sv(""), sv(""), sv("f"), sv("t"), sv("0"), sv("0"), nil, nil, nil, nil})
	}
	return out
}

// systemColumns are every table's system columns in pg_attribute.
var systemColumns = []struct {
	name     string
	typ      uint32
	num, len int
}{{"tableoid", 26, -6, 4}, {"cmax", 29, -5, 4}, {"xmax", 28, -4, 4}, {"cmin", 29, -3, 4}, {"xmin", 28, -2, 4}, {"ctid", 27, -1, 6}}

// catalogDef returns the catalog relation schema.name ("" schema: the
// search path, where pg_catalog comes first: only pg_catalog's), or nil.
func catalogDef(schema, name string) *pgRel {
	for _, r := range pgRels {
		if r.name == name && (schema == "" && r.schema == "pg_catalog" || schema == r.schema) {
			return r
		}
	}
	return nil
}

// tableDef is r as the planner sees it.
func (r *pgRel) tableDef() *lplan.TableDef {
	d := &lplan.TableDef{Schema: r.schema, Name: r.name}
	for _, c := range r.cols {
		d.Columns = append(d.Columns, lplan.ColumnDef{Name: c.name, Type: c.typ, System: c.system})
	}
	return d
}

// readsCatalog says whether stmt names a catalog relation sidecar
// serves through the engine (pg_catalog's come first on the search
// path, so an unqualified pg_class is the catalog's).
func readsCatalog(stmt *pg.Node) bool {
	found := false
	pgast.Walk(stmt.ProtoReflect(), func(m protoreflect.Message) bool {
		if found {
			return false
		}
		if tn, ok := m.Interface().(*pg.TypeName); ok {
			_, found = lplan.RegTypeOfName(tn) // a reg type reads the catalog
			return !found
		}
		if rv, ok := m.Interface().(*pg.RangeVar); ok {
			found = catalogDef(rv.Schemaname, rv.Relname) != nil || rv.Schemaname == "pg_catalog" && catalogRelation(rv.Schemaname, rv.Relname) == nil
			return false
		}
		return true
	})
	return found
}
