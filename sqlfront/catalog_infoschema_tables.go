package sqlfront

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// information_schema.tables, .columns and .schemata and pg_tables on the
// engine, with every column PostgreSQL's views have (14 to 18 define
// them alike), built from the followed tables' facts as PostgreSQL's
// view definitions compute them over pg_class, pg_attribute, pg_type and
// pg_namespace. They replace the flat planner's subsets of four to
// eleven columns, which answered `SELECT *` with fewer columns, failed
// 42703 on a column PostgreSQL has (character_maximum_length,
// numeric_precision: what ORMs and BI tools read), said YES for the
// is_nullable of a column whose domain is NOT NULL, and counted the
// followed tables alone where PostgreSQL lists its system catalogs too
// (count(*) of information_schema.tables: 10 for 218).
//
// As pg_class, the relations listing tables and columns lack
// PostgreSQL's own (pg_catalog's and information_schema's): a statement
// is answered only when a condition restricts their rows to user
// schemas or user table names (pgcatalog_reach.go, proveInfoSchema).
// A value sidecar does not know — the identity sequence's parameters, a
// collation other than the default, a view's updatability, a column of
// a type it does not list — is unknown, and reading it is refused.
// Privileges are not applied: like the rest of the catalog, every
// followed table is listed whatever the session's role.
var infoSchemaTableRels = []*pgRel{
	{schema: "information_schema", name: "tables",
		cols: pgc("table_catalog name, table_schema name, table_name name, table_type varchar, self_referencing_column_name name, " +
			"reference_generation varchar, user_defined_type_catalog name, user_defined_type_schema name, user_defined_type_name name, " +
			"is_insertable_into yes_or_no, is_typed yes_or_no, commit_action varchar"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			db := sv(cx.db)
			for _, t := range cx.tables {
				out = append(out, []*string{db, sv(t.Schema), sv(t.Rel), sv("BASE TABLE"), nil, nil, nil, nil, nil, sv("YES"), sv("NO"), nil})
			}
			_, ns := cx.namespaces()
			for _, v := range listedViews(cx.tables, ns) { // pgcatalog_views.go
				if v.Kind != 'v' {
					continue // a materialized view is not listed
				}
				// is_insertable_into of a view: whether PostgreSQL can
				// update it automatically, which sidecar does not decide.
				out = append(out, []*string{db, sv(v.Schema), sv(v.Name), sv("VIEW"), nil, nil, nil, nil, nil, pgUnknown, sv("NO"), nil})
			}
			out = append(out, partitionedInfoSchemaTables(cx)...) // pgcatalog_partlists.go
			return append(out, listedOnlyInfoSchemaTables(cx)...) // pgcatalog_relations.go
		}},
	{schema: "information_schema", name: "columns",
		cols: pgc("table_catalog name, table_schema name, table_name name, column_name name, ordinal_position int4, column_default varchar, " +
			"is_nullable yes_or_no, data_type varchar, character_maximum_length int4, character_octet_length int4, numeric_precision int4, " +
			"numeric_precision_radix int4, numeric_scale int4, datetime_precision int4, interval_type varchar, interval_precision int4, " +
			"character_set_catalog name, character_set_schema name, character_set_name name, collation_catalog name, collation_schema name, " +
			"collation_name name, domain_catalog name, domain_schema name, domain_name name, udt_catalog name, udt_schema name, udt_name name, " +
			"scope_catalog name, scope_schema name, scope_name name, maximum_cardinality int4, dtd_identifier name, is_self_referencing yes_or_no, " +
			"is_identity yes_or_no, identity_generation varchar, identity_start varchar, identity_increment varchar, identity_maximum varchar, " +
			"identity_minimum varchar, identity_cycle yes_or_no, is_generated varchar, generation_expression varchar, is_updatable yes_or_no"),
		rows: infoSchemaColumnRows},
	{schema: "information_schema", name: "schemata",
		cols: pgc("catalog_name name, schema_name name, schema_owner name, default_character_set_catalog name, " +
			"default_character_set_schema name, default_character_set_name name, sql_path varchar"),
		rows: func(cx *pgCatCtx) [][]*string {
			names, _ := cx.namespaces()
			read := cx.namespaceFacts()
			var out [][]*string
			for _, n := range names {
				owner := pgUnknown
				if f, ok := read[n]; ok && f.Owner != "" {
					owner = sv(f.Owner)
				}
				out = append(out, []*string{sv(cx.db), sv(n), owner, nil, nil, nil, nil})
			}
			return out
		}},
	{schema: "pg_catalog", name: "pg_tables",
		cols: pgc("schemaname name, tablename name, tableowner name, tablespace name, hasindexes bool, hasrules bool, hastriggers bool, rowsecurity bool"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			for _, t := range cx.tables {
				owner := pgUnknown
				if s := schemaFactsOf(&t); s != nil && s.Owner != "" {
					owner = sv(s.Owner)
				}
				hasIndex, _, triggers := tableSchemaFacts(cx.tables, &t) // pgcatalog_schema.go
				// tablespace NULL: pg_class.reltablespace is served as 0
				// (the database's default), whose pg_tables name is NULL.
				out = append(out, []*string{sv(t.Schema), sv(t.Rel), owner, nil, hasIndex, pgUnknown, triggers, pgUnknown})
			}
			out = append(out, partitionedPgTables(cx)...) // pgcatalog_partlists.go
			return append(out, listedOnlyPgTables(cx)...) // pgcatalog_relations.go
		}},
}

