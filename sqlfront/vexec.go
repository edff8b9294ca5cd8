package sqlfront

import (
	"context"
	"errors"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/opt"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// This file wires the planner with a tree (sql/plan, sql/opt) and the
// vectorized executor (sql/exec) into the front end. A SELECT the flat
// planner (selectplan.go) refuses with 0A000 — several FROM items,
// subqueries in FROM, WITH, set operations, three-table and outer
// joins, … — is planned again here and, when the new path accepts it,
// run on sql/exec. Statements the flat planner answers keep going
// there, with their fast paths. When the new path refuses too, the
// client gets the flat planner's refusal (it names the construct in the
// front end's words); a statement is never answered differently.

// vecPlan is a statement planned for sql/exec.
type vecPlan struct {
	prep *exec.Prepared
	// textOrder orders text under a proven libc locale (collate_libc.go).
	textOrder exec.TextOrder
	// caseMap maps case for lower/upper/initcap/ILIKE (vexec_casemap.go).
	caseMap *builtin.CaseMap
	tables  map[*lplan.TableDef]*Table
	refs    map[*lplan.TableDef]string // AS OF refs (vexec_asof.go)
	// facts: the followed tables' facts a catalog plan was made from
	// (pgcatalog_stamp.go; nil for a plan reading no catalog relation).
	facts []*wal.Facts
	oids  []uint32
	// uses: the types any column of the statement has (the output of
	// some depends on session settings sql/exec does not follow).
	uses map[uint32]bool
	// params are the types of $1… (declared or inferred; text if neither).
	params []uint32
	// virt are the catalog relations it reads (pgcatalog.go).
	virt map[*lplan.TableDef]*pgScan
	// views are the views it expanded (views.go).
	views []usedView
	// outputOnly: the statement prints no value inside itself, so its
	// float and bytea result columns can follow extra_float_digits and
	// bytea_output (vexec_settings.go).
	outputOnly bool
	// dialect is the followed server's major, as the tables' catalog
	// facts record it: integer and numeric input before 16 (sql/exec
	// dialect.go).
	dialect types.Dialect
	// query is the optimized plan prep runs (EXPLAIN prints it).
	query *lplan.Query
	// paramChecks are checked against each execution's parameters
	// (pgcatalog_params.go).
	paramChecks []paramCheck
}

// vecCatalog resolves table names for the binder against the followed
// tables at the statement's version.
type vecCatalog struct {
	pl     *planner
	tables map[*lplan.TableDef]*Table
	refs   map[*lplan.TableDef]string // AS OF refs of the tables read at one (vexec_asof.go)
	byName map[string]*lplan.TableDef
	virt   map[*lplan.TableDef]*pgScan // catalog relations (pgcatalog_plan.go)
	views  []usedView                  // the views expanded (views.go)
	facts  []*wal.Facts                // pgcatalog_stamp.go
	err    error
	// sessionBound: a function bound reads the planning session's state
	// when it runs (plan.sessionBound).
	sessionBound bool
	// paramChecks: what the catalog proofs need of the parameters'
	// values (pgcatalog_params.go).
	paramChecks []paramCheck
	// viewCols are the views' output columns (vexec_origin.go).
	viewCols viewColumns
}

// Table implements lplan.Catalog.
func (c *vecCatalog) Table(schema, name string) *lplan.TableDef {
	if d := c.catalogTable(schema, name); d != nil {
		return d // pgcatalog_plan.go
	}
	return c.tableRef(schema, name, "")
}

// tableRef is Table at AS OF ref ("": the statement's version).
func (c *vecCatalog) tableRef(schema, name, ref string) *lplan.TableDef {
	if schema == "" {
		schema = c.pl.unqualifiedSchema(name) // searchpath.go
	}
	key := schema + "." + name
	if ref != "" {
		key += " AS OF " + ref
	}
	if d, ok := c.byName[key]; ok {
		return d
	}
	t, err := c.pl.table(&pg.RangeVar{Schemaname: schema, Relname: name, Location: -1}, ref)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return nil
	}
	d := &lplan.TableDef{Schema: t.Schema, Name: t.Rel, Key: t.KeyCols, PrimaryKey: primaryKeyCols(t)} // vexec_route_fd.go
	if inheritsVec(t) {
		d.Key, d.PrimaryKey = nil, nil // the descendants' keys are their own (vexec_inherit.go)
	}
	if domainKeyed(t) {
		d.Key = nil // domaincols.go: keyed in the domain's text order
	}
	for i, col := range t.Columns {
		d.Columns = append(d.Columns, lplan.ColumnDef{Name: col.Name, Type: planColumnType(t, i), ByteOrder: byteOrderColumn(t, col)}) // keyorder_facts.go; domaincols.go
	}
	c.setColumnEnums(d, ref) // enum.go
	c.estimates(d, t)        // vexec_stats.go
	c.byName[key] = d
	c.tables[d] = t
	if ref != "" {
		c.refs[d] = ref
	}
	return d
}

