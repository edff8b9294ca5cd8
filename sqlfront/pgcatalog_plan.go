package sqlfront

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sidecar-dev/sidecar/internal/pgast"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// pgScan is a catalog relation a statement reads: reads are the column
// ordinals its scans read, whose unknown values refuse the statement.
type pgScan struct {
	rel   *pgRel
	reads map[int]bool
	// uses are each scan's columns and conjuncts decidable on a row
	// (pgcatalog_skip.go): an unknown value refuses only where a scan
	// reading it can keep its row.
	uses []scanUse
}

// catalogTable resolves a catalog relation for the binder (nil: not
// one; the followed tables are looked up then).
func (c *vecCatalog) catalogTable(schema, name string) *lplan.TableDef {
	r := catalogDef(schema, name)
	if r == nil {
		return nil
	}
	version := serverVersion(c.pl.src.Tables())
	if since := publicationSince(name); version != 0 && version < since { // pgcatalog_publications.go
		return nil
	}
	r = r.forVersion(version).withTableOID() // pgcatalog_major.go, pgcatalog_tableoid.go
	key := r.schema + "." + r.name
	if d, ok := c.byName[key]; ok {
		return d
	}
	d := r.tableDef()
	c.byName[key] = d
	c.virt[d] = &pgScan{rel: r, reads: map[int]bool{}}
	c.stampFacts() // pgcatalog_stamp.go
	return d
}

// checkReads notes the columns of the catalog relations the optimized
// plan reads, and refuses pg_attrdef.adbin read other than through
// pg_get_expr (sidecar holds the default's text, not its node tree) and
// pg_typeof of information_schema's columns.
func (c *vecCatalog) checkReads(q *lplan.Query) error {
	if len(c.virt) == 0 {
		return nil
	}
	var err error
	// infoScan: the plan scans an information_schema view; typeofCol: it
	// takes pg_typeof of something other than a constant. PostgreSQL's
	// pg_typeof of a view column names its domain (sql_identifier, …),
	// which sidecar types by the base type: the two together are refused.
	var infoScan, typeofCol bool
	var walk func(r lplan.Rel)
	check := func(s lplan.Scalar) {
		var visit func(x lplan.Scalar) bool
		visit = func(x lplan.Scalar) bool {
			if checkACLUse(x, visit, &err) { // pgcatalog_database.go: datacl
				return false
			}
			switch y := x.(type) {
			case *lplan.Func:
				if y.Name == "pg_typeof" {
					for _, a := range y.Args {
						_, konst := strip(a).(*lplan.Const)
						typeofCol = typeofCol || !konst // a column, a subquery: maybe a view's
					}
				}
				if y.Ext != nil && y.Name == "pg_get_expr" {
					for _, a := range y.Args[1:] {
						lplan.Walk(a, visit)
					}
					return false
				}
			case *lplan.IsNull:
				if c, ok := y.Arg.(*lplan.ColRef); ok && c.T == nodeTree {
					return false // NULL or not: the same for the text as for the tree (psql's \dp: polqual IS NOT NULL)
				}
			case *lplan.ColRef:
				if y.T == nodeTree && err == nil {
					err = unsupported(-1, "pg_attrdef.adbin, pg_policy.polqual or pg_publication_rel.prqual other than as pg_get_expr's argument or under IS NULL (sidecar keeps the expression's text, not its node tree)")
				}
			case *lplan.Subquery:
				walk(y.Plan)
			}
			return err == nil
		}
		lplan.Walk(s, visit)
	}
	walk = func(r lplan.Rel) {
		if s, ok := r.(*lplan.Scan); ok {
			if v := c.virt[s.Table]; v != nil {
				infoScan = infoScan || v.rel.schema == "information_schema"
				for _, o := range s.Ords {
					v.reads[o] = true
				}
				v.noteFilter(s)
			}
		}
		exprs := lplan.ExprsOf(r)
		if a, ok := r.(*lplan.Aggregate); ok {
			for _, x := range a.Aggs {
				exprs = append(exprs, x.Filter)
			}
		}
		for _, e := range exprs {
			if e != nil {
				check(e)
			}
		}
		for _, in := range r.Inputs() {
			walk(in)
		}
	}
	walk(q.Plan)
	if err == nil && infoScan && typeofCol {
		return unsupported(-1, "pg_typeof of information_schema's columns (their domains sql_identifier, character_data, yes_or_no and cardinal_number: sidecar types them by their base types)")
	}
	for _, id := range q.Plan.Columns() {
		if q.MD.Column(id).Type == nodeTree {
			return unsupported(-1, "a node tree in the result ("+q.MD.Column(id).Name+": pg_attrdef.adbin, pg_index.indpred, pg_publication_rel.prqual; sidecar keeps the expression's text, not its node tree: read it through pg_get_expr)")
		}
		if q.MD.Column(id).Type == aclItems {
			return aclRefusal() // pgcatalog_database.go
		}
	}
	if err != nil {
		return err
	}
	c.markScanOrdered(q)        // pgcatalog_access_reach.go
	return c.checkSystemRows(q) // pgcatalog_reach.go
}