// infoSchemaColumnRows are information_schema.columns' rows: the
// followed tables' columns, then the listed views'.
func infoSchemaColumnRows(cx *pgCatCtx) [][]*string {
	const width = 44
	var out [][]*string
	db := sv(cx.db)
	ti := newColTypeInfo(cx)
	defaults := infoSchemaDefaultsKnown(cx)
	for i := range cx.tables {
		t := &cx.tables[i]
		cols, ok := tableColumnsView(t) // catalog_columns.go
		if !ok {
			out = append(out, unknownRow(width))
			continue
		}
		for _, c := range cols {
			f := c.facts
			if f == nil {
				out = append(out, unknownRow(width))
				break
			}
			var def, genExpr *string
			generated := "NEVER"
			switch {
			case f.Generated != 0 && defaults:
				generated, genExpr = "ALWAYS", sv(f.Default)
			case f.Generated != 0:
				generated, genExpr = "ALWAYS", pgUnknown
			case f.HasDefault && defaults:
				def = sv(f.Default)
			case f.HasDefault:
				def = pgUnknown // read under search_path public (columnDefault)
			}
			row := []*string{db, sv(t.Schema), sv(t.Rel), sv(c.Name), iv(int64(c.attnum)), def}
			row = append(row, ti.typeColumns(c.Column, f.NotNull, collationKnown(c.Collation.Name))...)
			row = append(row, nil, nil, nil, nil, sv(strconv.Itoa(int(c.attnum))), sv("NO"))
			row = append(row, identityColumns(f.Identity, func() []*string { return identitySequence(t, c.Name) })...)
			out = append(out, append(row, sv(generated), genExpr, sv("YES")))
		}
	}
	_, ns := cx.namespaces()
	for _, v := range listedViews(cx.tables, ns) { // pgcatalog_views.go
		if v.Kind != 'v' {
			continue
		}
		for i, vc := range v.Columns {
			var def *string
			if vc.HasDefault {
				def = pgUnknown
				if defaults {
					def = sv(vc.Default)
				}
			}
			coll := vc.Collation == 0 || vc.Collation == 100 // not collatable, or the default
			row := []*string{db, sv(v.Schema), sv(v.Name), sv(vc.Name), iv(int64(i + 1)), def}
			row = append(row, ti.typeColumns(Column{Name: vc.Name, TypeOID: vc.TypeOID, TypeMod: vc.TypeMod}, false, coll)...)
			row = append(row, nil, nil, nil, nil, sv(strconv.Itoa(i+1)), sv("NO"), sv("NO"), nil, nil, nil, nil, nil, sv("NO"), sv("NEVER"), nil,
				pgUnknown) // is_updatable: whether PostgreSQL updates the view automatically
			out = append(out, row)
		}
	}
	read := columnsReadInfoSchema(cx)                                   // pgcatalog_partlists_cols.go
	out = append(out, partitionedInfoSchemaColumns(cx, read, width)...) // pgcatalog_partlists.go
	return append(out, listedOnlyInfoSchemaColumns(cx, read, width)...) // pgcatalog_relations.go
}