// planVectorized plans a SELECT the flat planner refused (refusal) for
// sql/exec. It returns refusal when the new path cannot answer it
// exactly either, or the new path's own refusal when that names what is
// really missing (betterRefusal). Besides its 0A000 refusals, the flat
// planner's "function does not exist" and "cannot use a value of type"
// go to sql/exec too: it knows functions and casts the flat planner does
// not.
func (pl *planner) planVectorized(stmt *pg.Node, declared []uint32, refusal error) error {
	var fe *Error
	if !errors.As(refusal, &fe) || !vecRetries(fe.Code) || !pl.asOfPlannable() || factsRefusal(fe) {
		return refusal
	}
	return pl.planVec(stmt, declared, func(err error) error {
		if err == nil {
			return refusal
		}
		return betterRefusal(fe, err)
	})
}

// vecRetries says whether a flat planner's error of this SQLSTATE is
// planned again on sql/exec: its refusals, and the names and types of
// functions and casts it does not know (sql/exec knows more of them).
func vecRetries(code string) bool {
	return code == codeUnsupported || code == lplan.CodeUndefinedFunction || code == lplan.CodeDatatypeMismatch
}

// newVecCatalog is a catalog for sql/plan's binder and the declared
// parameter types as its types.
func (pl *planner) newVecCatalog(declared []uint32) (*vecCatalog, []lplan.Type) {
	cat := &vecCatalog{pl: pl, tables: map[*lplan.TableDef]*Table{}, refs: map[*lplan.TableDef]string{}, byName: map[string]*lplan.TableDef{}, virt: map[*lplan.TableDef]*pgScan{}}
	var ptypes []lplan.Type
	for _, t := range declared {
		if t == 0 {
			t = lplan.Unknown
		}
		ptypes = append(ptypes, lplan.T(t))
	}
	return cat, ptypes
}

// planVec plans stmt for sql/exec; fail gives the error to answer for
// a binder or executor refusal (nil: parameters typed inconsistently).
func (pl *planner) planVec(stmt *pg.Node, declared []uint32, fail func(error) error) error {
	cat, ptypes := pl.newVecCatalog(declared)
	if err := pl.onlyPartRoot(stmt); err != nil {
		return err // partroot_vec.go
	}
	if err := pl.inheritRefusal(stmt); err != nil {
		return err // vexec_inherit.go
	}
	q, err := lplan.BindParams(stmt, cat, ptypes)
	if err != nil {
		if pe, ce := (*lplan.Error)(nil), (*Error)(nil); errors.As(cat.err, &ce) && ce.Code == codeUnsupported && errors.As(err, &pe) && pe.Code == codeUndefinedTable {
			// The binder's "relation does not exist" because the catalog
			// refused the relation (a partitioned root whose partitions
			// are not followed, …): the refusal is the statement's error.
			return cat.err
		}
		return fail(err)
	}
	if !paramsConsistent(q.Plan, q.Params) {
		return fail(nil)
	}
	origins, err := cat.resultOrigins(stmt, q) // vexec_origin.go
	if err != nil {
		return err
	}
	textOrder, err := pl.vecFactsCheck(q, cat.tables) // vexec_facts.go
	if err != nil {
		return err
	}
	caseMap := pl.vecCaseMap(q, cat.tables) // vexec_casemap.go
	if err := pl.defaultCollateCheck(stmt, cat.tables); err != nil {
		return err // pgcatalog_collate.go
	}
	params := make([]uint32, len(q.Params))
	for i, t := range q.Params {
		if params[i] = t.OID; t.OID == lplan.Unknown {
			params[i] = oidText // as PostgreSQL: an untyped parameter is text
		}
	}
	q = opt.Optimize(q)
	if err := cat.checkReads(q); err != nil {
		return err // pgcatalog_plan.go
	}
	if err := cat.domainTypeRefusal(q); err != nil {
		return err // domaincols.go
	}
	regCols, err := cat.regOutputs(q) // pgcatalog_reg.go
	if err != nil {
		return fail(err) // a binder refusal (0A000 for a reg type not served: psql's \dL+), not XX000
	}
	prep, err := exec.Prepare(q)
	if err != nil {
		return fail(err)
	}
	p := &plan{kind: "select", tag: "SELECT", sessionBound: cat.sessionBound, vec: &vecPlan{prep: prep, tables: cat.tables, refs: cat.refs, uses: map[uint32]bool{}, virt: cat.virt, views: cat.views, facts: cat.facts, textOrder: textOrder, caseMap: caseMap, dialect: pl.dialect(), query: q}}
	for id := 1; id <= q.MD.Len(); id++ {
		t := q.MD.Column(lplan.ColumnID(id)).Type
		p.vec.uses[t.OID] = true
		if lplan.IsArray(t) {
			p.vec.uses[lplan.ElemType(t).OID] = true // float8[] prints its elements as float8
		}
	}
	planValueTypes(q, p.vec.uses) // vexec_types.go: values printed inside expressions too
	for i, id := range q.Plan.Columns() {
		t := q.MD.Column(id).Type
		if t.OID == lplan.Unknown {
			t = lplan.T(lplan.Text) // an untyped literal in the result is text
		}
		p.cols = append(p.cols, outCol{name: q.Names[i], typ: t.OID, typmod: t.Mod, tableOID: origins[i].table, attnum: origins[i].attnum})
		if k, ok := regCols[i]; ok {
			p.cols[i].typ = k // printed as its name: text (regOutputs)
		}
		p.targets = append(p.targets, &constExpr{t: t.OID})
		p.vec.oids = append(p.vec.oids, t.OID)
	}
	for _, t := range cat.tables {
		p.tables = append(p.tables, t)
	}
	p.vec.params, p.vec.paramChecks = params, cat.paramChecks
	p.vec.outputOnly = outputOnly(stmt) && viewsOutputOnly(cat.views) // vexec_settings.go
	pl.p, pl.scope, pl.params = p, nil, params
	return nil
}

