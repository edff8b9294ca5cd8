package sqlfront

import (
	"strconv"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// PostgreSQL's own objects in the catalog relations. pg_class,
// pg_attribute, pg_index, pg_constraint and pg_description list only
// the followed tables' objects; PostgreSQL lists its system catalogs,
// views, indexes, TOAST tables and information_schema's relations there
// too (about 400 relations; their OIDs are all below 16384,
// FirstNormalObjectId, on every major). So a statement over one of those
// relations is answered only when the rows it can reach are provably
// user objects: a condition applied to the relation's rows restricts a
// key column to OIDs >= 16384, relname to a name no system relation has,
// relnamespace to a schema holding no system relation, or equates the
// key column with such a proven relation's column. Otherwise it is
// refused 0A000 — `SELECT oid FROM pg_class WHERE relname = 'pg_class'`
// answered no rows before.

// firstNormalOID is PostgreSQL's FirstNormalObjectId: every object
// initdb creates has a smaller OID, every user object a larger one.
const firstNormalOID = 16384

// systemKeyCols are the catalog relations lacking PostgreSQL's own rows,
// with the columns whose values name the (user) object a row belongs to:
// a proven row's value there is a user object's OID.
var systemKeyCols = map[string][]string{
	"pg_class":       {"oid"},
	"pg_attribute":   {"attrelid"},
	"pg_index":       {"indexrelid", "indrelid"},
	"pg_constraint":  {"oid", "conrelid", "confrelid", "conindid"},
	"pg_description": {"objoid"},
	"pg_settings":    nil, // by name (pgcatalog_settings.go)
	"pg_proc":        {"oid"},
	"pg_operator":    {"oid"}, // pgcatalog_listings.go
	"pg_collation":   nil,     // proven by OID or schema (pgcatalog_typedetail.go)
	// information_schema's constraint views (catalog_infoschema.go) list
	// the system catalogs' primary keys, unique and NOT NULL constraints
	// to a superuser: proven by schema, table name or constraint type.
	"table_constraints": nil, "key_column_usage": nil, "constraint_column_usage": nil,
	// information_schema.tables and .columns and pg_tables list the
	// system catalogs and information_schema's relations too
	// (catalog_infoschema_tables.go): proven by schema or table name.
	"tables": nil, "columns": nil, "pg_tables": nil, "pg_indexes": nil, "pg_views": nil,
}

// infoSchemaRelations are information_schema's relation names not
// starting with pg_ (the same 69 on PostgreSQL 14 to 18; every
// pg_catalog and pg_toast relation's name starts with pg_).
var infoSchemaRelations = strings.Fields(`_pg_foreign_data_wrappers _pg_foreign_servers _pg_foreign_table_columns
_pg_foreign_tables _pg_user_mappings administrable_role_authorizations applicable_roles attributes character_sets
check_constraint_routine_usage check_constraints collation_character_set_applicability collations column_column_usage
column_domain_usage column_options column_privileges column_udt_usage columns constraint_column_usage
constraint_table_usage data_type_privileges domain_constraints domain_udt_usage domains element_types enabled_roles
foreign_data_wrapper_options foreign_data_wrappers foreign_server_options foreign_servers foreign_table_options
foreign_tables information_schema_catalog_name key_column_usage parameters referential_constraints
role_column_grants role_routine_grants role_table_grants role_udt_grants role_usage_grants routine_column_usage
routine_privileges routine_routine_usage routine_sequence_usage routine_table_usage routines schemata sequences
sql_features sql_implementation_info sql_parts sql_sizing table_constraints table_privileges tables transforms
triggered_update_columns triggers udt_privileges usage_privileges user_defined_types user_mapping_options
user_mappings view_column_usage view_routine_usage view_table_usage views`)

// systemNamespaces are the schemas holding PostgreSQL's own relations.
var systemNamespaces = []string{"pg_catalog", "pg_toast", "information_schema"}

// colSource is a scan column: its scan and column name.
type colSource struct {
	scan *lplan.Scan
	rel  *pgRel
	name string
}

// reach is the analysis of one statement's plan.
type reach struct {
	cols     map[lplan.ColumnID]colSource
	rels     map[*lplan.Scan]*pgRel
	known    map[uint32]bool                // the OIDs of the objects sidecar's catalog lists
	seqs     []string                       // the followed tables' owned sequences (pg_class lacks them)
	settings map[string]bool                // the names pg_settings lists
	restr    map[*lplan.Scan][]lplan.Scalar // conditions applied to each scan's rows
	defs     map[lplan.ColumnID][]lplan.Scalar
	proven   map[*lplan.Scan]bool
	scans    []*lplan.Scan
	// tables are the followed tables' OIDs, tableOnly the proven pg_class
	// scans whose rows are tables (not indexes): pg_attribute and
	// pg_description lack the rows of indexes and constraints.
	tables    map[uint32]bool
	tableOnly map[*lplan.Scan]bool
	// views and viewNames are the listed views' OIDs and names:
	// pg_attribute lists their columns (pgcatalog_viewcols.go).
	views     map[uint32]bool
	viewNames map[string]bool
	// classNames are the listed indexes' and owned sequences' names.
	classNames map[string]bool
	// viewDescs: pg_description lists every listed view's comments (its
	// column comments were read: pgcatalog_viewdesc.go); descViews: a
	// pg_description scan is being proven, whose rows of a view are then
	// known.
	viewDescs, descViews bool
	// partitioned: pg_class lists partitioned tables above followed
	// partitions (pgcatalog_partitioned.go), whose pg_attribute and
	// pg_description rows are not listed: relkind 'p' is not a table's.
	partitioned bool
	// partOIDs are those partitioned tables' and their partitioned
	// indexes' OIDs: pg_class lists them, pg_index, pg_constraint,
	// pg_attribute and pg_description do not (proving names the
	// relation being proven).
	partOIDs map[uint32]bool
	// classOnlyKinds are the relkinds of the relations pg_class lists
	// alone (partOIDs: partitioned tables and indexes, the relations of
	// the relation list, pgcatalog_relations.go).
	classOnlyKinds map[string]bool
	proving        string
	// partitionedFree: the scan being proven (pg_constraint) has no
	// rows of the partitioned tables' (pgcatalog_reach_partfk.go).
	partitionedFree bool
	// unfollowedTables: pg_class lists tables sidecar does not follow
	// (pgcatalog_relations.go), whose constraints it does not read.
	unfollowedTables bool
	visiting         map[*lplan.Scan]bool
	// tableNames and indexNames are the followed tables' and their
	// listed owned sequences' and
	// indexes' names.
	tableNames, indexNames map[string]bool
	// tableList are the followed tables; types is what pg_type proofs
	// read of them (pgcatalog_types.go), built on first use.
	tableList []Table
	types     *typeFacts
	// paramChecks are the conditions on parameters' values the proofs
	// took (pgcatalog_params.go).
	paramChecks []paramCheck
	// path is the session's search path (pg_table_is_visible's proof,
	// pgcatalog_access_reach.go).
	path []string
	// root is the statement's plan (pgcatalog_typedetail.go reads its
	// anti joins).
	root lplan.Rel
	// attr is which relations pg_class lists alone have pg_attribute
	// rows (their columns were read: pgcatalog_partlists_cols.go).
	attr attrRels
}

// checkSystemRows refuses a statement that can reach rows PostgreSQL
// has and sidecar's catalog lacks (its system objects).
func (c *vecCatalog) checkSystemRows(q *lplan.Query) error {
	r := &reach{cols: map[lplan.ColumnID]colSource{}, restr: map[*lplan.Scan][]lplan.Scalar{}, rels: map[*lplan.Scan]*pgRel{},
		defs: map[lplan.ColumnID][]lplan.Scalar{}, proven: map[*lplan.Scan]bool{}, known: map[uint32]bool{}, tables: map[uint32]bool{},
		tableOnly: map[*lplan.Scan]bool{}, visiting: map[*lplan.Scan]bool{}, tableNames: map[string]bool{}, indexNames: map[string]bool{},
		views: map[uint32]bool{}, viewNames: map[string]bool{}, classNames: map[string]bool{}}
	r.settings = map[string]bool{}
	for _, row := range settingRows(c.pl.sess.allSettings(), c.pl.src.Tables()) {
		r.settings[*row[0]] = true
	}
	_, ns := (&pgCatCtx{tables: c.pl.src.Tables()}).namespaces()
	r.tableList, r.path = c.pl.src.Tables(), c.searchPath()
	for _, t := range r.tableList {
		r.known[t.OID], r.tables[t.OID], r.tableNames[t.Rel] = true, true, true
		if s := schemaFactsOf(&t); s != nil {
			for _, x := range s.Indexes {
				r.known[x.OID], r.indexNames[x.Name], r.classNames[x.Name] = true, true, true
			}
			for _, k := range s.Constraints {
				r.known[k.OID] = true
			}
			for _, q := range listedSequences(&t, ns) { // pgcatalog_seq.go
				r.known[q.OID], r.indexNames[q.Name], r.classNames[q.Name] = true, true, true // not a table: pg_attribute and pg_description lack its rows
			}
			r.seqs = append(r.seqs, unlistedSequences(&t, ns)...)
		}
	}
	parts, _ := partitionedClasses(r.tableList) // pgcatalog_partitioned.go: not tables (pg_attribute and pg_description lack their rows)
	r.partitioned, r.partOIDs = len(parts) > 0, map[uint32]bool{}
	for _, a := range parts {
		r.known[a.OID], r.indexNames[a.Name], r.classNames[a.Name], r.partOIDs[a.OID] = true, true, true, true
		for _, x := range a.Indexes {
			r.known[x.OID], r.indexNames[x.Name], r.classNames[x.Name], r.partOIDs[x.OID] = true, true, true, true
		}
	}
	r.classOnlyKinds = map[string]bool{}
	if r.partitioned {
		r.classOnlyKinds["p"], r.classOnlyKinds["I"] = true, true
	}
	if l := relationList(r.tableList); l != nil && l.Relations != nil { // pgcatalog_relations.go: pg_class's rows alone
		r.seqs = nil // every sequence is listed
		for _, x := range listedOnlyRelations(r.tableList) {
			r.known[x.OID], r.indexNames[x.Name], r.classNames[x.Name], r.partOIDs[x.OID] = true, true, true, true
			r.partitioned, r.classOnlyKinds[charText(x.Kind)] = true, true
			// An unfollowed table may have foreign keys pg_constraint
			// does not list: partitionedFree (pgcatalog_reach_partfk.go)
			// holds for partitioned tables above followed partitions only.
			r.unfollowedTables = r.unfollowedTables || x.Kind == 'r' || x.Kind == 'p'
		}
	}
	r.viewDescs = viewDescriptionsRead(r.tableList, ns)    // pgcatalog_viewdesc.go
	for _, v := range listedViews(c.pl.src.Tables(), ns) { // pgcatalog_views.go
		r.known[v.OID], r.indexNames[v.Name] = true, true // pg_description lacks its rows
		r.views[v.OID], r.viewNames[v.Name] = true, true
	}
	r.attr = classOnlyAttrRels(r.tableList, r.tables, r.views) // pgcatalog_partlists_cols.go
	r.root = q.Plan
	r.walk(c, q.Plan, nil)
	for changed := true; changed; {
		changed = false
		for _, s := range r.scans {
			if !r.proven[s] && r.prove(s) {
				r.proven[s], changed = true, true
			}
		}
	}
	for _, s := range r.scans {
		rel := r.rels[s]
		if rel.name == "pg_type" && !r.proven[s] {
			return unsupported(-1, "reading pg_catalog.pg_type without a condition restricting it to the types sidecar serves "+
				"(its catalog lists the built-in types it serves, not all of PostgreSQL's nor the tables' row types: restrict by oid or typname)")
		}
		if _, lacking := systemKeyCols[rel.name]; lacking && !r.proven[s] && rel.name == "pg_settings" {
			return unsupported(-1, "reading pg_catalog.pg_settings without naming the settings read (WHERE name = …; sidecar lists the settings it keeps, not all of PostgreSQL's)")
		}
		if _, lacking := systemKeyCols[rel.name]; lacking && !r.proven[s] {
			return unsupported(-1, "reading "+rel.schema+"."+rel.name+" without a condition restricting it to user objects "+
				"(sidecar's catalog lists the followed tables' objects, not PostgreSQL's own system catalogs: restrict by oid, name or schema)")
		}
	}
	c.paramChecks = r.paramChecks
	r.markDomainConstraintOrder(q.Plan) // pgcatalog_typedetail.go
	return nil
}

// walk notes rel's catalog scans, the conditions applied to their rows
// (inherited: those of the operators above that filter the rows of
// this subtree) and the constant definitions of columns.
func (r *reach) walk(c *vecCatalog, rel lplan.Rel, inherited []lplan.Scalar) {
	for _, e := range lplan.ExprsOf(rel) {
		r.walkSubqueries(c, e)
	}
	switch x := rel.(type) {
	case *lplan.Scan:
		v := c.virt[x.Table]
		if v == nil {
			return
		}
		r.scans = append(r.scans, x)
		r.rels[x] = v.rel
		for i, id := range x.Cols {
			r.cols[id] = colSource{scan: x, rel: v.rel, name: v.rel.cols[x.Ords[i]].name}
		}
		r.restr[x] = append(append([]lplan.Scalar(nil), inherited...), catConjuncts(x.Filter)...)
	case *lplan.Filter:
		r.walk(c, x.Input, append(append([]lplan.Scalar(nil), inherited...), catConjuncts(x.Pred)...))
	case *lplan.Project:
		for i, id := range x.Cols {
			r.defs[id] = append(r.defs[id], x.Exprs[i])
		}
		r.walk(c, x.Input, inherited)
	case *lplan.Sort, *lplan.Aggregate:
		r.walk(c, rel.Inputs()[0], inherited)
	case *lplan.Distinct:
		if len(x.On) > 0 {
			inherited = nil // DISTINCT ON keeps a row each group: a condition above does not restrict which
		}
		r.walk(c, x.Input, inherited)
	case *lplan.Join:
		on := catConjuncts(x.On)
		both := append(append([]lplan.Scalar(nil), inherited...), on...)
		left, right := inherited, inherited
		switch x.Kind {
		case lplan.InnerJoin, lplan.CrossJoin, lplan.SemiJoin:
			left, right = both, both
		case lplan.LeftJoin, lplan.AntiJoin:
			right = both
			if x.Kind == lplan.AntiJoin {
				// The rows it emits are left rows the conditions above
				// filter (they read no right column); its ON only drops
				// rows: the left keeps the conditions above, no ON. A NOT
				// EXISTS sql/opt put onto one pg_catalog scan of a FROM
				// list's joins (semipush.go: psql's \dT) is below those
				// joins' conditions.
				left = inherited
			} else if nullRejecting(inherited, x.Right.Columns()) {
				left = both // a condition above drops the NULL-extended rows: an inner join
			}
		case lplan.RightJoin:
			left = both
		case lplan.FullJoin:
			left, right = nil, nil
		}
		r.walk(c, x.Left, left)
		r.walk(c, x.Right, right)
	case *lplan.Values:
		for _, row := range x.Rows {
			for i, id := range x.Cols {
				r.defs[id] = append(r.defs[id], row[i])
			}
		}
	case *lplan.SetOp:
		for i, id := range x.Cols {
			r.defs[id] = append(r.defs[id], &lplan.ColRef{ID: x.LeftCols[i]}, &lplan.ColRef{ID: x.RightCols[i]})
		}
		r.walk(c, x.Left, nil)
		r.walk(c, x.Right, nil)
	case *lplan.With:
		for _, cte := range x.CTEs {
			r.walk(c, cte.Plan, nil)
		}
		r.walk(c, x.Body, inherited)
	default:
		for _, in := range rel.Inputs() {
			r.walk(c, in, nil)
		}
	}
}

// walkSubqueries walks the plans of e's subqueries (their conditions are
// their own).
func (r *reach) walkSubqueries(c *vecCatalog, e lplan.Scalar) {
	if e == nil {
		return
	}
	lplan.Walk(e, func(x lplan.Scalar) bool {
		if s, ok := x.(*lplan.Subquery); ok {
			r.walk(c, s.Plan, nil)
			if s.Kind == lplan.SubAny && s.Op == "=" && s.Left != nil && s.Col != nil {
				// x IN (SELECT col …): x takes col's values.
				if l, ok := strip(s.Left).(*lplan.ColRef); ok {
					r.defs[l.ID] = append(r.defs[l.ID], s.Col)
				}
			}
		}
		return true
	})
}

func catConjuncts(s lplan.Scalar) []lplan.Scalar {
	if s == nil {
		return nil
	}
	return lplan.Conjuncts(s)
}

// strip removes casts around a scalar.
func strip(s lplan.Scalar) lplan.Scalar {
	for {
		c, ok := s.(*lplan.Cast)
		if !ok {
			return s
		}
		s = c.Arg
	}
}

// prove says whether the conditions on s's rows restrict it to user
// objects.
func (r *reach) prove(s *lplan.Scan) bool {
	rel := r.rels[s]
	if rel.name == "pg_namespace" {
		return r.proveNamespace(s)
	}
	if r.proveAccess(s) { // pgcatalog_access_reach.go: psql's \dp
		return true
	}
	if rel.name == "pg_type" {
		return r.proveType(s) // pgcatalog_types.go
	}
	if rel.name == "pg_description" && r.extensionComments(s) { // pgcatalog_extensions.go
		return true
	}
	if rel.name == "pg_collation" {
		return r.proveCollation(s) // pgcatalog_typedetail.go
	}
	if (rel.name == "pg_constraint" || rel.name == "pg_description") && r.proveTypeDetail(s) { // pgcatalog_typedetail.go
		return true
	}
	if rel.name == "pg_sequence" {
		return true // PostgreSQL's own objects have none: its rows are the owned sequences pg_class lists
	}
	if rel.name == "pg_language" {
		return true // every language is listed (pgcatalog_language.go): its OIDs are known objects
	}
	if rel.schema == "information_schema" || rel.name == "pg_tables" || rel.name == "pg_indexes" || rel.name == "pg_views" {
		return r.proveInfoSchema(s)
	}
	if nsCol, ok := map[string]string{"pg_proc": "pronamespace", "pg_operator": "oprnamespace"}[rel.name]; ok {
		// The functions (operators) of schemas other than pg_catalog and
		// information_schema (pgcatalog_proc.go, pgcatalog_listings.go:
		// pg_toast has none).
		for _, cond := range r.restr[s] {
			if col, other, op, ok := r.comparison(cond, s); ok && col == nsCol && (op == "=" || op == "in") &&
				(r.userNamespaceOIDs(other, 0) || r.notSystemSchema(other)) {
				return true
			}
		}
		return false
	}
	r.proving = rel.name
	r.partitionedFree = rel.name == "pg_constraint" && !r.unfollowedTables && r.foreignKeysOnly(s) // pgcatalog_reach_partfk.go
	defer func() { r.proving, r.partitionedFree = "", false }()
	for _, cond := range r.restr[s] {
		if col, other, op, ok := r.comparison(cond, s); ok {
			switch {
			case isKeyCol(rel.name, col) && (op == "=" || op == "in"):
				if rel.name == "pg_class" && r.userOIDs(other, 0, true) {
					r.tableOnly[s] = true
					return true
				}
				r.descViews = rel.name == "pg_description"
				proven := r.userOIDs(other, 0, tablesOnly[rel.name])
				r.descViews = false
				if proven {
					return true
				}
				if rel.name == "pg_attribute" && r.attrRelOIDs(other) { // pgcatalog_viewcols.go
					return true
				}
			case rel.name == "pg_class" && col == "relname":
				if userName(op, other, append(r.seqs, infoSchemaRelations...)) || systemClassNames(op, other) { // pgcatalog_sysclass.go
					return true
				}
			case rel.name == "pg_settings" && col == "name" && (op == "=" || op == "in"):
				if r.settingNamed(other) {
					return true
				}
			case rel.name == "pg_class" && col == "relnamespace" && (op == "=" || op == "in"):
				// A user schema's relations include the owned sequences
				// pg_class lacks: proven only when there are none or the
				// scan's relkind excludes sequences (psql's \d lists them).
				if r.userNamespaceOIDs(other, 0) && (len(r.seqs) == 0 || r.noSequences(s)) {
					return true
				}
				// A schema other than pg_catalog and information_schema
				// (the BI tools' NOT IN) with relkinds pg_toast's
				// relations ('t', 'i') do not have: user relations.
				if kinds := r.relkinds(s); kinds != nil && !kinds["t"] && !kinds["i"] && r.notSystemSchema(other) && (len(r.seqs) == 0 || !kinds["S"]) {
					return true
				}
			}
		}
	}
	return false
}

// noSequences says whether s's conditions restrict pg_class.relkind to
// constants other than 'S' (a sequence).
func (r *reach) noSequences(s *lplan.Scan) bool {
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || col != "relkind" || (op != "=" && op != "in") {
			continue
		}
		if op == "=" {
			if k, ok := constText(other); ok && k != "S" {
				return true
			}
			continue
		}
		all := len(other) > 0
		for _, v := range other {
			if k, ok := constText([]lplan.Scalar{v}); !ok || k == "S" {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

// proveNamespace says whether a pg_namespace scan's rows exclude the
// schemas holding system relations.
func (r *reach) proveNamespace(s *lplan.Scan) bool {
	if r.nsExcluded(s) == nil {
		return true
	}
	return len(r.nsExcluded(s)) == len(systemNamespaces)
}

// nsExcluded is the set of system schemas a pg_namespace scan's
// conditions exclude by name (nspname <> 'pg_catalog', NOT IN (…),
// !~ '^pg_toast', NOT LIKE 'pg_toast%'), or nil when they restrict it to
// user schemas outright (by OID or name).
func (r *reach) nsExcluded(s *lplan.Scan) map[string]bool {
	excluded := map[string]bool{}
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok {
			continue
		}
		switch {
		case col == "oid" && (op == "=" || op == "in"):
			if r.userNamespaceOIDs(other, 0) {
				return nil
			}
		case col == "nspname" && op == "notin":
			for _, o := range other {
				if k, ok := constText([]lplan.Scalar{o}); ok && (k == "pg_catalog" || k == "information_schema" || k == "pg_toast") {
					excluded[k] = true
				}
			}
		case col == "nspname":
			if userName(op, other, []string{"information_schema"}) {
				return nil
			}
			if k, ok := constText(other); ok {
				switch {
				case op == "<>" && (k == "pg_catalog" || k == "information_schema" || k == "pg_toast"):
					excluded[k] = true
				case op == "textregexne" || op == "!~~":
					for _, sys := range systemNamespaces { // pgcatalog_nsexclude.go
						match, decided := regexExcludes(k, sys)
						if op == "!~~" {
							match, decided = likeExcludes(k, sys)
						}
						if decided && match {
							excluded[sys] = true
						}
					}
				}
			}
		}
	}
	return excluded
}

// notSystemSchema says whether every value of vals is the OID of a
// pg_namespace row of a scan excluding pg_catalog and
// information_schema by name (pg_toast may remain: it holds only TOAST
// tables and their indexes, relkinds 't' and 'i').
func (r *reach) notSystemSchema(vals []lplan.Scalar) bool {
	for _, v := range vals {
		c, ok := strip(v).(*lplan.ColRef)
		if !ok {
			return false
		}
		src, ok := r.cols[c.ID]
		if !ok || src.rel.name != "pg_namespace" || src.name != "oid" {
			return false
		}
		if ex := r.nsExcluded(src.scan); ex != nil && (!ex["pg_catalog"] || !ex["information_schema"]) {
			return false
		}
	}
	return len(vals) > 0
}

// relkinds is the set of constants a pg_class scan's conditions restrict
// relkind to (= or IN), or nil when they do not.
func (r *reach) relkinds(s *lplan.Scan) map[string]bool {
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || col != "relkind" || (op != "=" && op != "in") {
			continue
		}
		set := map[string]bool{}
		for _, v := range other {
			k, ok := constText([]lplan.Scalar{v})
			if !ok {
				set = nil
				break
			}
			set[k] = true
		}
		if set != nil {
			return set
		}
	}
	return nil
}

// comparison reads cond as "column of s op other": the column's name,
// the other operand (or IN list, op "in") and the operator.
func (r *reach) comparison(cond lplan.Scalar, s *lplan.Scan) (col string, other []lplan.Scalar, op string, ok bool) {
	mine := func(x lplan.Scalar) (string, bool) {
		if c, ok := strip(x).(*lplan.ColRef); ok {
			if src, ok := r.cols[c.ID]; ok && src.scan == s {
				return src.name, true
			}
		}
		return "", false
	}
	switch x := cond.(type) {
	case *lplan.Op:
		if len(x.Args) != 2 {
			return
		}
		if n, ok := mine(x.Args[0]); ok {
			return n, x.Args[1:], x.Op, true
		}
		if n, ok := mine(x.Args[1]); ok && (x.Op == "=" || x.Op == "<>") {
			return n, x.Args[:1], x.Op, true
		}
	case *lplan.Func:
		if len(x.Args) == 2 {
			if n, ok := mine(x.Args[0]); ok {
				return n, x.Args[1:], x.Name, true
			}
		}
	case *lplan.InList:
		if n, ok := mine(x.Arg); ok {
			if x.Not {
				return n, x.List, "notin", true
			}
			return n, x.List, "in", true
		}
	case *lplan.Subquery:
		if x.Kind == lplan.SubAny && x.Op == "=" && x.Col != nil {
			if n, ok := mine(x.Left); ok {
				return n, []lplan.Scalar{x.Col}, "in", true
			}
		}
	case *lplan.BoolOp:
		return r.orEqualities(x, s)
	}
	return
}

// orEqualities reads "col = a OR col = b …" (each disjunct an equality
// of the same column of s, or an IN list of it) as "col IN (a, b, …)":
// pgjdbc's getImportedKeys writes (pkic.relkind = 'i' OR pkic.relkind
// = 'I'), which the proofs read as a relkind set.
func (r *reach) orEqualities(x *lplan.BoolOp, s *lplan.Scan) (col string, other []lplan.Scalar, op string, ok bool) {
	if x.Op != "OR" || len(x.Args) < 2 {
		return "", nil, "", false
	}
	for _, a := range x.Args {
		c, o, aop, aok := r.comparison(a, s)
		if !aok || aop != "=" && aop != "in" || col != "" && c != col {
			return "", nil, "", false
		}
		col, other = c, append(other, o...)
	}
	return col, other, "in", true
}

func isKeyCol(rel, col string) bool {
	for _, k := range systemKeyCols[rel] {
		if k == col {
			return true
		}
	}
	return false
}

// tablesOnly are the relations listing the rows of the followed tables
// (and their columns) but not of their indexes and constraints: a key
// proves their rows only when it is a table's OID.
var tablesOnly = map[string]bool{"pg_attribute": true, "pg_description": true}

// tableKey says whether a proven scan's column holds only followed
// tables' OIDs.
func (r *reach) tableKey(src colSource) bool {
	switch src.rel.name + "." + src.name {
	case "pg_attribute.attrelid", "pg_index.indrelid", "pg_constraint.conrelid":
		return true
	case "pg_constraint.confrelid":
		return !referencesPartitioned(r.tableList, r.partOIDs) // pgcatalog_reach_partfk.go
	case "pg_proc.oid", "pg_operator.oid":
		return true // a proven pg_proc (pg_operator) scan has no rows (pgcatalog_proc.go): nothing is joined to it
	case "pg_language.oid":
		// Not a relation's OID (pg_attribute, pg_index and pg_constraint
		// have no row of it); pg_description lists the languages'
		// comments when they were read (pgcatalog_listings.go).
		return listingFacts(r.tableList) != nil
	case "pg_class.oid":
		if r.descViews && r.viewDescs && !r.visiting[src.scan] {
			// pg_description's rows of tables and views (not cached:
			// pg_attribute's proof asks for tables).
			r.visiting[src.scan] = true
			defer delete(r.visiting, src.scan)
			return r.classTablesOrViews(src.scan, true)
		}
		if r.tableOnly[src.scan] || r.visiting[src.scan] {
			return r.tableOnly[src.scan]
		}
		r.visiting[src.scan] = true
		defer delete(r.visiting, src.scan)
		if r.classTables(src.scan) {
			r.tableOnly[src.scan] = true
		}
		return r.tableOnly[src.scan]
	}
	return false
}

// classTables says whether a pg_class scan's rows are restricted to
// followed tables (not their indexes): relkind = or IN constants other
// than 'i', 'I', 'S', 'v' and 'm', relname = or IN the names of followed tables no
// index has, or oid equal to tables' OIDs.
func (r *reach) classTables(s *lplan.Scan) bool { return r.classTablesOrViews(s, false) }

// classTablesOrViews is classTables, views and materialized views
// accepted too when views is set.
func (r *reach) classTablesOrViews(s *lplan.Scan, views bool) bool {
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || op != "=" && op != "in" || len(other) == 0 {
			continue
		}
		all := true
		switch col {
		case "relkind":
			// Not a view ('v', 'm': pg_description lacks their rows) nor a
			// composite type ('c': pg_attribute lacks their columns).
			for _, o := range other {
				k, ok := constText([]lplan.Scalar{o})
				all = all && ok && k != "i" && k != "I" && k != "S" && (views || k != "v" && k != "m") && !r.classOnlyKinds[k] && k != "c"
			}
		case "relname":
			for _, o := range other {
				k, ok := constText([]lplan.Scalar{o})
				all = all && ok && (r.tableNames[k] && !r.indexNames[k] || views && r.viewNames[k] && !r.classNames[k])
			}
		case "oid":
			all = r.userOIDs(other, 0, true) || views && r.allVals(other, 0, func(k string) bool {
				n, err := strconv.ParseUint(strings.TrimSpace(k), 10, 32)
				return err == nil && (r.tables[uint32(n)] || r.views[uint32(n)])
			}, func(colSource) bool { return false })
		default:
			all = false
		}
		if all {
			return true
		}
	}
	return false
}

// userOIDs says whether every value of vals is the OID of an object
// sidecar's catalog lists (a constant naming a followed table, index or
// constraint — another OID >= 16384 may be a sequence, which it does
// not list —, or a key column of a proven scan, or a column whose every
// definition is one).
func (r *reach) userOIDs(vals []lplan.Scalar, depth int, tables bool) bool {
	classOnly := r.proving != "pg_class" && !r.partitionedFree // the partitioned tables' rows are pg_class's alone
	return r.allVals(vals, depth, func(k string) bool {
		n, err := strconv.ParseUint(strings.TrimSpace(k), 10, 32)
		return err == nil && (r.tables[uint32(n)] || !tables && r.known[uint32(n)] && !(classOnly && r.partOIDs[uint32(n)]))
	}, func(src colSource) bool {
		if tables {
			return r.tableKey(src)
		}
		if classOnly && r.partitioned && src.rel.name == "pg_class" && src.name == "oid" && !r.noPartitioned(src.scan) {
			return false // the scan may reach a partitioned table's row (pgcatalog_partitioned.go)
		}
		// pg_type.typrelid: 0 or a composite type's relation, which pg_class
		// lists (pgcatalog_typedetail.go).
		return isKeyCol(src.rel.name, src.name) || src.rel.name == "pg_sequence" && src.name == "seqrelid" || src.rel.name == "pg_type" && src.name == "typrelid"
	})
}

// userNamespaceOIDs says whether every value of vals is a schema holding
// no system relation (public, or a user schema's OID).
func (r *reach) userNamespaceOIDs(vals []lplan.Scalar, depth int) bool {
	return r.allVals(vals, depth, func(k string) bool {
		n, err := strconv.ParseUint(strings.TrimSpace(k), 10, 32)
		return err == nil && (n == publicNamespaceOID || n >= firstNormalOID)
	}, func(src colSource) bool { return src.rel.name == "pg_namespace" && src.name == "oid" })
}

// allVals checks every value vals can take: constants by konst, proven
// scans' columns by col, other columns through their definitions.
func (r *reach) allVals(vals []lplan.Scalar, depth int, konst func(string) bool, col func(colSource) bool) bool {
	if len(vals) == 0 || depth > 16 {
		return false
	}
	for _, v := range vals {
		v = strip(v)
		if p, ok := v.(*lplan.Param); ok {
			// Checked against the bound value at each execution
			// (pgcatalog_params.go).
			r.paramChecks = append(r.paramChecks, paramCheck{n: p.N, ok: konst})
			continue
		}
		if k, ok := v.(*lplan.Const); ok {
			if k.Null || !konst(k.Text) {
				return false
			}
			continue
		}
		if f, ok := v.(*lplan.Func); ok && f.Ext != nil && len(f.Args) == 1 {
			if !r.regVal(f, depth, konst, col) {
				return false
			}
			continue
		}
		c, ok := v.(*lplan.ColRef)
		if !ok {
			return false
		}
		if src, ok := r.cols[c.ID]; ok {
			if !r.proven[src.scan] || !col(src) {
				return false
			}
			continue
		}
		if !r.allVals(r.defs[c.ID], depth+1, konst, col) {
			return false
		}
	}
	return true
}

// constText is a non-NULL constant's text.
func constText(v []lplan.Scalar) (string, bool) {
	if len(v) != 1 {
		return "", false
	}
	k, ok := strip(v[0]).(*lplan.Const)
	if !ok || k.Null {
		return "", false
	}
	return k.Text, true
}

// userName says whether "name op pattern" (=, LIKE, or a case-sensitive
// regular expression) can be true only for a name that no system object
// has: system names are those starting with pg_ and the others listed
func userName(op string, other []lplan.Scalar, others []string) bool {
	if op == "in" {
		for _, o := range other {
			if !userName("=", []lplan.Scalar{o}, others) {
				return false
			}
		}
		return len(other) > 0
	}
	pat, ok := constText(other)
	if !ok {
		return false
	}
	var prefix string
	var whole bool
	switch op {
	case "=":
		prefix, whole = pat, true
	case "~~":
		prefix, whole = catLikePrefix(pat)
	case "textregexeq":
		if prefix, whole, ok = regexPrefix(pat); !ok {
			return false
		}
	default:
		return false
	}
	if strings.HasPrefix(prefix, "pg_") || strings.HasPrefix("pg_", prefix) && !whole {
		return false
	}
	for _, o := range others {
		if o == prefix || !whole && strings.HasPrefix(o, prefix) {
			return false
		}
	}
	return true
}

// catLikePrefix is the literal text a LIKE pattern's matches start with,
// and whether it is the whole pattern (no wildcard).
func catLikePrefix(p string) (string, bool) {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '%', '_', '\\':
			return p[:i], false
		}
	}
	return p, true
}