// scanCatalog emits the rows of a catalog relation, refusing a row
// whose value the statement reads is unknown to sidecar.
func (s *vecSource) scanCatalog(ctx context.Context, v *pgScan, fn func(row []*string) error) error {
	cx := &pgCatCtx{tables: s.ex.src.Tables(), db: s.ex.sess.database, settings: s.ex.sess.allSettings(), path: searchPathOf(s.ex.sess), user: s.ex.sess.user}
	if v.rel.refuse != nil {
		if err := v.rel.refuse(cx); err != nil {
			return err
		}
	}
	rows := v.rel.rows(cx)
	if v.rel.schema == "information_schema" {
		var err error
		if rows, err = infoSchemaVisible(cx, v.rel.name, rows); err != nil { // pgcatalog_privfilter.go
			return err
		}
	}
	for _, row := range rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		in := row
		row, unknown := v.admit(row) // pgcatalog_skip.go
		if unknown >= 0 && in[unknown] == pgStandIn {
			what := ""
			if in[1] != pgStandIn && in[2] != pgStandIn && in[1] != nil && in[2] != nil {
				what = " of " + *in[1] + "." + *in[2]
			}
			return unsupported(-1, v.rel.schema+"."+v.rel.name+"'s rows"+what+
				" (sidecar does not know them: a relation it does not follow, or whose columns were not read)")
		}
		if unknown >= 0 {
			return unsupported(-1, v.rel.schema+"."+v.rel.name+"."+v.rel.cols[unknown].name+
				" (sidecar does not know it for the followed tables: the mirror keeps their columns, types, NOT NULL, defaults, constraints, indexes and comments)")
		}
		if row == nil {
			continue // every scan's filter drops it
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

// searchPath is the session's search_path as a list of schema names
// ($user resolved to the session's user).
func (c *vecCatalog) searchPath() []string { return searchPathOf(c.pl.sess) }

// searchPathOf is sess's search_path as a list of schema names.
func searchPathOf(sess *session) []string {
	sp := "\"$user\", public"
	if v, ok := sess.settings["search_path"]; ok {
		sp = v
	}
	var out []string
	for _, p := range strings.Split(sp, ",") {
		p = strings.TrimSpace(p)
		if strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) && len(p) >= 2 {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = strings.ToLower(p)
		}
		if p == "$user" {
			p = sess.user
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// defaultPath says whether names print as under search_path public
// (how the copy printed the defaults): the path's first existing
// schema is public and no followed schema precedes it.
func (c *vecCatalog) defaultPath() bool {
	return printsAsPublic(c.pl.src.Tables(), c.searchPath()) // catalog_partitions.go
}

// catalogFuncs are the functions vecCatalog.Func answers or refuses.
var catalogFuncs = map[string]bool{"pg_get_expr": true, "format_type": true, "pg_table_is_visible": true, "current_schema": true,
	"pg_get_userbyid": true, "obj_description": true, "col_description": true, "shobj_description": true, "pg_get_indexdef": true,
	"pg_get_constraintdef": true, "pg_get_serial_sequence": true, "has_table_privilege": true, "has_schema_privilege": true,
	"has_column_privilege": true, "has_database_privilege": true, "pg_table_size": true, "pg_total_relation_size": true,
	"pg_relation_size": true, "pg_indexes_size": true, "pg_database_size": true, "pg_get_viewdef": true, "pg_encoding_to_char": true,
	"pg_get_functiondef": true, "has_sequence_privilege": true, "has_any_column_privilege": true, "pg_has_role": true}

// HasFunc implements lplan.FuncCatalog.
func (c *vecCatalog) HasFunc(name string) bool {
	_, proc := procFuncs[name]
	return catalogFuncs[name] || arrayCatalogFuncs[name] || regCatalogFuncs[name] || sessionFuncs[name] || typeDetailFuncs[name] || proc
}

// Func implements lplan.FuncCatalog: the system functions clients call
// on the catalog.
func (c *vecCatalog) Func(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	argc := func(n ...int) error {
		for _, k := range n {
			if len(args) == k {
				return nil
			}
		}
		return lplan.ExtError(lplan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	switch name {
	case "pg_get_expr":
		if err := argc(2, 3); err != nil {
			return nil, err
		}
		if args[0] != nodeTree {
			return nil, lplan.ExtError(lplan.CodeFeatureNotSupported, "pg_get_expr of anything but pg_attrdef.adbin, pg_index.indpred and pg_publication_rel.prqual is not supported by sidecar yet")
		}
		ok := c.defaultPath()
		ts := []lplan.Type{nodeTree, lplan.T(oidOID), lplan.T(oidBool)}[:len(args)]
		return &lplan.ExtFunc{Args: ts, Result: lplan.T(oidText), NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
			if v[0] == nil || v[1] == nil {
				return nil, nil // strict in its first two arguments; a NULL pretty flag is false
			}
			if !ok {
				return nil, unsupported(-1, "pg_get_expr under a search_path other than public (sidecar read the defaults under public)")
			}
			plain, pretty, _ := strings.Cut(v[0].(string), nodeTreeSep)
			if len(v) == 3 && v[2] != nil && v[2].(bool) {
				return pretty, nil
			}
			return plain, nil
		}}, nil
	case "format_type":
		if err := argc(2); err != nil {
			return nil, err
		}
		// The search path is read when the call runs: a simple query's
		// statements are all planned before the first runs (SET
		// search_path …; SELECT format_type(…)).
		tables, sess := c.pl.src.Tables(), c.pl.sess
		return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidOID), lplan.T(oidInt4)}, Result: lplan.T(oidText), NullOK: true,
			Eval: func(v []types.Value) (types.Value, error) {
				if v[0] != nil {
					if s, ok, err := formatListedType(tables, searchPathOf(sess), oidValue(v[0]), v[1]); ok { // pgcatalog_usertypes.go
						return s, err
					}
				}
				return formatTypeOf(v[0], v[1])
			}}, nil
	case "pg_table_is_visible":
		if err := argc(1); err != nil {
			return nil, err
		}
		vis := newVisibleSet(c.pl.src.Tables(), c.searchPath())
		return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidOID)}, Result: lplan.T(oidBool), Eval: func(v []types.Value) (types.Value, error) {
			return vis.of(oidValue(v[0])), nil
		}}, nil
	case "current_schema":
		if err := argc(0); err != nil {
			return nil, err
		}
		// The first schema of the path that exists, pg_catalog too when
		// the path names it (PostgreSQL's current_schema()).
		path, err := c.existingPath("current_schema") // pgcatalog_arrays.go
		if err != nil {
			return nil, err
		}
		var cur types.Value
		if len(path) > 0 {
			cur = path[0]
		}
		return &lplan.ExtFunc{Result: lplan.T(oidName), NullOK: true, Eval: func([]types.Value) (types.Value, error) { return cur, nil }}, nil
	case "pg_get_viewdef":
		return c.viewdefFunc(args) // views_def.go
	case "pg_get_functiondef":
		return c.functiondefFunc(args) // pgcatalog_funcdef.go
	case "obj_description", "col_description", "pg_get_indexdef", "pg_get_constraintdef", "pg_get_serial_sequence", "pg_get_userbyid":
		return c.schemaFunc(name, args) // pgcatalog_schema.go
	case "pg_table_size", "pg_total_relation_size", "pg_relation_size", "pg_indexes_size", "pg_database_size":
		return nil, lplan.ExtError(lplan.CodeFeatureNotSupported, "%s is not supported by sidecar's catalog (a size is what PostgreSQL's files measure at the call: writes, VACUUM, TRUNCATE and file extension change it outside the logical stream, so a size the catalog poll read would be another number, and the mirror's own storage differs; psql's \\dt+, \\di+, \\dv+ and \\l+ print sizes)", name)
	case "shobj_description":
		return c.shobjDescription(args) // pgcatalog_roles.go
	case "pg_encoding_to_char":
		return encodingToChar(args) // pgcatalog_database.go
	case "has_column_privilege", "has_database_privilege":
		return nil, lplan.ExtError(lplan.CodeFeatureNotSupported, "%s is not supported by sidecar's catalog yet (has_table_privilege, has_schema_privilege, has_any_column_privilege and pg_has_role are)", name)
	}
	if privFuncs[name] {
		return c.privilegeFunc(name, args) // pgcatalog_privfuncs.go
	}
	if regCatalogFuncs[name] {
		return c.regFunc(name, args) // pgcatalog_reg.go
	}
	if _, ok := procFuncs[name]; ok {
		return c.procFunc(name, args) // pgcatalog_procrows.go
	}
	if sessionFuncs[name] {
		return c.sessionFunc(name, args) // vexec_session.go
	}
	if typeDetailFuncs[name] {
		return c.typeDetailFunc(name, args) // pgcatalog_typedetail.go
	}
	return c.arrayCatalogFunc(name, args) // pgcatalog_arrays.go
}

