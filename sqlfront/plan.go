package sqlfront

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// outCol describes one result column (RowDescription).
type outCol struct {
	name     string
	typ      uint32
	typmod   int32
	tableOID uint32
	attnum   int16
}

// fromItem is one relation of a FROM clause: a followed table or a
// virtual one (catalog, sidecar.* functions).
type fromItem struct {
	alias string
	table *Table // followed table (nil for virtual)
	asOf  string // AS OF ref ("" = the statement's version)
	virt  *virtual
	base  int // index of its first column in the input row
	// Pushdown of primary-key predicates (followed tables only).
	keyEq   [][]expr // per key: one expr per key column (point gets)
	lo, hi  expr     // bounds of the first key column
	loIncl  bool
	hiIncl  bool
	keyType uint32
	likePat expr // LIKE pattern on a text first key column: its prefix bounds the range
	// inherit: the item reads the table's descendants too (inherit.go).
	inherit bool
	// partOnly: FROM ONLY over a partitioned root, which reads no rows
	// (partroot.go).
	partOnly bool
}

// scopeCol is a column visible to expressions.
type scopeCol struct {
	item   int
	alias  string
	name   string
	typ    uint32
	typmod int32
	attnum int16
	coll   wal.Collation // the column's collation (collate.go)
	// domain: a domain column over a type the catalog knows, which
	// sql/exec plans by that type (domaincols.go).
	domain bool
}

// orderKey is one ORDER BY item.
type orderKey struct {
	e          expr
	desc       bool
	nullsFirst bool
}

// aggSpec is one aggregate call.
type aggSpec struct {
	fn       string // count, sum, min, max, avg
	star     bool
	distinct bool
	arg      expr
	t        uint32 // result type

	// lib is an aggregate of the function library (stddev, …).
	lib *libAggregate
}

// plan is a planned statement. Plans are immutable once built and shared
// between sessions through the plan cache.
type plan struct {
	kind    string // select, set, show, begin, commit, rollback, empty, noop
	tag     string // command tag
	cols    []outCol
	params  []uint32
	setName string
	setVal  *string   // nil: RESET / DEFAULT
	copyOut *copySpec // COPY … TO STDOUT (copyout.go)
	// setLocal: SET LOCAL (undone at the transaction's end, txsettings.go).
	setLocal bool
	// select
	from     []*fromItem
	joinLeft bool
	joinOn   expr    // ON condition (inner and left joins)
	joinKeys [2]expr // equi-join key: left side, right side
	joinType uint32  // type both join keys are coerced to
	where    expr    // nil: all rows
	aggs     []*aggSpec
	grouping bool
	groupBy  []expr
	having   expr
	targets  []expr
	distinct bool
	order    []orderKey
	limit    expr
	offset   expr
	noRows   bool // SELECT without FROM: one row
	// whereAsWritten is WHERE before orderWhere sorted its conjuncts:
	// the order PostgreSQL folds them in (constfold.go).
	whereAsWritten expr
	// tables are the followed tables read, to revalidate a cached plan.
	tables []*Table
	// agg, when set, runs the whole grouped select on the query engine
	// (engine.go); the other fields still describe it, for the evaluator
	// when an execution cannot run there.
	agg *aggPlan
	// rows, when set, runs a non-grouped select's WHERE on the query
	// engine's row scan (rows.go); the other fields still describe it.
	rows *rowsPlan
	// direct: the rows are sent from their stored bytes (direct.go).
	direct bool
	// explain: EXPLAIN's lines (kind "explain", explain.go).
	explain []string
	// cursor: DECLARE, FETCH/MOVE, CLOSE (cursor.go).
	cursor *cursorSpec
	// sqlPrep: PREPARE, EXECUTE (prepare_sql.go).
	sqlPrep *sqlPrepare
	// vec: a SELECT the flat planner refused, run on sql/exec (vexec.go).
	vec *vecPlan
	// needed marks the input columns an expression reads (by scope
	// index): the others are not converted from text.
	needed []bool
	// enumOuts are the targets printing an enum column as stored,
	// checked against the labels at the version read (enum_stale.go).
	enumOuts []enumOut
	// raw marks the input columns only output as they are (a target
	// naming the column, nothing else reading it): their stored text is
	// sent without conversion (storedText).
	raw []bool
	// sessionBound: a function of the plan reads the planning session's
	// state when it runs (current_setting): not cached for another
	// session (vexec_session.go).
	sessionBound bool
}

// markNeeded fills p.needed from every expression of the plan.
func (p *plan) markNeeded(width int) {
	p.needed = make([]bool, width)
	mark := func(e expr) {
		if e == nil {
			return
		}
		walk(e, func(x expr) {
			if c, ok := x.(*colExpr); ok && c.idx < width {
				p.needed[c.idx] = true
			}
		})
	}
	for _, e := range []expr{p.where, p.joinOn, p.joinKeys[0], p.joinKeys[1], p.having, p.limit, p.offset} {
		mark(e)
	}
	for _, e := range p.groupBy {
		mark(e)
	}
	for _, k := range p.order {
		mark(k.e)
	}
	for _, a := range p.aggs {
		mark(a.arg)
	}
	passThrough := !p.grouping && !p.distinct
	for _, e := range p.targets {
		if _, isCol := e.(*colExpr); !isCol || !passThrough {
			mark(e)
		}
	}
	p.raw = make([]bool, width)
	for _, e := range p.targets {
		if c, isCol := e.(*colExpr); isCol && passThrough && c.idx < width && !p.needed[c.idx] {
			p.raw[c.idx] = true
		}
	}
}

