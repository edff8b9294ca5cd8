package sqlfront

import (
	"strconv"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// pg_type lists the built-in types sidecar serves (catalogTypes and
// their arrays); PostgreSQL's pg_type has every built-in type (601 to
// 621 rows on 14 to 18: ranges, geometric types, pseudo-types, the
// system catalogs' and information_schema's row types and domains) and
// the database's own (the tables' and views' row types, enums,
// domains). So a pg_type scan is answered only when the rows it can
// reach are provably rows sidecar lists or rows no PostgreSQL has: a
// condition applied to its rows restricts
//
//   - oid to served types' OIDs (constants, or a proven scan's column
//     holding only such OIDs: pg_type.typelem/typarray, the followed
//     columns' pg_attribute.atttypid), or
//   - typname to served types' names or to names no built-in type of
//     PostgreSQL 14 to 18 has and no followed relation or column type
//     has (psycopg2's probe for hstore answers no rows, as PostgreSQL
//     without the extension does), or
//   - typtype to 'e' or 'd' when the database's domains and enums were
//     read (pgcatalog_usertypes.go: pg_type lists them all, used by a
//     followed column or not) and every followed column's type is
//     built-in (OID below 16384: never a domain or enum) or listed — a
//     type created after the read is not (PostgreSQL has no built-in
//     enum; its built-in domains are information_schema's, which pg_type
//     lists as the copy read them).
//
// Anything else is refused 0A000: `WHERE typname = 'int4range'` and
// `WHERE typtype = 'b'` answered fewer rows than PostgreSQL before.

// builtinTypeNames are the names of PostgreSQL's built-in types (OID
// below 16384) on majors 14 to 18 other than those starting with pg_
// or _ (system catalogs' row types and array types: such a name is
// never proven absent).
var builtinTypeNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`
aclitem administrable_role_authorizations any anyarray anycompatible anycompatiblearray anycompatiblemultirange
anycompatiblenonarray anycompatiblerange anyelement anyenum anymultirange anynonarray anyrange applicable_roles
attributes bit bool box bpchar bytea cardinal_number char character_data character_sets check_constraint_routine_usage
check_constraints cid cidr circle collation_character_set_applicability collations column_column_usage
column_domain_usage column_options column_privileges column_udt_usage columns constraint_column_usage
constraint_table_usage cstring data_type_privileges date datemultirange daterange domain_constraints domain_udt_usage
domains element_types enabled_roles event_trigger fdw_handler float4 float8 foreign_data_wrapper_options
foreign_data_wrappers foreign_server_options foreign_servers foreign_table_options foreign_tables gtsvector
index_am_handler inet information_schema_catalog_name int2 int2vector int4 int4multirange int4range int8 int8multirange
int8range internal interval json jsonb jsonpath key_column_usage language_handler line lseg macaddr macaddr8 money name
numeric nummultirange numrange oid oidvector parameters path point polygon record refcursor referential_constraints
regclass regcollation regconfig regdictionary regnamespace regoper regoperator regproc regprocedure regrole regtype
role_column_grants role_routine_grants role_table_grants role_udt_grants role_usage_grants routine_column_usage
routine_privileges routine_routine_usage routine_sequence_usage routine_table_usage routines schemata sequences
sql_features sql_identifier sql_implementation_info sql_parts sql_sizing table_am_handler table_constraints
table_privileges tables text tid time time_stamp timestamp timestamptz timetz transforms trigger
triggered_update_columns triggers tsm_handler tsmultirange tsquery tsrange tstzmultirange tstzrange tsvector
txid_snapshot udt_privileges unknown usage_privileges user_defined_types user_mapping_options user_mappings uuid varbit
varchar view_column_usage view_routine_usage view_table_usage views void xid xid8 xml yes_or_no`) {
		m[n] = true
	}
	return m
}()

// servedTypes are the OIDs and names of pg_type's rows (pgcatalog.go).
type servedTypes struct {
	oids  map[uint32]bool
	names map[string]bool
}