// oidValue reads an oid value (held as its text, or an integer).
func oidValue(v types.Value) uint32 {
	switch x := v.(type) {
	case string:
		n, _ := strconv.ParseUint(x, 10, 32)
		return uint32(n)
	case int64:
		return uint32(x)
	}
	return 0
}

// formatTypeOf is format_type(oid, typmod): NULL typmod is "no typmod
// given" (bpchar), -1 a given one (character).
func formatTypeOf(oidv, modv types.Value) (types.Value, error) {
	if oidv == nil {
		return nil, nil
	}
	t, ok := types.Lookup(oidValue(oidv))
	if !ok {
		return nil, unsupported(-1, "format_type of type "+strconv.FormatUint(uint64(oidValue(oidv)), 10)+" (not a type sidecar serves)")
	}
	mod := int32(-1)
	if modv == nil && t.OID == types.Bpchar {
		// format_type(1042, NULL) and regtype's output are "character";
		// with a typmod of -1 given, "bpchar" (a bpchar without a
		// length is not character(1)): format_type_extended.
		return "character", nil
	}
	if modv != nil {
		switch m := modv.(type) {
		case int64:
			mod = int32(m)
		case int32:
			mod = m
		}
	}
	return t.Format(mod), nil
}

// tableVisible is pg_table_is_visible: the relation's schema is on the
// path and no schema before it has a relation of its name (NULL for an
// OID pg_class does not list). The relations are the followed tables,
// their indexes (pg_class lists both: indexClassRows; an index lives in
// its table's schema) and their owned sequences (seqClassRows).
func tableVisible(tables []Table, path []string, oid uint32) types.Value {
	return newVisibleSet(tables, path).of(oid)
}