// regexPrefix is the literal text every match of an anchored regular
// expression starts with ("^lit", "^(lit)$": psql's patterns), and
// whether the match is exactly it; ok false when it cannot tell.
func regexPrefix(p string) (prefix string, whole, ok bool) {
	if !strings.HasPrefix(p, "^") || strings.ContainsAny(p, "|") {
		return "", false, false
	}
	rest := p[1:]
	group := strings.HasPrefix(rest, "(") && !strings.HasPrefix(rest, "(?")
	if group {
		rest = rest[1:]
	}
	i := 0
	for i < len(rest) && (rest[i] >= 'a' && rest[i] <= 'z' || rest[i] >= 'A' && rest[i] <= 'Z' || rest[i] >= '0' && rest[i] <= '9' || rest[i] == '_') {
		i++
	}
	lit, tail := rest[:i], rest[i:]
	if tail != "" && strings.ContainsRune("?*+{", rune(tail[0])) {
		if lit == "" {
			return "", false, false
		}
		lit = lit[:len(lit)-1] // the quantifier makes the last character optional
		return lit, false, true
	}
	if group && strings.HasPrefix(tail, ")") && len(tail) > 1 && strings.ContainsRune("?*+{", rune(tail[1])) {
		return "", false, false // the whole group is optional or repeated
	}
	if group && tail == ")$" || !group && tail == "$" {
		return lit, true, true
	}
	return lit, false, true
}