// planner builds a plan from one parsed statement.
type planner struct {
	// afterSet: a SET of the same simple query, not run yet, comes before
	// the statement (its statements are planned again after it when it
	// changes the plans' key: simpleQuery); stmtText is the statement's
	// own text (serverdefaults.go).
	afterSet bool
	stmtText string
	// explaining: the statement is EXPLAIN's (no rows are read, so a
	// LIMIT whose rows depend on the read order is shown, not refused:
	// limitorder.go).
	explaining bool
	ctx        context.Context
	src        Source
	sess       *session
	query      string
	asOf       map[int]string // AS OF refs by the byte offset of their table name
	params     []uint32
	scope      []scopeCol
	p          *plan
	aggMode    bool // compiling after-grouping expressions
	inAgg      bool
	groupSet   []expr
	// groupNodes are the GROUP BY items' parse trees (groupexpr.go).
	groupNodes []*pg.Node
	version    Version
	// explicitColl marks the expressions a COLLATE clause named (in byte
	// order: collate refuses any other); dbDefault caches the database's
	// default collation (collate.go).
	explicitColl map[expr]bool
	dbDefault    *wal.Collation
	// unknown maps the followed columns' types the type catalog does not
	// know to their facts (unknowntypes.go), built on first use.
	unknown map[uint32]unknownType
	// domains maps the followed columns' domain types to the types they
	// are planned by (domaincols.go), built on first use.
	domains map[uint32]lplan.Type
}

func (pl *planner) paramRef(n int, pos int) (expr, error) {
	if n < 1 || n > 65535 {
		return nil, errf(codeUndefinedObject, pos, "there is no parameter $%d", n)
	}
	for len(pl.params) < n {
		pl.params = append(pl.params, 0)
	}
	return &paramExpr{n: n, types: &pl.p.params}, nil
}

// paramType is the type of $n so far (0 when not yet known).
func (pl *planner) paramType(e expr) (int, bool) {
	if p, ok := e.(*paramExpr); ok && pl.params[p.n-1] == 0 {
		return p.n, true
	}
	return 0, false
}

// typeOf is e's type during planning (params read pl.params).
func (pl *planner) typeOf(e expr) uint32 {
	if p, ok := e.(*paramExpr); ok {
		if t := pl.params[p.n-1]; t != 0 {
			return t
		}
		return oidUnknown
	}
	return e.typ()
}

// coerce makes e of type t: an untyped literal is read as t (errors at
// its position), an untyped parameter takes t, other types are cast.
func (pl *planner) coerce(e expr, t uint32, pos int) (expr, error) {
	if n, ok := pl.paramType(e); ok {
		pl.params[n-1] = t
		return e, nil
	}
	from := pl.typeOf(e)
	if from == t {
		return e, nil
	}
	if c, ok := e.(*constExpr); ok && from == oidUnknown {
		if c.v == nil {
			return &constExpr{t: t}, nil
		}
		var v Value
		var err error
		if pl.dialectChecks(t) {
			var dv types.Value
			dv, err = pl.dialect().In(t, -1, c.v.(string)) // before 16: no 0x…, no 1_000
			err = typesErr(err)
			if err == nil && t == oidCharType {
				v = types.Out(t, dv) // the major's byte: 14 keeps the '\' of '\101'
			}
		}
		if err == nil && v == nil {
			v, err = parseAs(t, c.v.(string))
		}
		if err != nil {
			if c.pos > 0 {
				pos = c.pos
			}
			if pe, ok := err.(*Error); ok && pe.Pos < 0 {
				pe.Pos = pos
			}
			return nil, err
		}
		return &constExpr{v: v, t: t}, nil
	}
	if from == oidBpchar && isTextType(t) || (from == oidVarchar || from == oidName || from == oidCharType) && t == oidText {
		// varchar to text is PostgreSQL's implicit binary coercion (LIKE
		// on a varchar column reads it as text).
		return &castExpr{arg: e, from: from, to: t}, nil
	}
	if isNumericType(from) && isNumericType(t) {
		return castOrFold(e, from, t)
	}
	return nil, errf(codeDatatype, pos, "cannot use a value of type %s as %s", typeName(from), typeName(t))
}

// numRank orders numeric types for promotion.
func numRank(t uint32) int {
	switch t {
	case oidInt2:
		return 1
	case oidInt4:
		return 2
	case oidInt8, oidOID:
		return 3
	case oidNumeric:
		return 4
	case oidFloat4:
		return 5
	case oidFloat8:
		return 6
	}
	return 0
}

// orderingOps are the comparison operators commonType resolves.
var orderingOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