// visibleSet is pg_table_is_visible's answer for every relation of one
// statement's tables under its search path, built once on first use:
// the function is called per catalog row, and building the relation
// list (tables, indexes, sequences, views) per call made a scan of
// pg_class quadratic in the relations.
type visibleSet struct {
	once   sync.Once
	tables []Table
	path   []string
	vis    map[uint32]bool // the relations' OIDs: visible or not
}

func newVisibleSet(tables []Table, path []string) *visibleSet {
	return &visibleSet{tables: tables, path: path}
}

// of is pg_table_is_visible(oid): NULL for an OID no relation has.
func (s *visibleSet) of(oid uint32) types.Value {
	s.once.Do(s.build)
	v, ok := s.vis[oid]
	if !ok {
		return nil
	}
	return v
}

func (s *visibleSet) build() {
	rels := catalogRels(s.tables) // pgcatalog_reg.go
	// The views pg_class lists (viewClassRows) are relations too; they
	// are not in catalogRels (regclass resolves them through viewNamed).
	_, ns := (&pgCatCtx{tables: s.tables}).namespaces()
	for _, v := range listedViews(s.tables, ns) {
		rels = append(rels, catRel{v.Schema, v.Name, v.OID})
	}
	rels = append(rels, listedOnlyCatRels(s.tables)...) // pgcatalog_relations.go
	// first is the first relation of each schema and name: the one a
	// search of the path finds.
	type key struct{ schema, name string }
	first := map[key]uint32{}
	for _, r := range rels {
		if _, ok := first[key{r.schema, r.name}]; !ok {
			first[key{r.schema, r.name}] = r.oid
		}
	}
	s.vis = make(map[uint32]bool, len(rels))
	for _, r := range rels {
		vis := false
		for _, p := range s.path {
			if o, ok := first[key{p, r.name}]; ok {
				vis = o == r.oid
				break
			}
		}
		if _, seen := s.vis[r.oid]; !seen || vis {
			s.vis[r.oid] = vis
		}
	}
	for _, c := range systemClasses { // pgcatalog_sysclass.go
		s.vis[c.oid] = systemClassVisible(s.path, c.name, func(schema string) bool { _, ok := first[key{schema, c.name}]; return ok })
	}
}