// servedTypeSet reads pg_type's rows: the served types and their
// arrays, information_schema's domains and theirs when read.
func servedTypeSet(tables []Table) servedTypes {
	s := servedTypes{oids: map[uint32]bool{}, names: map[string]bool{}}
	for _, row := range catalogDef("pg_catalog", "pg_type").rows(&pgCatCtx{tables: tables}) {
		n, _ := strconv.ParseUint(*row[0], 10, 32)
		s.oids[uint32(n)], s.names[*row[1]] = true, true
	}
	return s
}

// typeFacts are what a pg_type proof needs of the followed tables: the
// names of user types PostgreSQL has (row types of tables and views,
// their arrays, the followed columns' types sidecar does not list),
// whether every followed column's type is listed, and whether the
// domains and enums pg_type lists are all the database has (as read).
type typeFacts struct {
	served    servedTypes
	userNames map[string]bool
	allServed bool
	// userTypes says the database's domains and enums were read and every
	// followed column's type is built-in or one of them (typeKnown).
	userTypes bool
	// domains says information_schema's domains were read (pg_type
	// lists them: PostgreSQL's only built-in domains).
	domains bool
	// unnamedTypes says a view's column has a user type pg_type does
	// not list (its name is not read).
	unnamedTypes bool
	// others says the database's other types were read (composite,
	// range, base and shell types: pgcatalog_typedetail.go), elemsServed
	// that every listed type's typelem is 0 or a listed type, basesServed
	// the same of typbasetype, collationsRead that every listed type's
	// typcollation is a pg_collation row.
	others, elemsServed, basesServed, collationsRead bool
}

func (r *reach) typeFacts() *typeFacts {
	if r.types != nil {
		return r.types
	}
	f := &typeFacts{served: servedTypeSet(r.tableList), userNames: map[string]bool{}, allServed: true, domains: systemTypes(r.tableList) != nil,
		userTypes: userTypes(r.tableList) != nil && columnTypesKnown(r.tableList)}
	f.others, f.collationsRead = typeDetail(r.tableList) != nil, listedCollationsRead(r.tableList) // pgcatalog_typedetail.go
	f.elemsServed, f.basesServed = true, true
	for _, t := range listedTypes(r.tableList) {
		f.elemsServed = f.elemsServed && (t.Elem == 0 || f.served.oids[t.Elem])
		f.basesServed = f.basesServed && (t.BaseType == 0 || f.served.oids[t.BaseType])
	}
	for n := range r.tableNames {
		f.userNames[n], f.userNames["_"+n] = true, true
	}
	for n := range r.indexNames { // views (and, harmlessly, indexes and sequences)
		f.userNames[n], f.userNames["_"+n] = true, true
	}
	for _, t := range r.tableList {
		cols, ok := tableColumnsView(&t) // catalog_columns.go: the generated columns' types too
		f.allServed = f.allServed && ok
		for _, c := range cols {
			if !f.served.oids[c.TypeOID] {
				f.allServed = false
				name := c.TypeName
				if i := strings.LastIndexByte(name, '.'); i >= 0 {
					name = name[i+1:]
				}
				name = strings.Trim(strings.TrimSuffix(name, "[]"), "\"")
				f.userNames[name], f.userNames["_"+name] = true, true
			}
		}
	}
	// The listed views' columns (pg_attribute lists them too,
	// pgcatalog_viewcols.go): their types must be served as well.
	_, ns := (&pgCatCtx{tables: r.tableList}).namespaces()
	for _, v := range listedViews(r.tableList, ns) {
		for _, c := range v.Columns {
			f.allServed = f.allServed && f.served.oids[c.TypeOID]
			// A type of the database's own sidecar does not list, known
			// only by its OID: no typname can be proven absent.
			f.unnamedTypes = f.unnamedTypes || c.TypeOID >= firstNormalOID && !f.served.oids[c.TypeOID]
		}
	}
	r.types = f
	return f
}