// commonType is the type two operands of a comparison or arithmetic are
// coerced to, as PostgreSQL resolves its operators for these types.
func (pl *planner) commonType(l, r expr, op string, pos int) (uint32, error) {
	lt, rt := pl.typeOf(l), pl.typeOf(r)
	switch {
	case lt == oidUnknown && rt == oidUnknown:
		return oidText, nil
	case lt == oidUnknown:
		return rt, nil
	case rt == oidUnknown:
		return lt, nil
	case lt == rt:
		return lt, nil
	case isNumericType(lt) && isNumericType(rt):
		if numRank(lt) >= numRank(rt) {
			if lt == oidFloat4 && rt != oidFloat4 {
				return oidFloat8, nil
			}
			return lt, nil
		}
		if rt == oidFloat4 {
			return oidFloat8, nil
		}
		return rt, nil
	case (lt == oidBpchar && rt == oidVarchar || lt == oidVarchar && rt == oidBpchar) && orderingOps[op]:
		// No varchar operator exists; of the candidates bpchar = bpchar
		// matches one operand exactly and text = text none (varchar →
		// bpchar is implicit): trailing blanks do not count, as in sql/plan
		// (bpcharOperands). Compared as text before: 'x'::char(4) =
		// 'x '::varchar was false.
		return oidBpchar, nil
	case isTextType(lt) && isTextType(rt):
		return oidText, nil
	case (lt == oidTimestamp || lt == oidTimestamptz || lt == oidDate) && rt == oidInterval && (op == "+" || op == "-"):
		return 0, unsupported(pos, fmt.Sprintf("%s %s interval", typeName(lt), op)) // sql/exec answers it
	case (lt == oidTimestamp || lt == oidTimestamptz || lt == oidDate) && (rt == oidTimestamp || rt == oidTimestamptz || rt == oidDate):
		return 0, unsupported(pos, fmt.Sprintf("comparing %s with %s", typeName(lt), typeName(rt)))
	}
	return 0, errf(codeUndefinedFunc, pos, "operator does not exist: %s %s %s", typeName(lt), op, typeName(rt)).
		hint("No operator matches the given name and argument types. You might need to add explicit type casts.")
}

func (pl *planner) binary(l, r expr, op string, pos int) (expr, expr, uint32, error) {
	t, err := pl.commonType(l, r, op, pos)
	if err != nil {
		return nil, nil, 0, err
	}
	if l, err = pl.coerce(l, pl.operandType(l, t), pos); err != nil {
		return nil, nil, 0, err
	}
	if r, err = pl.coerce(r, pl.operandType(r, t), pos); err != nil {
		return nil, nil, 0, err
	}
	return l, r, t, nil
}

// operandType is the type an operand of an operator over t takes: an
// untyped parameter opposite varchar is text (varchar has no operators
// of its own; PostgreSQL infers text), otherwise t.
func (pl *planner) operandType(e expr, t uint32) uint32 {
	if _, ok := pl.paramType(e); ok && t == oidVarchar {
		return oidText
	}
	return t
}

// comparable says whether values of type t can be ordered (= is allowed
// for every type whose output text is canonical). Not json (PostgreSQL
// has no = for it) nor jsonb (its text keeps a number's scale, and
// '1.0'::jsonb = '1'::jsonb): both are left to sql/exec, which refuses
// what it cannot compare.
func comparableType(t uint32, op string) bool {
	if isNumericType(t) || orderedAsText(t) || t == oidBool {
		return true
	}
	return (op == "=" || op == "<>" || op == "!=") && (t == oidBytea || t == oidInterval)
}