// betterRefusal is the refusal to answer when both paths refuse. The
// flat planner refuses first, naming the first construct it lacks (often
// one sql/exec runs: a subquery in FROM, an array type, WITH, …), so when
// it refused with 0A000 the answer is the new path's refusal, which names
// what the engine that would run the statement lacks (its 0A000; its
// other errors, such as a name it does not resolve, are not answered). The flat
// planner's error stands when it was not a refusal (a function it does
// not know: the new path's refusal is given only if it is a 0A000) and
// when the new path failed otherwise (a data error while folding
// constants: the statement is refused, not failed).
func betterRefusal(old *Error, err error) error {
	if v, ok := err.(viewRefused); ok {
		return v.e // views.go
	}
	var pe *lplan.Error
	var te *types.Error
	var e *Error
	switch {
	case errors.As(err, &pe) && pe.Code == codeUnsupported:
		e = &Error{Code: pe.Code, Pos: int(pe.Position) - 1, Msg: pe.Message, Detail: pe.Detail, Hint: pe.Hint}
	case errors.As(err, &te) && te.Code == codeUnsupported:
		e = &Error{Code: te.Code, Pos: -1, Msg: te.Message}
	default:
		if e := engineNameError(err); e != nil && e.(*Error).Code != codeGrouping {
			return e // errorder.go: an unknown column PostgreSQL names too
		}
		return old
	}
	if e.Pos < 0 {
		e.Pos = old.Pos
	}
	if e.Code == codeUnsupported && !strings.Contains(e.Msg, " is not supported by ") { // a catalog refusal says it already
		e.Msg = strings.TrimPrefix(e.Msg, "not supported yet: ") + " is not supported by sidecar's SQL engine yet"
		if e.Hint == "" {
			e.Hint = "sidecar runs joins, subqueries, WITH, set operations and aggregates on its SQL engine; this part of the statement is not implemented there yet"
		}
	}
	return e
}

// paramsConsistent says whether every $n of the plan has the type the
// binder settled on for it (a use bound before its type was inferred
// would read the value as another type).
func paramsConsistent(rel lplan.Rel, types []lplan.Type) bool {
	ok := true
	var visit func(r lplan.Rel)
	check := func(s lplan.Scalar) {
		lplan.Walk(s, func(x lplan.Scalar) bool {
			switch y := x.(type) {
			case *lplan.Param:
				if y.N < 1 || y.N > len(types) || y.T.OID != types[y.N-1].OID {
					ok = false
				}
			case *lplan.Subquery:
				visit(y.Plan)
			}
			return ok
		})
	}
	visit = func(r lplan.Rel) {
		exprs := lplan.ExprsOf(r)
		switch x := r.(type) {
		case *lplan.Limit:
			exprs = append(exprs, x.Count, x.Offset)
		case *lplan.Aggregate:
			for _, a := range x.Aggs {
				exprs = append(exprs, a.Filter)
			}
		}
		for _, e := range exprs {
			if e != nil {
				check(e)
			}
		}
		for _, in := range r.Inputs() {
			visit(in)
		}
	}
	visit(rel)
	return ok
}