// identityColumns are is_identity … identity_cycle of a column whose
// attidentity is identity; seq is identity_start … identity_cycle of an
// identity column's.
func identityColumns(identity byte, seq func() []*string) []*string {
	switch identity {
	case 'a':
		return append([]*string{sv("YES"), sv("ALWAYS")}, seq()...)
	case 'd':
		return append([]*string{sv("YES"), sv("BY DEFAULT")}, seq()...)
	}
	return []*string{sv("NO"), nil, nil, nil, nil, nil, sv("NO")}
}

// identitySequence is identity_start … identity_cycle of t's identity
// column col: its owned sequence's parameters as the copy and the poll
// read them (unknown when not read).
func identitySequence(t *Table, col string) []*string {
	if s := schemaFactsOf(t); s != nil {
		for _, q := range s.OwnedSequences {
			if q.Identity && q.Column == col {
				num := func(n int64) *string { return sv(strconv.FormatInt(n, 10)) }
				return []*string{num(q.Start), num(q.Increment), num(q.Max), num(q.Min), sv(yesNo(q.Cycle))}
			}
		}
	}
	return unknownRow(5)
}

// infoSchemaDefaultsKnown says whether the default expressions read
// under search_path public print the same under the session's path
// ($user's schema may hold a relation of the same name: refused).
func infoSchemaDefaultsKnown(cx *pgCatCtx) bool {
	if !slices.Equal(cx.path, []string{cx.user, "public"}) && !slices.Equal(cx.path, []string{"public"}) {
		return false
	}
	for _, t := range cx.tables {
		if t.Schema == cx.user && t.Schema != "public" {
			return false
		}
	}
	return true
}

// collationKnown says whether a column's collation gives NULL collation
// columns: not collatable, or the database default. Another collation's
// schema is not read (a collation CREATE COLLATION made lives in a user
// schema), so its columns are unknown.
func collationKnown(name string) bool { return name == "" || name == "default" }

// colTypeInfo computes the type columns of information_schema.columns.
type colTypeInfo struct {
	cx      *pgCatCtx
	user    map[uint32]wal.TypeFacts
	nsNames map[uint32]string
	// encMax is pg_encoding_max_length of the database's encoding (0:
	// not known).
	encMax int64
}

func newColTypeInfo(cx *pgCatCtx) *colTypeInfo {
	ti := &colTypeInfo{cx: cx, user: map[uint32]wal.TypeFacts{}, nsNames: map[uint32]string{}}
	if u := userTypes(cx.tables); u != nil { // pgcatalog_usertypes.go
		for _, t := range u.Types {
			ti.user[t.OID] = t
		}
	}
	names, oids := cx.namespaces()
	for _, n := range names {
		if o := oids[n]; o != 0 {
			ti.nsNames[o] = n
		}
	}
	if dbs, ok := clusterDatabases(cx.tables); ok { // pgcatalog_database.go
		cur := sourceDatabaseOID(cx.tables)
		for _, d := range dbs {
			if d.OID == cur {
				ti.encMax = encodingMaxLength(int64(d.Encoding))
			}
		}
	}
	return ti
}

// encodingMaxLength is pg_encoding_max_length of the server encodings
// sidecar knows (0: another).
func encodingMaxLength(enc int64) int64 {
	switch {
	case enc == 0: // SQL_ASCII
		return 1
	case enc == 6: // UTF8
		return 4
	case enc >= 8 && enc <= 34: // LATIN1 … KOI8U: single-byte encodings
		return 1
	}
	return 0
}