// compile compiles an expression node.
func (pl *planner) compile(n *pg.Node) (expr, error) {
	pos := nodeLoc(n)
	if pl.groupNodeMatches(n) {
		pl.aggMode = false
		defer func() { pl.aggMode = true }()
	}
	switch {
	case n.GetColumnRef() != nil:
		return pl.column(n.GetColumnRef())
	case n.GetAConst() != nil:
		return constOf(n.GetAConst())
	case n.GetParamRef() != nil:
		return pl.paramRef(int(n.GetParamRef().Number), pos)
	case n.GetTypeCast() != nil:
		return pl.cast(n.GetTypeCast())
	case n.GetAExpr() != nil:
		return pl.aexpr(n.GetAExpr())
	case n.GetBoolExpr() != nil:
		b := n.GetBoolExpr()
		out := &boolExpr{}
		switch b.Boolop {
		case pg.BoolExprType_AND_EXPR:
			out.op = "and"
		case pg.BoolExprType_OR_EXPR:
			out.op = "or"
		default:
			out.op = "not"
		}
		for _, a := range b.Args {
			e, err := pl.compileBool(a, strings.ToUpper(out.op))
			if err != nil {
				return nil, err
			}
			out.args = append(out.args, e)
		}
		return out, nil
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		if nt.Argisrow {
			return nil, unsupported(pos, "IS NULL on a row")
		}
		e, err := pl.compile(nt.Arg)
		if err != nil {
			return nil, err
		}
		if k, ok := pl.paramType(e); ok {
			pl.params[k-1] = oidText
		}
		if err := pl.nullTestRefusal(e, pos); err != nil {
			return nil, err // unknowntypes.go: a composite's IS NULL tests its fields
		}
		return &nullTest{arg: e, not: nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case n.GetFuncCall() != nil:
		return pl.funcCall(n.GetFuncCall())
	case n.GetCollateClause() != nil:
		return pl.collate(n.GetCollateClause())
	case n.GetCoalesceExpr() != nil:
		c := n.GetCoalesceExpr()
		var args []expr
		t := uint32(oidUnknown)
		for _, a := range c.Args {
			e, err := pl.compile(a)
			if err != nil {
				return nil, err
			}
			if at := pl.typeOf(e); t == oidUnknown {
				t = at
			} else if at != oidUnknown && at != t {
				if isNumericType(at) && isNumericType(t) {
					if numRank(at) > numRank(t) {
						t = at
					}
				} else if !(isTextType(at) && isTextType(t)) {
					return nil, errf(codeDatatype, nodeLoc(a), "COALESCE types %s and %s cannot be matched", typeName(t), typeName(at))
				}
			}
			args = append(args, e)
		}
		if t == oidUnknown {
			t = oidText
		}
		for i := range args {
			var err error
			if args[i], err = pl.coerce(args[i], t, nodeLoc(c.Args[i])); err != nil {
				return nil, err
			}
		}
		return &coalesceExpr{args: args, t: t}, nil
	case n.GetSqlvalueFunction() != nil:
		return pl.sqlValueFunction(n.GetSqlvalueFunction())
	}
	return nil, unsupported(pos, nodeName(n))
}

// bytewiseCollations are the collations whose order is the bytes' order
// of UTF-8 text, the order sidecar compares text in: C and POSIX, and
// ucs_basic (code point order, which UTF-8's byte order is).
var bytewiseCollations = map[string]bool{"C": true, "POSIX": true, "ucs_basic": true}

// catalogName is a qualified name as written, without a pg_catalog
// qualification (pg_catalog.count is count).
func catalogName(n []*pg.Node) string {
	names := strs(n)
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	return strings.Join(names, ".")
}

// collate compiles expr COLLATE name: a collation sidecar compares in
// (bytewise: C, POSIX, ucs_basic) leaves the expression as it is, since
// sidecar compares text bytewise; any other is refused rather than
// answered in another order.
func (pl *planner) collate(c *pg.CollateClause) (expr, error) {
	pos := int(c.Location)
	name := catalogName(c.Collname)
	arg, err := pl.compile(c.Arg)
	if err != nil {
		return nil, err
	}
	t := pl.typeOf(arg)
	if t == oidUnknown {
		if arg, err = pl.coerce(arg, oidText, nodeLoc(c.Arg)); err != nil {
			return nil, err
		}
		t = oidText
	}
	if !isTextType(t) && t != oidName {
		return nil, errf(codeDatatype, pos, "collations are not supported by type %s", typeName(t))
	}
	if !bytewiseCollations[name] {
		return nil, unsupported(pos, fmt.Sprintf("COLLATE \"%s\"", name)).
			hint(`sidecar compares text bytewise: write COLLATE "C" (or "POSIX", "ucs_basic")`)
	}
	if pl.explicitColl == nil {
		pl.explicitColl = map[expr]bool{}
	}
	pl.explicitColl[arg] = true
	return arg, nil
}

// compileBool compiles n where a boolean is needed (WHERE, HAVING, AND).
func (pl *planner) compileBool(n *pg.Node, what string) (expr, error) {
	e, err := pl.compile(n)
	if err != nil {
		return nil, err
	}
	t := pl.typeOf(e)
	if t == oidUnknown {
		return pl.coerce(e, oidBool, nodeLoc(n))
	}
	if t != oidBool {
		return nil, errf(codeDatatype, nodeLoc(n), "argument of %s must be type boolean, not type %s", what, typeName(t))
	}
	return e, nil
}

func constOf(c *pg.A_Const) (expr, error) {
	switch {
	case c.Isnull:
		return &constExpr{t: oidUnknown}, nil
	case c.GetIval() != nil:
		return &constExpr{v: int64(c.GetIval().Ival), t: oidInt4}, nil
	case c.GetFval() != nil:
		s := c.GetFval().Fval
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				if i == int64(int32(i)) {
					// make_const: an integer token that fits int4 after the
					// parser folded its sign (-2147483648) is int4.
					return &constExpr{v: i, t: oidInt4}, nil
				}
				return &constExpr{v: i, t: oidInt8}, nil
			}
		}
		n, ok := parseNum(s)
		if !ok {
			return nil, errf(codeInvalidText, int(c.Location), "invalid input syntax for type numeric: \"%s\"", s)
		}
		return &constExpr{v: n, t: oidNumeric}, nil
	case c.GetSval() != nil:
		return &constExpr{v: c.GetSval().Sval, t: oidUnknown, pos: int(c.Location)}, nil
	case c.GetBoolval() != nil:
		return &constExpr{v: c.GetBoolval().Boolval, t: oidBool}, nil
	}
	return nil, unsupported(int(c.Location), "a bit-string constant")
}

// column resolves a column reference in the scope.
func (pl *planner) column(c *pg.ColumnRef) (expr, error) {
	pos := int(c.Location)
	var parts []string
	for _, f := range c.Fields {
		if f.GetAStar() != nil {
			return nil, unsupported(pos, "* here")
		}
		parts = append(parts, f.GetString_().GetSval())
	}
	var qual, name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		qual, name = parts[0], parts[1]
	case 3:
		qual, name = parts[1], parts[2]
	default:
		return nil, unsupported(pos, "a column reference with "+strconv.Itoa(len(parts))+" parts")
	}
	found := -1
	for i, sc := range pl.scope {
		if sc.name != name || (qual != "" && sc.alias != qual) {
			continue
		}
		if found >= 0 {
			return nil, errf(codeAmbiguousColumn, pos, "column reference \"%s\" is ambiguous", name)
		}
		found = i
	}
	if found < 0 {
		if qual != "" {
			known := false
			for _, sc := range pl.scope {
				known = known || sc.alias == qual
			}
			if !known {
				return nil, errf(codeUndefinedTable, pos, "missing FROM-clause entry for table \"%s\"", qual)
			}
		}
		switch name {
		case "tableoid", "ctid", "xmin", "xmax", "cmin", "cmax": // PostgreSQL's system columns of the table: not kept (42703 would say they do not exist)
			if len(pl.scope) > 0 {
				return nil, unsupported(pos, "system column "+name+" (sidecar does not keep PostgreSQL's system columns)")
			}
		}
		if qual != "" {
			return nil, errf(codeUndefinedColumn, pos, "column %s.%s does not exist", qual, name)
		}
		for _, sc := range pl.scope {
			if sc.alias == name { // a table's name as a value: its whole row (sql/exec answers what it can: sql/plan/record.go)
				return nil, unsupported(pos, "a whole-row reference to "+name)
			}
		}
		return nil, errf(codeUndefinedColumn, pos, "column \"%s\" does not exist", name)
	}
	if pl.scope[found].domain {
		return nil, domainFlatRefusal(pos) // domaincols.go
	}
	if pl.aggMode && !pl.inAgg && !pl.inGroup(found) {
		sc := pl.scope[found]
		if pl.keyGrouped(found) { // vexec_route_fd.go
			return nil, unsupported(pos, "a column functionally dependent on a grouped primary key")
		}
		return nil, errf(codeGrouping, pos, "column \"%s.%s\" must appear in the GROUP BY clause or be used in an aggregate function", sc.alias, sc.name)
	}
	return &colExpr{idx: found, t: pl.scope[found].typ}, nil
}