// nullRejecting says whether one of conds is false or NULL when a column
// of cols is NULL (a comparison or pattern match on it).
func nullRejecting(conds []lplan.Scalar, cols []lplan.ColumnID) bool {
	in := map[lplan.ColumnID]bool{}
	for _, id := range cols {
		in[id] = true
	}
	var args []lplan.Scalar
	for _, c := range conds {
		switch x := c.(type) {
		case *lplan.Op:
			if comparisonOps[x.Op] {
				args = append(args, x.Args...)
			}
		case *lplan.Func:
			switch x.Name {
			case "textregexeq", "textregexne", "texticregexeq", "texticregexne":
				args = append(args, x.Args...)
			}
		}
	}
	for _, a := range args {
		if ref, ok := strip(a).(*lplan.ColRef); ok && in[ref.ID] {
			return true
		}
	}
	return false
}

// comparisonOps are the strict operators nullRejecting knows.
var comparisonOps = map[string]bool{"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true, "~~": true, "!~~": true, "~~*": true, "!~~*": true}

// proveInfoSchema says whether an information_schema constraint view
// scan's rows are the user tables' constraints: its table (or
// constraint) schema is a user schema — a constant, NOT IN/<> both
// pg_catalog and information_schema (pg_toast holds no table with
// constraints), or a proven scan's schema —, its table name a user
// table's, or its constraint type FOREIGN KEY (the system catalogs have
// none in pg_constraint).
func (r *reach) proveInfoSchema(s *lplan.Scan) bool {
	excluded := map[string]bool{}
	userSchema := func(k string) bool {
		return k != "information_schema" && !strings.HasPrefix(k, "pg_")
	}
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok {
			continue
		}
		switch col {
		case "schemaname": // pg_tables, pg_indexes, pg_views
			col = "table_schema"
		case "tablename", "viewname":
			col = "table_name"
		case "indexname":
			// PostgreSQL's own indexes are all named pg_… (the system
			// catalogs' and pg_toast's).
			if userName(op, other, nil) {
				return true
			}
		}
		switch col {
		case "table_schema", "constraint_schema":
			switch op {
			case "=", "in":
				if r.allVals(other, 0, userSchema, func(src colSource) bool {
					return src.rel.schema == "information_schema" && (src.name == "table_schema" || src.name == "constraint_schema") ||
						(src.rel.name == "pg_tables" || src.rel.name == "pg_indexes" || src.rel.name == "pg_views") && src.name == "schemaname"
				}) {
					return true
				}
			case "<>", "notin":
				for _, o := range other {
					if k, ok := constText([]lplan.Scalar{o}); ok {
						excluded[k] = true
					}
				}
			}
		case "table_name":
			if userName(op, other, infoSchemaRelations) {
				return true
			}
		case "constraint_type":
			if k, ok := constText(other); ok && op == "=" && k == "FOREIGN KEY" && r.rels[s].name == "table_constraints" {
				return true
			}
		}
	}
	return excluded["pg_catalog"] && excluded["information_schema"]
}

// noPartitioned says whether a pg_class scan's conditions keep the
// partitioned tables and indexes above the followed partitions out:
// relkind = or IN constants other than 'p' and 'I', or oid = or IN OIDs
// of other listed objects.
func (r *reach) noPartitioned(s *lplan.Scan) bool {
	for _, cond := range r.restr[s] {
		col, other, op, ok := r.comparison(cond, s)
		if !ok || op != "=" && op != "in" || len(other) == 0 {
			continue
		}
		all := true
		for _, o := range other {
			k, ok := constText([]lplan.Scalar{o})
			switch col {
			case "relkind":
				all = all && ok && !r.classOnlyKinds[k]
			case "oid":
				n, err := strconv.ParseUint(strings.TrimSpace(k), 10, 32)
				all = all && ok && err == nil && r.known[uint32(n)] && !r.partOIDs[uint32(n)]
			default:
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}