// vecSource reads the statement's tables for sql/exec at the session's
// version.
type vecSource struct {
	ex     *execCtx
	tables map[*lplan.TableDef]*Table
	refs   map[*lplan.TableDef]string // AS OF refs (vexec_asof.go)
	virt   map[*lplan.TableDef]*pgScan
	// snaps are the statement's snapshots by version (vexec_scan.go),
	// released when it ends.
	snaps map[string]*snapshot.Snapshot
}

// Scan implements exec.Source.
func (s *vecSource) Scan(ctx context.Context, d *lplan.TableDef, fn func(row []*string) error) error {
	if r := s.virt[d]; r != nil {
		return s.scanCatalog(ctx, r, fn) // pgcatalog_plan.go
	}
	planned := s.tables[d]
	if planned.part != nil {
		return s.scanPartRoot(ctx, planned, s.refs[d], fn) // partroot_vec.go
	}
	if inheritsVec(planned) {
		return s.scanInherited(ctx, planned, s.refs[d], fn) // vexec_inherit.go
	}
	v, err := s.ex.sess.versionFor(ctx, s.refs[d])
	if err != nil {
		return err
	}
	t, err := s.ex.src.Table(ctx, v, planned.Name)
	if err != nil {
		return err
	}
	if !sameColumns(&t, planned) {
		return errReplan
	}
	return s.ex.src.Scan(ctx, v, &t, "", "", fn)
}

// runVectorized runs a vecPlan, emitting each result row as the stored
// text of its values (types.Out), which the encoder sends as text or,
// for binary format, converts back (storedText).
func (p *plan) runVectorized(ex *execCtx, emit func([]Value) error) error {
	if err := p.vec.settingsFollowed(ex.sess); err != nil {
		return err
	}
	if len(p.vec.views) > 0 && !ex.views().viewsCurrent(p.vec.views) {
		return errReplan // a view changed since the plan was made (views.go)
	}
	opts := exec.Options{WorkMem: vecWorkMem(ex.sess), TextOrder: p.vec.textOrder, Dialect: p.vec.dialect, Planned: ex.plannedNow}
	if ex.sess != nil {
		// Spilling sorts (sql/exec/extsort.go) and the statement clock (clock.go).
		opts.TempDir, opts.TempFileLimit = ex.sess.srv.opts.TempDir, ex.sess.srv.opts.TempFileLimit
		opts.Clock = ex.sess.libraryContext()
		opts.Clock.Case = p.vec.caseMap
	}
	for i, v := range ex.params {
		var pv types.Value
		if i < len(p.vec.params) && v != nil && p.vec.dialect.IntervalSQLStandard && (p.vec.params[i] == oidInterval || p.vec.params[i] == types.ArrayOf(oidInterval)) {
			// The session decoded the parameter's text in the postgres
			// style; sql_standard reads a leading '-' otherwise.
			return unsupported(-1, "an interval parameter under IntervalStyle sql_standard")
		}
		if i < len(p.vec.params) && v != nil {
			var err error
			if e := p.vec.query.MD.Enum(p.vec.params[i]); e != nil {
				pv, err = enumParam(e, v, i+1) // enum.go
			} else {
				pv, err = vecParam(v, p.vec.params[i], i+1)
			}
			if err != nil {
				return typesErr(err) // vexec_arraybin.go
			}
		}
		opts.Params = append(opts.Params, pv)
	}
	if err := checkCatalogParams(p.vec.paramChecks, opts.Params); err != nil {
		return err // pgcatalog_params.go
	}
	src := &vecSource{ex: ex, tables: p.vec.tables, refs: p.vec.refs, virt: p.vec.virt}
	defer src.release()
	efd, escape, ivStyle := 1, false, ""
	if ex.sess != nil {
		efd, _ = extraFloatDigits(ex.sess)
		escape = strings.EqualFold(strings.TrimSpace(ex.sess.settings["bytea_output"]), "escape")
		if st, ok := types.IntervalStyleOf(ex.sess.settings["intervalstyle"]); ok && st != types.IntervalStylePostgres {
			ivStyle = st
		}
	}
	err := p.vec.prep.Run(membudget.WithAccount(ex.ctx, ex.mem), src, opts, func(b *exec.Batch) error {
		for i := 0; i < b.N; i++ {
			row := make([]Value, len(b.Vecs))
			for c, vec := range b.Vecs {
				if vec[i] == nil {
					continue
				}
				if ivStyle != "" && p.vec.dialect.Version != 0 && p.vec.dialect.Version < 150000 {
					if iv, ok := vec[i].(types.IntervalVal); ok && !types.IntervalFits14(iv) {
						return unsupported(-1, "printing this interval under IntervalStyle "+ivStyle+" as PostgreSQL 14 does (its int fields overflow)")
					}
				}
				if efd < 1 || escape || ivStyle != "" {
					if cell, ok := outputSetting(p.vec.oids[c], vec[i], efd, escape, ivStyle); ok {
						row[c] = cell // vexec_settings.go
						continue
					}
				}
				txt := types.Out(p.vec.oids[c], vec[i])
				if f, ok := vec[i].(float64); ok && f != f {
					row[c] = engineCell{v: f, txt: txt} // binary: the NaN's own bits (inf - inf is -NaN), not the text's
					continue
				}
				if a, ok := vec[i].(*types.Array); ok && a.NullBitmap {
					row[c] = engineCell{v: a, txt: txt} // binary: array_send's has-nulls flag, which the text lost (vexec_arraybin.go)
					continue
				}
				row[c] = storedText{s: &txt}
			}
			if err := emit(row); err != nil {
				return err
			}
		}
		return nil
	})
	return typesErr(err)
}