func (pl *planner) inGroup(idx int) bool {
	for _, g := range pl.groupSet {
		if c, ok := g.(*colExpr); ok && c.idx == idx {
			return true
		}
	}
	return false
}

// typeOID resolves a type name of a cast.
func typeOID(tn *pg.TypeName) (uint32, int32, error) {
	names := strs(tn.Names)
	if len(names) == 2 && names[0] == "pg_catalog" {
		names = names[1:]
	}
	if len(tn.ArrayBounds) > 0 {
		return 0, 0, unsupported(int(tn.Location), "an array type")
	}
	name := strings.Join(names, ".")
	t, ok := typeNames[name]
	if !ok && types.IsOtherBuiltin(name) {
		return 0, 0, unsupported(int(tn.Location), "the type "+name)
	}
	if !ok {
		// Not a built-in type: the source database's own (an enum, a
		// domain, a table's row type, an extension's type) or none.
		// Sidecar cannot tell which here, so it refuses as sql/plan's
		// parseType does: never 42704 "does not exist" for a type
		// PostgreSQL has (`'ok'::mood` with an enum mood said so).
		return 0, 0, unsupported(int(tn.Location), "the type "+name+" (not a built-in type)")
	}
	mod := int32(-1)
	if len(tn.Typmods) > 0 {
		if t != oidVarchar && t != oidBpchar {
			return 0, 0, unsupported(int(tn.Location), "a type modifier on "+name)
		}
		if c := tn.Typmods[0].GetAConst(); c != nil && c.GetIval() != nil {
			mod = c.GetIval().Ival + 4
		}
	}
	return t, mod, nil
}

func (pl *planner) cast(tc *pg.TypeCast) (expr, error) {
	to, mod, err := pl.typeOIDOf(tc.TypeName)
	if err != nil {
		return nil, err
	}
	if mod >= 0 {
		return nil, unsupported(int(tc.Location), "a cast to a length-limited type")
	}
	arg, err := pl.compile(tc.Arg)
	if err != nil {
		return nil, err
	}
	from := pl.typeOf(arg)
	if from == oidUnknown {
		return pl.coerce(arg, to, nodeLoc(tc.Arg))
	}
	if err := pl.opaqueCastRefusal(from, to, int(tc.Location)); err != nil {
		return nil, err // unknowntypes.go: only a cast that is the output function
	}
	if !canCast(from, to) {
		return nil, castRefusal(from, to, int(tc.Location))
	}
	if isTextType(from) && pl.dialectChecks(to) {
		// text read as a number by a server before 16: sql/exec checks
		// the value's form (its dialect.go)
		return nil, unsupported(int(tc.Location), "a cast of text to "+typeName(to)+" on the flat path")
	}
	return castOrFold(arg, from, to)
}

// dialectChecks says whether text read as type t must be checked by the
// followed server's major (pgcatalog_settings.go dialect): integer and
// numeric input before PostgreSQL 16, "char" input before 15, interval input before 15
// (types/interval14.go) and from 17 (its infinities: interval17.go).
func (pl *planner) dialectChecks(t uint32) bool {
	d := pl.dialect()
	switch t {
	case oidInt2, oidInt4, oidInt8, oidNumeric:
		return d.Version != 0 && d.Version < 160000
	case oidCharType:
		// before 15 "char" keeps the first byte of '\101' (15+: A)
		return d.Version != 0 && d.Version < 150000
	case oidInterval:
		// 17+: input reading as an infinity (types/interval17.go)
		return d.Version != 0 && d.Version < 150000 || d.IntervalSQLStandard || d.Version >= 170000
	}
	return false
}

const codeCannotCoerce = "42846"