// proveType says whether the conditions on a pg_type scan's rows
// restrict it to rows sidecar lists or no PostgreSQL has.
func (r *reach) proveType(s *lplan.Scan) bool {
	f := r.typeFacts()
	if r.proveUserSchemaTypes(s) { // pgcatalog_typedetail.go: psql's \dT
		return true
	}
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || op != "=" && op != "in" {
			continue
		}
		switch col {
		case "oid":
			if r.servedTypeOIDs(other, 0) {
				return true
			}
		case "typname":
			if len(other) == 0 {
				continue
			}
			all := !f.unnamedTypes
			for _, o := range other {
				k, ok := constText([]lplan.Scalar{o})
				all = all && ok && !f.userNames[k] && (f.served.names[k] ||
					!builtinTypeNames[k] && !strings.HasPrefix(k, "pg_") && !strings.HasPrefix(k, "_"))
			}
			if all {
				return true
			}
		case "typtype":
			if f.domainsOrEnums(other) {
				return true
			}
		}
	}
	return false
}

// domainsOrEnums says whether typtype's values other are constants 'e'
// and 'd' whose pg_type rows are all listed (the user types read, every
// followed column's type known; information_schema's domains read).
func (f *typeFacts) domainsOrEnums(other []lplan.Scalar) bool {
	all := f.userTypes && len(other) > 0
	for _, o := range other {
		k, ok := constText([]lplan.Scalar{o})
		all = all && ok && (k == "e" || k == "d" && f.domains)
	}
	return all
}

// servedTypeOIDs says whether every value of vals is a served type's
// OID: a constant, or a column of a proven scan holding only such OIDs.
func (r *reach) servedTypeOIDs(vals []lplan.Scalar, depth int) bool {
	f := r.typeFacts()
	return r.allVals(vals, depth, func(k string) bool {
		n, err := strconv.ParseUint(strings.TrimSpace(k), 10, 32)
		return err == nil && f.served.oids[uint32(n)]
	}, func(src colSource) bool {
		switch src.rel.name + "." + src.name {
		case "pg_type.oid", "pg_type.typarray":
			return true // a proven pg_type scan's rows are served types (0: no type)
		case "pg_type.typelem":
			return f.elemsServed // every listed type's is 0 or listed
		case "pg_type.typbasetype":
			return f.basesServed
		case "pg_attribute.atttypid":
			// The followed columns' types, and the system columns' (oid,
			// tid, xid, cid: not served) unless attnum > 0 excludes them.
			return f.allServed && r.userColumnsOnly(src.scan)
		}
		return false
	})
}

// userColumnsOnly says whether a pg_attribute scan's conditions restrict
// attnum to positive numbers (the system columns' are negative): > or
// >= a constant, or = constants or columns whose every definition is a
// positive constant.
func (r *reach) userColumnsOnly(s *lplan.Scan) bool {
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || col != "attnum" {
			continue
		}
		if (op == "=" || op == "in") && r.allVals(other, 0, func(k string) bool {
			n, err := strconv.ParseInt(strings.TrimSpace(k), 10, 64)
			return err == nil && n >= 1
		}, func(colSource) bool { return false }) {
			return true // pgjdbc's "a.attnum = vals.attnum" over a VALUES list of positive numbers
		}
		k, ok := constText(other)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(k), 10, 64)
		if err == nil && (op == ">" && n >= 0 || op == ">=" && n >= 1 || op == "=" && n >= 1) {
			return true
		}
	}
	return false
}

// systemTypeVisible is pg_type_is_visible of one of the types pg_type
// lists beside the served ones (ok false for another OID): for
// information_schema's, whether information_schema is on the search
// path (pg_catalog has no type of their names), refused when a followed
// relation of its name (a row type) could hide it; for the database's
// domains and enums, userTypeVisible (pgcatalog_usertypes.go).
func systemTypeVisible(tables []Table, path []string, oid uint32) (types.Value, bool) {
	for _, t := range systemTypes(tables) {
		if t.OID != oid {
			continue
		}
		for _, p := range path {
			if p == "information_schema" {
				return true, true
			}
			for _, r := range catalogRels(tables) {
				if r.schema == p && (r.name == t.Name || "_"+r.name == t.Name) {
					return nil, false
				}
			}
		}
		return false, true
	}
	if vis, ok := userTypeVisible(tables, path, oid); ok {
		return vis, true
	}
	return nil, false
}