// typeColumns are the columns is_nullable … udt_name of a column of type
// c.TypeOID (typmod c.TypeMod) whose attnotnull is notNull; coll says
// whether its collation columns are NULL (else unknown).
func (ti *colTypeInfo) typeColumns(c Column, notNull, coll bool) []*string {
	const n = 22 // is_nullable … udt_name
	var domSchema, domName *string
	trueOID, trueMod := c.TypeOID, c.TypeMod
	var dtype, udtSchema, udtNm *string
	if _, builtin := types.Lookup(c.TypeOID); builtin {
		dtype, udtSchema, udtNm = sv(builtinDataType(c.TypeOID)), sv("pg_catalog"), sv(typname(c.TypeOID))
	} else if c.TypeOID < firstNormalOID && c.TypeName != "" {
		// A type of pg_catalog sidecar does not serve (point, xml,
		// tsvector, …): named by the copy; the _pg_* functions below are
		// NULL for every type but the character, bit, numeric and
		// date/time ones, all of which are served.
		name, qualified := udtName(c.TypeName) // catalog.go
		if qualified {
			return unknownRow(n)
		}
		dtype, udtSchema, udtNm = sv(dataType(c)), sv("pg_catalog"), sv(name)
	} else {
		u, ok := ti.user[c.TypeOID]
		schema, sok := ti.nsNames[u.Namespace]
		switch {
		case !ok || !sok:
			return unknownRow(n)
		case u.Type == 'e': // an enum
			dtype, udtSchema, udtNm = sv("USER-DEFINED"), sv(schema), sv(u.Name)
		case u.Elem != 0 && u.Len == -1: // the array of a user type
			dtype, udtSchema, udtNm = sv("ARRAY"), sv(schema), sv(u.Name)
		case u.Type == 'd':
			if _, builtin := types.Lookup(u.BaseType); !builtin {
				return unknownRow(n) // a domain over a type sidecar does not list
			}
			domSchema, domName = sv(schema), sv(u.Name)
			notNull = notNull || u.NotNull
			trueOID, trueMod = u.BaseType, u.TypMod
			dtype, udtSchema, udtNm = sv(builtinDataType(u.BaseType)), sv("pg_catalog"), sv(typname(u.BaseType))
		default:
			return unknownRow(n)
		}
	}
	octet := charOctetLength(trueOID, trueMod, ti.encMax)
	var domCatalog *string
	if domName != nil {
		domCatalog = sv(ti.cx.db)
	}
	var collCatalog, collSchema, collName *string
	if !coll {
		collCatalog, collSchema, collName = pgUnknown, pgUnknown, pgUnknown
	}
	interval, err := intervalType(trueOID, trueMod)
	if err != nil {
		interval = pgUnknown
	}
	return []*string{sv(yesNo(!notNull)), dtype, charMaxLength(trueOID, trueMod), octet, numericPrecision(trueOID, trueMod),
		numericPrecisionRadix(trueOID), numericScale(trueOID, trueMod), datetimePrecision(trueOID, trueMod), interval, nil,
		nil, nil, nil, collCatalog, collSchema, collName, domCatalog, domSchema, domName, sv(ti.cx.db), udtSchema, udtNm}
}

// builtinDataType is data_type of a built-in type: 'ARRAY' for an array,
// else format_type(oid, NULL).
func builtinDataType(oid uint32) string {
	if types.IsArray(oid) {
		return "ARRAY"
	}
	return dataType(Column{TypeOID: oid, TypeMod: -1, TypeName: typname(oid)}) // catalog.go
}

// The information_schema._pg_* functions of the type columns, on the
// column's true type (a domain's base type) and typmod.

func charMaxLength(oid uint32, mod int32) *string {
	switch {
	case mod == -1:
		return nil
	case oid == oidBpchar || oid == oidVarchar:
		return iv(int64(mod) - 4)
	case oid == types.Bit || oid == types.Varbit:
		return iv(int64(mod))
	}
	return nil
}