func (pl *planner) aexpr(a *pg.A_Expr) (expr, error) {
	pos := int(a.Location)
	op := qualName(a.Name)
	op = strings.TrimPrefix(op, "pg_catalog.")
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if a.Lexpr == nil {
			r, err := pl.compile(a.Rexpr)
			if err != nil {
				return nil, err
			}
			switch op {
			case "-":
				if c, ok := r.(*constExpr); ok && c.v != nil {
					return pl.foldNeg(c)
				}
				if pl.typeOf(r) == oidInterval {
					return nil, unsupported(pos, "- interval") // sql/exec answers it
				}
				if !isNumericType(pl.typeOf(r)) {
					return nil, errf(codeUndefinedFunc, pos, "operator does not exist: - %s", typeName(pl.typeOf(r)))
				}
				return &negExpr{arg: r}, nil
			case "+":
				return r, nil
			}
			if e, ok, err := pl.builtinOperator(op, nil, r, pos); ok {
				return e, err
			}
			return nil, unsupported(pos, "prefix operator "+op)
		}
		l, err := pl.compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := pl.compile(a.Rexpr)
		if err != nil {
			return nil, err
		}
		switch op {
		case "=", "<>", "!=", "<", "<=", ">", ">=":
			l, r, t, err := pl.binary(l, r, op, pos)
			if err != nil {
				return nil, err
			}
			if !comparableType(t, op) {
				return nil, unsupported(pos, fmt.Sprintf("operator %s on type %s", op, typeName(t)))
			}
			if err := pl.textOrderCheck(pos, t, op == "=" || op == "<>" || op == "!=", l, r); err != nil {
				return nil, err
			}
			return &cmpExpr{op: op, l: l, r: r, t: t}, nil
		case "+", "-", "*", "/", "%":
			if isDateTime(pl.typeOf(l)) || isDateTime(pl.typeOf(r)) {
				// timestamp − timestamp, interval ± × ÷, …: sql/exec
				// answers them (and PostgreSQL's 42883 where it has none).
				return nil, unsupported(pos, fmt.Sprintf("%s %s %s", typeName(pl.typeOf(l)), op, typeName(pl.typeOf(r))))
			}
			l, r, t, err := pl.binary(l, r, op, pos)
			if err != nil {
				return nil, err
			}
			if !isNumericType(t) || t == oidOID {
				return nil, errf(codeUndefinedFunc, pos, "operator does not exist: %s %s %s", typeName(pl.typeOf(l)), op, typeName(pl.typeOf(r)))
			}
			if t == oidFloat4 {
				return nil, unsupported(pos, "arithmetic on real (float4)")
			}
			if isFloatType(t) && op == "%" {
				return nil, errf(codeUndefinedFunc, pos, "operator does not exist: double precision %% double precision")
			}
			return &arithExpr{op: op, l: l, r: r, t: t}, nil
		case "||":
			if pl.typeOf(l) == oidJSONB || pl.typeOf(r) == oidJSONB {
				return nil, unsupported(pos, "jsonb || on this path") // sql/exec answers it
			}
			var err error
			if l, err = pl.coerce(l, oidText, pos); err != nil {
				return nil, err
			}
			if r, err = pl.coerce(r, oidText, pos); err != nil {
				return nil, err
			}
			return &arithExpr{op: op, l: l, r: r, t: oidText}, nil
		case "~~", "!~~":
			return pl.like(l, r, op == "!~~", pos)
		}
		if e, ok, err := pl.builtinOperator(op, l, r, pos); ok {
			return e, err
		}
		return nil, unsupported(pos, "operator "+op)
	case pg.A_Expr_Kind_AEXPR_LIKE:
		l, err := pl.compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := pl.compile(a.Rexpr)
		if err != nil {
			return nil, err
		}
		return pl.like(l, r, op == "!~~", pos)
	case pg.A_Expr_Kind_AEXPR_IN:
		l, err := pl.compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		items := a.Rexpr.GetList().GetItems()
		if items == nil {
			return nil, unsupported(pos, "IN with a subquery")
		}
		var list []expr
		for _, it := range items {
			e, err := pl.compile(it)
			if err != nil {
				return nil, err
			}
			list = append(list, e)
		}
		t := pl.typeOf(l)
		for _, e := range list {
			if et := pl.typeOf(e); t == oidUnknown {
				t = et
			} else if et != oidUnknown && et != t {
				ct, err := pl.commonType(&constExpr{t: t}, e, "=", pos)
				if err != nil {
					return nil, err
				}
				t = ct
			}
		}
		if t == oidUnknown {
			t = oidText
		}
		if !comparableType(t, "=") {
			return nil, unsupported(pos, "IN on type "+typeName(t))
		}
		if err := pl.textOrderCheck(pos, t, true, append([]expr{l}, list...)...); err != nil {
			return nil, err
		}
		if l, err = pl.coerce(l, t, pos); err != nil {
			return nil, err
		}
		for i := range list {
			if list[i], err = pl.coerce(list[i], t, nodeLoc(items[i])); err != nil {
				return nil, err
			}
		}
		return &inExpr{arg: l, list: list, not: op == "<>", t: t}, nil
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return pl.anyAll(a, a.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL)
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		items := a.Rexpr.GetList().GetItems()
		if len(items) != 2 {
			return nil, unsupported(pos, "this BETWEEN")
		}
		x, err := pl.compile(a.Lexpr)
		if err != nil {
			return nil, err
		}
		lo, err := pl.compile(items[0])
		if err != nil {
			return nil, err
		}
		hi, err := pl.compile(items[1])
		if err != nil {
			return nil, err
		}
		x1, lo, t1, err := pl.binary(x, lo, ">=", pos)
		if err != nil {
			return nil, err
		}
		x2, hi, t2, err := pl.binary(x, hi, "<=", pos)
		if err != nil {
			return nil, err
		}
		if !comparableType(t1, "<") || !comparableType(t2, "<") {
			return nil, unsupported(pos, "BETWEEN on type "+typeName(t1))
		}
		if err := pl.textOrderCheck(pos, t1, false, x1, lo); err != nil {
			return nil, err
		}
		if err := pl.textOrderCheck(pos, t2, false, x2, hi); err != nil {
			return nil, err
		}
		b := &boolExpr{op: "and", args: []expr{&cmpExpr{op: ">=", l: x1, r: lo, t: t1}, &cmpExpr{op: "<=", l: x2, r: hi, t: t2}}}
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			return &boolExpr{op: "not", args: []expr{b}}, nil
		}
		return b, nil
	}
	return nil, unsupported(pos, aexprKindName(a.Kind))
}