// settingsFollowed refuses a statement whose values would print under
// a session setting sql/exec does not follow (types.Out prints
// PostgreSQL's defaults: bytea_output hex, extra_float_digits ≥ 1,
// IntervalStyle postgres).
func (v *vecPlan) settingsFollowed(s *session) error {
	if s == nil {
		return nil
	}
	set := func(name, def string) string {
		if x, ok := s.settings[name]; ok {
			return strings.ToLower(strings.TrimSpace(x))
		}
		return def
	}
	// Result columns follow bytea_output = escape and extra_float_digits
	// < 1 when nothing else in the statement prints (vexec_settings.go)
	// and no result column is a row or an array printing its fields.
	plain := v.outputOnly && v.plainResults()
	if out := set("bytea_output", "hex"); v.uses[oidBytea] && out != "hex" && (out != "escape" || !plain || v.uses[types.ArrayOf(oidBytea)]) {
		return unsupported(-1, "bytea_output = "+out+" in this statement")
	}
	if v.uses[oidFloat8] || v.uses[oidFloat4] {
		if n, ok := extraFloatDigits(s); !ok || n < 1 && (!plain || v.uses[types.ArrayOf(oidFloat8)] || v.uses[types.ArrayOf(oidFloat4)]) {
			return unsupported(-1, "extra_float_digits < 1 in this statement")
		}
	}
	if s.zoneUnknown != "" { // serverdefaults.go
		for _, t := range []uint32{oidDate, oidTime, types.Timetz, oidTimestamp, oidTimestamptz, oidInterval} {
			if v.uses[t] || v.uses[types.ArrayOf(t)] {
				return unsupported(-1, "the followed server's TimeZone "+strconv.Quote(s.zoneUnknown)+" in this statement").
					hint("sidecar's time zone data lacks it or disagrees with the server's; SET TimeZone to a zone it has (install the tzdata package)")
			}
		}
	}
	if err := v.zoneRowsFollowed(s); err != nil {
		return err // datestyle.go
	}
	if !s.printsISODates() { // serverdefaults.go
		if err := v.dateStyleFollowed(s, plain); err != nil {
			return err // datestyle.go
		}
	}
	// Interval result columns print under IntervalStyle (outputSetting);
	// an interval printed inside the statement is refused.
	if st := set("intervalstyle", "postgres"); v.uses[oidInterval] && st != "postgres" {
		if _, ok := types.IntervalStyleOf(st); !ok || !plain || v.uses[types.ArrayOf(oidInterval)] {
			return unsupported(-1, "IntervalStyle "+st+" in this statement")
		}
	}
	return nil
}

// vecWorkMem is the session's sidecar.work_mem (bytes; a number with an
// optional kB, MB or GB unit), else the executor's default.
func vecWorkMem(s *session) int64 {
	if s == nil {
		return 0
	}
	v := strings.TrimSpace(s.settings["sidecar.work_mem"])
	if v == "" {
		return 0
	}
	mult := int64(1)
	for suffix, m := range map[string]int64{"kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30} {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			v, mult = strings.TrimSpace(n), m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n * mult
}