func charOctetLength(oid uint32, mod int32, encMax int64) *string {
	switch {
	case oid != oidText && oid != oidBpchar && oid != oidVarchar:
		return nil
	case mod == -1:
		return iv(1 << 30)
	case encMax == 0:
		return pgUnknown
	}
	return iv((int64(mod) - 4) * encMax)
}

func numericPrecision(oid uint32, mod int32) *string {
	switch oid {
	case oidInt2:
		return iv(16)
	case oidInt4:
		return iv(32)
	case oidInt8:
		return iv(64)
	case oidFloat4:
		return iv(24)
	case oidFloat8:
		return iv(53)
	case oidNumeric:
		if mod == -1 {
			return nil
		}
		return iv(int64(((mod - 4) >> 16) & 65535))
	}
	return nil
}

func numericPrecisionRadix(oid uint32) *string {
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidFloat4, oidFloat8:
		return iv(2)
	case oidNumeric:
		return iv(10)
	}
	return nil
}

func numericScale(oid uint32, mod int32) *string {
	switch oid {
	case oidInt2, oidInt4, oidInt8:
		return iv(0)
	case oidNumeric:
		if mod == -1 {
			return nil
		}
		return iv(int64((mod - 4) & 65535))
	}
	return nil
}

func datetimePrecision(oid uint32, mod int32) *string {
	switch oid {
	case oidDate:
		return iv(0)
	case oidTime, types.Timetz, oidTimestamp, oidTimestamptz:
		if mod < 0 {
			return iv(6)
		}
		return iv(int64(mod))
	case oidInterval:
		if mod < 0 || mod&65535 == 65535 {
			return iv(6)
		}
		return iv(int64(mod & 65535))
	}
	return nil
}

// intervalType is upper(substring(format_type(oid, mod) similar
// 'interval[()0-9]* #"%#"' escape '#')) for an interval: its fields
// ("DAY TO SECOND(2)"), NULL without.
func intervalType(oid uint32, mod int32) (*string, error) {
	if oid != oidInterval {
		return nil, nil
	}
	v, err := formatTypeOf(int64(oid), int64(mod)) // pgcatalog_plan.go
	if err != nil {
		return nil, err
	}
	s, _ := v.(string)
	rest, ok := strings.CutPrefix(s, "interval")
	if !ok {
		return nil, nil
	}
	rest = strings.TrimLeft(rest, "()0123456789")
	if !strings.HasPrefix(rest, " ") {
		return nil, nil
	}
	return sv(strings.ToUpper(rest[1:])), nil
}