func aexprKindName(k pg.A_Expr_Kind) string {
	switch k {
	case pg.A_Expr_Kind_AEXPR_OP_ANY:
		return "= ANY"
	case pg.A_Expr_Kind_AEXPR_OP_ALL:
		return "ALL"
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return "IS [NOT] DISTINCT FROM"
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		return "NULLIF"
	case pg.A_Expr_Kind_AEXPR_ILIKE:
		return "ILIKE"
	case pg.A_Expr_Kind_AEXPR_SIMILAR:
		return "SIMILAR TO"
	}
	return "BETWEEN SYMMETRIC"
}

func (pl *planner) foldNeg(c *constExpr) (expr, error) {
	switch x := c.v.(type) {
	case int64:
		if lo, _, name := intBounds(c.t); x == lo {
			return nil, errf(codeOutOfRange, -1, "%s out of range", name)
		}
		return &constExpr{v: -x, t: c.t}, nil
	case *Num:
		if x.NaN || x.Inf != 0 {
			return &constExpr{v: types.NegDecimal(x), t: c.t}, nil
		}
		r := &Num{Scale: x.Scale}
		r.V.Neg(&x.V)
		if r.Scale == 0 && r.V.IsInt64() {
			return &constExpr{v: r.V.Int64(), t: oidInt8}, nil
		}
		return &constExpr{v: r, t: c.t}, nil
	case float64:
		return &constExpr{v: -x, t: c.t}, nil
	}
	return nil, errf(codeUndefinedFunc, -1, "operator does not exist: - %s", typeName(c.t))
}

func (pl *planner) like(l, r expr, not bool, pos int) (expr, error) {
	lt := pl.typeOf(l)
	if lt == oidBytea || pl.typeOf(r) == oidBytea {
		return nil, unsupported(pos, "LIKE on bytea on this path") // sql/exec answers it (bytealike)
	}
	if lt != oidUnknown && !isTextType(lt) {
		return nil, errf(codeUndefinedFunc, pos, "operator does not exist: %s ~~ unknown", typeName(lt)).hint("cast the column to text")
	}
	var err error
	// bpchar ~~ text (bpcharlike) matches the padded value: 'x'::char(4)
	// LIKE 'x' is false; a cast to text would strip the padding.
	if lt != oidBpchar {
		if l, err = pl.coerce(l, oidText, pos); err != nil {
			return nil, err
		}
	}
	if r, err = pl.coerce(r, oidText, pos); err != nil {
		return nil, err
	}
	// LIKE matches characters, as PostgreSQL does under any deterministic
	// collation; under a nondeterministic one it does otherwise.
	if err := pl.textOrderCheck(pos, oidText, true, l, r); err != nil {
		return nil, err
	}
	return &likeExpr{arg: l, pat: r, not: not}, nil
}

// isAggName says whether fn is an aggregate the evaluator computes.
func isAggName(fn string) bool {
	switch fn {
	case "count", "sum", "min", "max", "avg":
		return true
	}
	return builtins().IsAggregate(fn)
}

func (pl *planner) funcCall(f *pg.FuncCall) (expr, error) {
	pos := int(f.Location)
	name := catalogName(f.Funcname)
	if err := pl.userFuncShadow(name, pos); err != nil {
		return nil, err // vexec_userfunc.go
	}
	if f.Over != nil {
		return nil, unsupported(pos, "a window function")
	}
	if lplan.RegrAggs[name] {
		return nil, unsupported(pos, "the aggregate "+name+" on this path") // sql/exec computes it (sql/exec/aggregr.go)
	}
	if isAggName(name) {
		return pl.aggregate(name, f)
	}
	if pgAggregates[name] {
		// An aggregate of PostgreSQL's this evaluator does not compute
		// (string_agg, array_agg, json_agg, …): sql/exec binds it as
		// PostgreSQL does, or refuses it. Compiling its arguments here
		// would read `SELECT g, string_agg(s, ',') … GROUP BY g`'s s as
		// an ungrouped column (42803, where PostgreSQL answers).
		return nil, unsupported(pos, "the aggregate "+name+" on this path")
	}
	if f.AggStar || f.AggDistinct || len(f.AggOrder) > 0 || f.AggFilter != nil {
		return nil, unsupported(pos, "this call of "+name)
	}
	var args []expr
	for _, a := range f.Args {
		e, err := pl.compile(a)
		if err != nil {
			if e := (*Error)(nil); pl.aggMode && !pl.inAgg && errors.As(err, &e) && e.Code == codeGrouping && !builtins().Has(name) {
				// An ungrouped column in the arguments of a function
				// the library does not know: it may be a user-defined
				// aggregate, which PostgreSQL answers over ungrouped
				// columns, so the statement goes to sql/exec (which
				// binds it as PostgreSQL does, or refuses it). A
				// built-in scalar function's 42803 is PostgreSQL's.
				return nil, unsupported(pos, "the function "+name+" over ungrouped columns on this path")
			}
			return nil, err
		}
		args = append(args, e)
	}
	return pl.scalarFunc(name, args, f)
}