// planCatalog plans a SELECT over catalog relations on the engine: its
// refusals are answered as they are (the flat planner has no catalog).
func (pl *planner) planCatalog(stmt *pg.Node, declared []uint32) error {
	if len(pl.asOf) > 0 {
		return unsupported(-1, "AS OF in a statement reading pg_catalog")
	}
	if fn := infoSchemaFunc(stmt); fn != "" {
		// PostgreSQL has it (pgjdbc's getIndexInfo calls
		// information_schema._pg_expandarray): 0A000, not 42883.
		return unsupported(-1, "the function information_schema."+fn+" (sidecar's catalog does not serve it yet)")
	}
	return pl.planVec(stmt, declared, func(err error) error {
		var pe *lplan.Error
		var te *types.Error
		switch {
		case err == nil:
			return unsupported(-1, "this use of parameters in a catalog query")
		case errors.As(err, &pe):
			if rel, ok := unservedCatalogRelation(pe, serverVersion(pl.src.Tables())); ok {
				return unsupported(int(pe.Position)-1, rel+" (sidecar's catalog does not serve it yet)")
			}
			return &Error{Code: pe.Code, Pos: int(pe.Position) - 1, Msg: strings.TrimPrefix(pe.Message, "not supported yet: "), Detail: pe.Detail, Hint: pe.Hint}
		case errors.As(err, &te):
			return typesErr(err)
		}
		return err
	})
}

// unservedCatalogRelation reads a binder's "relation does not exist" for
// a relation of pg_catalog or information_schema sidecar does not serve
// (PostgreSQL has it: the answer is 0A000, not 42P01).
func unservedCatalogRelation(pe *lplan.Error, version int) (string, bool) {
	if pe.Code != lplan.CodeUndefinedTable || !strings.HasPrefix(pe.Message, "relation \"") {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(pe.Message, "relation \""), "\"")
	schema, rel, qualified := strings.Cut(name, ".")
	if !qualified {
		// pg_catalog comes first on every search path: an unqualified
		// name no followed relation has is PostgreSQL's own when
		// pg_catalog has it (pg_tablespace, pg_authid), as on the flat
		// path (pl.table).
		schema, rel = "pg_catalog", name
	}
	if systemRelation(schema, rel, version) {
		return schema + "." + rel, true
	}
	return "", false
}

// systemRelation says whether PostgreSQL of version (server_version_num,
// 0 unknown) has the relation schema.name of pg_catalog or
// information_schema (pgcatalog_relnames.go).
func systemRelation(schema, name string, version int) bool {
	switch schema {
	case "pg_catalog":
		return pgCatalogHas(name, version)
	case "information_schema":
		return slices.Contains(infoSchemaRelations, name)
	}
	return false
}

// infoSchemaFunc is the name of the first function stmt calls qualified
// with information_schema ("" when none): sidecar serves none of them.
func infoSchemaFunc(stmt *pg.Node) string {
	name := ""
	pgast.Walk(stmt.ProtoReflect(), func(m protoreflect.Message) bool {
		if name != "" {
			return false
		}
		if f, ok := m.Interface().(*pg.FuncCall); ok && len(f.Funcname) == 2 && f.Funcname[0].GetString_().GetSval() == "information_schema" {
			name = f.Funcname[1].GetString_().GetSval()
			return false
		}
		return true
	})
	return name
}