// The catalog's listing views of indexes, views and foreign keys:
// pg_indexes, pg_views and information_schema.referential_constraints,
// from the followed tables' index, view and constraint facts. pg_indexes
// and pg_views list PostgreSQL's own indexes and views too: restricted
// like pg_tables (proveInfoSchema: schemaname, tablename, indexname,
// viewname). Definitions were read under search_path public: answered
// under a path whose first existing schema is public (as pg_get_indexdef
// and pg_get_viewdef), unknown otherwise.
var catalogListingRels = []*pgRel{
	{schema: "pg_catalog", name: "pg_indexes",
		cols: pgc("schemaname name, tablename name, indexname name, tablespace name, indexdef text"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			public := cx.publicFirst()
			for _, t := range cx.tables {
				s := schemaFactsOf(&t)
				if s == nil {
					out = append(out, []*string{sv(t.Schema), sv(t.Rel), pgUnknown, pgUnknown, pgUnknown})
					continue
				}
				for _, x := range s.Indexes {
					def := pgUnknown
					if public {
						def = sv(x.Def)
					}
					// tablespace NULL: pg_class.reltablespace is served as
					// 0 for indexes too (indexClassRows).
					out = append(out, []*string{sv(t.Schema), sv(t.Rel), sv(x.Name), nil, def})
				}
			}
			return out
		}},
	{schema: "pg_catalog", name: "pg_views",
		cols: pgc("schemaname name, viewname name, viewowner name, definition text"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			public := cx.publicFirst()
			_, ns := cx.namespaces()
			for _, v := range listedViews(cx.tables, ns) { // pgcatalog_views.go
				if v.Kind != 'v' {
					continue // pg_matviews lists materialized views
				}
				owner, def := pgUnknown, pgUnknown
				if v.Owner != "" {
					owner = sv(v.Owner)
				}
				if public {
					def = sv(v.Def)
				}
				out = append(out, []*string{sv(v.Schema), sv(v.Name), owner, def})
			}
			return out
		}},
	{schema: "information_schema", name: "referential_constraints",
		cols: pgc("constraint_catalog name, constraint_schema name, constraint_name name, unique_constraint_catalog name, " +
			"unique_constraint_schema name, unique_constraint_name name, match_option varchar, update_rule varchar, delete_rule varchar"),
		rows: func(cx *pgCatCtx) [][]*string {
			var out [][]*string
			db := sv(cx.db)
			for i := range cx.tables {
				t := &cx.tables[i]
				s := schemaFactsOf(t)
				if s == nil {
					out = append(out, unknownRow(9))
					continue
				}
				if referencedElsewhere(cx.tables, s) { // pgcatalog_schema.go: a table not followed references t
					out = append(out, unknownRow(9))
				}
				for _, k := range s.Constraints {
					if k.Type != 'f' {
						continue
					}
					uschema, uname := uniqueConstraintOf(cx.tables, &k)
					var ucatalog *string
					if uschema != nil {
						ucatalog = db
						if uschema == pgUnknown {
							ucatalog = pgUnknown
						}
					}
					out = append(out, []*string{db, sv(t.Schema), sv(k.Name), ucatalog, uschema, uname,
						matchOption(k.MatchType), refAction(k.UpdateAction), refAction(k.DeleteAction)})
				}
			}
			// The foreign keys of the tables sidecar does not follow.
			return append(out, unfollowedTableRows(cx, 9, func(row []*string, db, sch, _ *string) { row[0], row[1] = db, sch })...) // catalog_infoschema.go
		}},
}

// publicFirst says whether the first schema of the session's path that
// exists is public: definitions read under search_path public print the
// same under it (vecCatalog.defaultPath's rule).
func (cx *pgCatCtx) publicFirst() bool {
	_, ns := cx.namespaces()
	for _, p := range cx.path {
		if p == "public" {
			return true
		}
		if _, ok := ns[p]; ok && p != "pg_catalog" {
			return false
		}
	}
	return false
}

// uniqueConstraintOf names the referenced table's primary key or unique
// constraint whose index the foreign key k uses (conindid), as
// referential_constraints' unique_constraint_schema and _name; unknown
// when the referenced table is not followed, NULL when its index backs
// no constraint (a unique index alone).
func uniqueConstraintOf(tables []Table, k *wal.ConstraintFacts) (schema, name *string) {
	for i := range tables {
		t := &tables[i]
		if t.OID != k.RefOID {
			continue
		}
		s := schemaFactsOf(t)
		if s == nil {
			return pgUnknown, pgUnknown
		}
		for _, c := range s.Constraints {
			if (c.Type == 'p' || c.Type == 'u') && c.Index == k.Index {
				return sv(t.Schema), sv(c.Name)
			}
		}
		return nil, nil
	}
	return pgUnknown, pgUnknown
}

// matchOption is referential_constraints.match_option of confmatchtype.
func matchOption(m byte) *string {
	switch m {
	case 'f':
		return sv("FULL")
	case 'p':
		return sv("PARTIAL")
	case 's':
		return sv("NONE")
	}
	return pgUnknown
}

// refAction is update_rule/delete_rule of confupdtype/confdeltype.
func refAction(a byte) *string {
	switch a {
	case 'c':
		return sv("CASCADE")
	case 'n':
		return sv("SET NULL")
	case 'd':
		return sv("SET DEFAULT")
	case 'r':
		return sv("RESTRICT")
	case 'a':
		return sv("NO ACTION")
	}
	return pgUnknown
}