func (pl *planner) aggregate(name string, f *pg.FuncCall) (expr, error) {
	pos := int(f.Location)
	if !pl.aggMode {
		return nil, errf(codeGrouping, pos, "aggregate functions are not allowed here")
	}
	if pl.inAgg {
		return nil, errf(codeGrouping, pos, "aggregate function calls cannot be nested")
	}
	if len(f.AggOrder) > 0 || f.AggFilter != nil || f.AggWithinGroup {
		return nil, unsupported(pos, "ORDER BY or FILTER in an aggregate")
	}
	a := &aggSpec{fn: name, star: f.AggStar, distinct: f.AggDistinct}
	if f.AggStar {
		if name != "count" {
			return nil, errf(codeSyntax, pos, "%s(*) is not an aggregate sidecar knows", name)
		}
		a.t = oidInt8
	} else {
		if len(f.Args) != 1 {
			return nil, errf(codeUndefinedFunc, pos, "function %s with %d arguments does not exist", name, len(f.Args))
		}
		pl.inAgg = true
		arg, err := pl.compile(f.Args[0])
		pl.inAgg = false
		if err != nil {
			return nil, err
		}
		at := pl.typeOf(arg)
		if at == oidUnknown {
			if name == "count" || name == "min" || name == "max" {
				if arg, err = pl.coerce(arg, oidText, pos); err != nil {
					return nil, err
				}
				at = oidText
			} else {
				return nil, errf(codeUndefinedFunc, pos, "function %s(unknown) is not unique", name)
			}
		}
		a.arg = arg
		if a.distinct {
			if err := pl.textOrderCheck(pos, at, true, arg); err != nil {
				return nil, err
			}
			if !comparableType(at, "=") {
				return nil, unsupported(pos, name+"(DISTINCT) on type "+typeName(at))
			}
		}
		switch name {
		case "count":
			a.t = oidInt8
		case "min", "max":
			// The type catalog's rule says which min/max PostgreSQL has
			// (none of boolean or uuid); the flat evaluator answers those
			// it orders itself and leaves the rest to sql/exec, which
			// answers or gives PostgreSQL's own error (typefacts.go).
			if _, err := types.AggResult(name, types.OID(at)); err != nil || !comparableType(at, "<") {
				return nil, unsupported(pos, name+"("+typeName(at)+") on the flat evaluator")
			}
			if err := pl.textOrderCheck(pos, at, false, arg); err != nil {
				return nil, err
			}
			a.t = at
			if at == oidVarchar || at == oidName {
				a.t = oidText // min(varchar) is min(text)
			}
		case "sum":
			switch {
			case at == oidInt2 || at == oidInt4:
				a.t = oidInt8
			case at == oidInt8 || at == oidNumeric:
				a.t = oidNumeric
			case isFloatType(at):
				a.t = at
			case at == oidInterval:
				return nil, unsupported(pos, "sum(interval)")
			default:
				return nil, errf(codeUndefinedFunc, pos, "function sum(%s) does not exist", typeName(at))
			}
		case "avg":
			switch {
			case isIntType(at) && at != oidOID, at == oidNumeric:
				a.t = oidNumeric
			case isFloatType(at):
				a.t = oidFloat8
			default:
				return nil, errf(codeUndefinedFunc, pos, "function avg(%s) does not exist", typeName(at))
			}
		default:
			if err := pl.libAggregate(a, at, pos); err != nil {
				return nil, err
			}
		}
	}
	pl.p.aggs = append(pl.p.aggs, a)
	return &aggRef{i: len(pl.p.aggs) - 1, t: a.t}, nil
}

// figureName is the column name PostgreSQL gives a target without AS.
// b15: the followed major is before 15, whose parser read TRUE and FALSE
// as casts of 't' and 'f' to bool, named "bool" (from 15 a constant,
// "?column?").
func figureName(n *pg.Node, b15 bool) (string, int) {
	switch {
	case b15 && n.GetAConst() != nil && n.GetAConst().GetBoolval() != nil:
		return "bool", 1
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		if s := f[len(f)-1].GetString_(); s != nil {
			return s.Sval, 2
		}
	case n.GetFuncCall() != nil:
		names := strs(n.GetFuncCall().Funcname)
		return names[len(names)-1], 2
	case n.GetTypeCast() != nil:
		if name, s := figureName(n.GetTypeCast().Arg, b15); s > 1 {
			return name, s
		}
		names := strs(n.GetTypeCast().TypeName.Names)
		t, _, err := typeOID(n.GetTypeCast().TypeName)
		if err == nil {
			return typname(t), 1
		}
		return names[len(names)-1], 1
	case n.GetCoalesceExpr() != nil:
		return "coalesce", 2
	case n.GetSqlvalueFunction() != nil:
		return sqlValueName(n.GetSqlvalueFunction()), 2
	case n.GetCollateClause() != nil:
		return figureName(n.GetCollateClause().Arg, b15)
	case n.GetCaseExpr() != nil:
		if d := n.GetCaseExpr().Defresult; d != nil {
			if name, s := figureName(d, b15); s > 1 {
				return name, s // named after its ELSE
			}
		}
		return "case", 1
	}
	return "?column?", 0
}

// before15 says whether the followed server's major is known and older
// than 15 (serverVersion).
func before15(tables []Table) bool {
	v := serverVersion(tables)
	return v != 0 && v < 150000
}
