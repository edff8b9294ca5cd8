package sqlfront

import (
	"errors"
	"strings"

	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/query"
)

// This file plans grouped SELECTs over one followed table onto the query
// engine (query/): aggregates, GROUP BY, WHERE, HAVING, ORDER BY and
// LIMIT/OFFSET become a query.Request, run over the in-memory HEAD's heap
// (or, for AS OF, over the tree at that version through query.RunTree).
// What the engine cannot express (expressions in the select list or in
// an aggregate's argument, DISTINCT, joins, catalog relations, types it
// does not hold, NULLS FIRST/LAST against the default) stays on the
// row-at-a-time evaluator of expr.go, with the same results.
//
// Typing stays the planner's (PostgreSQL's rules for untyped literals and
// parameters): a predicate is handed over only when it compares a column
// with a constant already coerced to that column's own type, so the
// engine's comparison is the one PostgreSQL makes.

// aggPlan is the part of a plan the query engine runs.
type aggPlan struct {
	groupBy []string
	aggs    []query.Agg
	where   *qexpr
	having  *qexpr
	order   []query.Order
	out     []int // per target: its result column
	// post: the engine computes the groups and aggregates only; the
	// evaluator computes the select list, HAVING, ORDER BY, OFFSET and
	// LIMIT over them (runEngineGroups). groupCols[g] is GROUP BY
	// column g's index in the table, aggOf[i] the result column of the
	// plan's aggregate i.
	post      bool
	groupCols []int
	aggOf     []int
}

// qexpr is a query.Expr whose values are constant expressions of the plan
// (literals, parameters), evaluated per execution.
type qexpr struct {
	op   string
	args []*qexpr
	col  string
	vals []expr
	t    uint32 // the type the values are printed in
	like bool   // vals[0] is a LIKE pattern: only a literal prefix is handed over
}

// errNotEngine: this execution cannot run on the engine (a NULL constant,
// a LIKE pattern it does not take, a type its binder refuses); the
// row-at-a-time evaluator answers.
var errNotEngine = errors.New("not for the query engine")

// build evaluates the values of q for one execution.
func (q *qexpr) build(e *env) (*query.Expr, error) {
	if q == nil {
		return nil, nil
	}
	out := &query.Expr{Op: q.op, Col: q.col}
	for _, a := range q.args {
		b, err := a.build(e)
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, b)
	}
	for _, ve := range q.vals {
		v, err := ve.eval(e)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, errNotEngine
		}
		s, _ := render(v, q.t)
		if q.like {
			body, _ := strings.CutSuffix(s, "%")
			if strings.ContainsAny(body, "%_\\") {
				return nil, errNotEngine
			}
		}
		out.Values = append(out.Values, s)
	}
	return out, nil
}

// engineWhereType says whether the engine compares values of column type
// t exactly as PostgreSQL does: integers, double precision (exact round
// trip of the shortest text), text and varchar (bytewise, as sidecar's
// evaluator does), numeric (by value: the constant's canonical text is
// read as an exact rational; NaN above every number, as PostgreSQL
// orders it), date, timestamp and timestamptz (the constant as the
// evaluator normalised it: ISO text, timestamptz in UTC with its
// offset, read back into the heap's day and microsecond integers). real
// is left out: the engine reads a literal as float64, PostgreSQL as
// float4.
func engineWhereType(t uint32) bool {
	return isIntType(t) && t != oidOID || t == oidFloat8 || t == oidText || t == oidVarchar ||
		t == oidNumeric || t == oidDate || t == oidTimestamp || t == oidTimestamptz
}

// engineAggType: the column types the engine aggregates (count, sum,
// min, max, avg) for the SQL front end: integers, float8, float4, text,
// varchar, numeric (sum and avg with PostgreSQL's result scales, as
// query's PostgreSQL corpus checks), date and timestamp. timestamptz
// stays on the evaluator. GROUP BY only integers and text (whose groups
// are bytes, as PostgreSQL's equality makes them).
func engineAggType(t uint32) bool {
	return isIntType(t) && t != oidOID || t == oidFloat8 || t == oidFloat4 || t == oidText || t == oidVarchar ||
		t == oidNumeric || t == oidDate || t == oidTimestamp
}

func engineGroupType(t uint32) bool {
	return isIntType(t) && t != oidOID || t == oidText || t == oidVarchar
}

// planEngine fills p.agg when the query engine can run the whole grouped
// SELECT p (see the file comment); it leaves it nil otherwise.
func (pl *planner) planEngine() {
	p := pl.p
	if !p.grouping || p.distinct || len(p.from) != 1 || p.from[0].table == nil || p.noRows {
		return
	}
	cols := p.from[0].table.Columns
	a := &aggPlan{}
	groupIdx := map[int]int{}
	for _, g := range p.groupBy {
		c, ok := g.(*colExpr)
		if !ok || !engineGroupType(c.t) || cols[c.idx].TypeOID != c.t {
			return
		}
		if _, dup := groupIdx[c.idx]; dup {
			return
		}
		groupIdx[c.idx] = len(a.groupBy)
		a.groupBy = append(a.groupBy, cols[c.idx].Name)
	}
	aggIdx := map[string]int{}
	aggName := make([]string, len(p.aggs))
	for i, s := range p.aggs {
		q := query.Agg{Func: s.fn}
		if s.distinct {
			return
		}
		if !s.star {
			c, ok := s.arg.(*colExpr)
			if !ok || !engineAggType(c.t) || cols[c.idx].TypeOID != c.t {
				return
			}
			q.Col = cols[c.idx].Name
		} else if s.fn != "count" {
			return
		}
		name := q.Name()
		aggName[i] = name
		if _, ok := aggIdx[name]; !ok {
			aggIdx[name] = len(a.aggs)
			a.aggs = append(a.aggs, q)
		}
	}
	// output names an after-grouping expression: a GROUP BY column or an
	// aggregate; ok=false for anything else.
	output := func(e expr) (name string, res int, t uint32, ok bool) {
		switch x := e.(type) {
		case *colExpr:
			if g, in := groupIdx[x.idx]; in {
				return cols[x.idx].Name, g, x.t, true
			}
		case *aggRef:
			n := aggName[x.i]
			return n, len(a.groupBy) + aggIdx[n], x.t, true
		}
		return "", 0, 0, false
	}
	for _, t := range p.targets {
		_, res, _, ok := output(t)
		if !ok {
			a.post = true
			break
		}
		a.out = append(a.out, res)
	}
	for _, k := range p.order {
		name, _, _, ok := output(k.e)
		if !ok || k.nullsFirst != k.desc {
			a.post = true
			break
		}
		a.order = append(a.order, query.Order{Key: name, Desc: k.desc})
	}
	if p.where != nil {
		if a.where = pl.engineExpr(p.where, func(e expr) (string, uint32, bool) {
			c, ok := unwrapCol(e)
			if !ok || !engineWhereType(cols[c.idx].TypeOID) {
				return "", 0, false
			}
			return cols[c.idx].Name, cols[c.idx].TypeOID, true
		}); a.where == nil {
			return
		}
	}
	if p.having != nil && !a.post {
		// numeric outputs (sum(bigint), avg) stay on the evaluator.
		if a.having = pl.engineExpr(p.having, func(e expr) (string, uint32, bool) {
			name, _, t, ok := output(e)
			return name, t, ok && (isIntType(t) || t == oidFloat8 || t == oidText)
		}); a.having == nil {
			a.post = true
		}
	}
	if a.post {
		// The evaluator computes the select list, HAVING and ORDER BY
		// over the engine's groups (runEngineGroups): they may read
		// only the aggregates and the GROUP BY columns, the values a
		// group row of the engine holds.
		a.out, a.order, a.having = nil, nil, nil
		for _, e := range p.targets {
			if !onlyGroupCols(e, groupIdx) {
				return
			}
		}
		for _, k := range p.order {
			if !onlyGroupCols(k.e, groupIdx) {
				return
			}
		}
		if p.having != nil && !onlyGroupCols(p.having, groupIdx) {
			return
		}
		a.aggOf = make([]int, len(p.aggs))
		for i, n := range aggName {
			a.aggOf[i] = len(a.groupBy) + aggIdx[n]
		}
		a.groupCols = make([]int, len(a.groupBy))
		for c, g := range groupIdx {
			a.groupCols[g] = c
		}
	}
	p.agg = a
}

// onlyGroupCols says whether the after-grouping expression e reads no
// column but the GROUP BY columns in groupIdx (aggregates are leaves:
// their arguments are the engine's).
func onlyGroupCols(e expr, groupIdx map[int]int) bool {
	ok := true
	walk(e, func(x expr) {
		if c, isCol := x.(*colExpr); isCol {
			if _, in := groupIdx[c.idx]; !in {
				ok = false
			}
		}
	})
	return ok
}

// sameKind says whether values of types a and b compare as the engine
// compares a column of type b: equal types, two integer types (compared
// as int64), or text and varchar.
func sameKind(a, b uint32) bool {
	isText := func(t uint32) bool { return t == oidText || t == oidVarchar }
	return a == b || isIntType(a) && isIntType(b) && a != oidOID && b != oidOID || isText(a) && isText(b)
}

// unwrapCol is the column under e, through casts that widen an integer or
// read varchar as text (both keep the value and its order).
func unwrapCol(e expr) (*colExpr, bool) {
	for {
		switch x := e.(type) {
		case *colExpr:
			return x, true
		case *castExpr:
			widen := isIntType(x.from) && isIntType(x.to) && x.from != oidOID && x.to != oidOID && numRank(x.from) <= numRank(x.to)
			if !widen && !(x.from == oidVarchar && x.to == oidText) {
				return nil, false
			}
			e = x.arg
		default:
			return nil, false
		}
	}
}

// engineExpr translates a boolean expression whose operands are named by
// operand (a column for WHERE, an output for HAVING) and constants; nil
// when some part is not expressible.
func (pl *planner) engineExpr(e expr, operand func(expr) (string, uint32, bool)) *qexpr {
	switch x := e.(type) {
	case *boolExpr:
		q := &qexpr{op: x.op}
		for _, a := range x.args {
			b := pl.engineExpr(a, operand)
			if b == nil {
				return nil
			}
			q.args = append(q.args, b)
		}
		return q
	case *cmpExpr:
		l, r, op := x.l, x.r, x.op
		if isConstant(l) && !isConstant(r) {
			flip := map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "<>": "<>", "!=": "!="}
			l, r, op = r, l, flip[op]
		}
		name, t, ok := operand(l)
		if !ok || !isConstant(r) || !sameKind(r.typ(), t) || !sameKind(x.t, t) {
			return nil
		}
		if op == "!=" {
			op = "<>"
		}
		return &qexpr{op: op, col: name, vals: []expr{r}, t: t}
	case *inExpr:
		name, t, ok := operand(x.arg)
		if !ok || !sameKind(x.t, t) {
			return nil
		}
		q := &qexpr{op: "in", col: name, t: t}
		for _, l := range x.list {
			if !isConstant(l) || !sameKind(l.typ(), t) {
				return nil
			}
			q.vals = append(q.vals, l)
		}
		if x.not {
			return &qexpr{op: "not", args: []*qexpr{q}}
		}
		return q
	case *likeExpr:
		name, t, ok := operand(x.arg)
		if !ok || (t != oidText && t != oidVarchar) || !isConstant(x.pat) {
			return nil
		}
		q := &qexpr{op: "like", col: name, vals: []expr{x.pat}, t: oidText, like: true}
		if x.not {
			return &qexpr{op: "not", args: []*qexpr{q}}
		}
		return q
	case *nullTest:
		name, _, ok := operand(x.arg)
		if !ok {
			return nil
		}
		if x.not {
			return &qexpr{op: "is_not_null", col: name}
		}
		return &qexpr{op: "is_null", col: name}
	}
	return nil
}

// runEngine runs p on the query engine and emits its rows, skipping
// offset and stopping after limit (−1: none). errNotEngine: the caller
// runs the evaluator instead.
func (p *plan) runEngine(ex *execCtx, limit, offset int64, emit func([]Value) error) error {
	a := p.agg
	res, err := p.engineResult(ex, &env{params: ex.params, ex: ex}, limit, offset)
	if err != nil {
		return err
	}
	for r := range res.Rows {
		if offset > 0 {
			offset--
			continue
		}
		row := make([]Value, len(a.out))
		for i, c := range a.out {
			txt, ok := res.Text(r, c)
			if !ok {
				continue
			}
			v, err := fromText(p.targets[i].typ(), &txt)
			if err != nil {
				return err
			}
			row[i] = engineCell{v: v, txt: txt}
		}
		if err := emit(row); err != nil {
			return err
		}
	}
	return nil
}

// runEngineGroups is runGrouped with the engine computing the groups
// and aggregates (p.agg.post): for every group it sets e.row (the GROUP
// BY columns' values, the other columns NULL: nothing after grouping
// reads them) and e.aggs, applies HAVING and hands the group to final,
// as runGrouped does. errNotEngine (before any group): the caller runs
// runGrouped instead.
func (p *plan) runEngineGroups(ex *execCtx, e *env, final func(*env) error) error {
	a := p.agg
	res, err := p.engineResult(ex, e, -1, 0)
	if err != nil {
		return err
	}
	cols := p.from[0].table.Columns
	for r := range res.Rows {
		row := make([]Value, len(cols))
		for g, c := range a.groupCols {
			if txt, ok := res.Text(r, g); ok {
				if row[c], err = fromText(cols[c].TypeOID, &txt); err != nil {
					return err
				}
			}
		}
		aggs := make([]Value, len(p.aggs))
		for i, rc := range a.aggOf {
			if txt, ok := res.Text(r, rc); ok {
				if aggs[i], err = fromText(p.aggs[i].t, &txt); err != nil {
					return err
				}
			}
		}
		e.row, e.aggs = row, aggs
		if err := p.groupDone(e, final); err != nil {
			return err
		}
	}
	return nil
}

// engineResult runs the engine's part of p for one execution: WHERE,
// the groups and aggregates and, unless p.agg.post, HAVING, ORDER BY
// and the first limit+offset rows (limit −1: all).
func (p *plan) engineResult(ex *execCtx, e *env, limit, offset int64) (*query.Result, error) {
	a := p.agg
	req := query.Request{Aggs: a.aggs, GroupBy: a.groupBy, OrderBy: a.order}
	var err error
	if req.Where, err = a.where.build(e); err != nil {
		return nil, err
	}
	if req.Having, err = a.having.build(e); err != nil {
		return nil, err
	}
	if limit >= 0 {
		if limit+offset > int64(^uint32(0)>>1) {
			return nil, errNotEngine
		}
		req.Limit = int(limit + offset)
	}
	it := p.from[0]
	if err := ex.ctx.Err(); err != nil {
		return nil, err
	}
	v, err := ex.sess.versionFor(ex.ctx, it.asOf)
	if err != nil {
		return nil, err
	}
	t, err := ex.src.Table(ex.ctx, v, it.table.Name)
	if err != nil {
		return nil, err
	}
	if !sameColumns(&t, it.table) {
		return nil, errReplan
	}
	res, err := ex.src.Aggregate(membudget.WithAccount(ex.ctx, ex.mem), v, &t, req)
	if errors.Is(err, query.ErrBadRequest) {
		return nil, errNotEngine
	}
	if cerr := ex.ctx.Err(); cerr != nil {
		return nil, cerr // cancel or statement_timeout: the run stopped within a page per worker
	}
	if merr := ex.memError(err); merr != nil {
		return nil, merr // memory.query: 53200
	}
	var se *Error
	if errors.As(err, &se) {
		return nil, se // the source's own answer (errReplan after a resync)
	}
	if err != nil {
		// A type catalog error keeps its SQLSTATE (0A000: a float sum
		// whose value depends on the order of rows); others are XX000,
		// or XX001 for a damaged page.
		return nil, toError(typesErr(err))
	}
	return res, nil
}

// engineCell is a value the query engine computed, with the text it
// printed (PostgreSQL's output function's): the wire sends that text, or
// the binary form of v.
type engineCell struct {
	v   Value
	txt string
	// base, when set, is v's text in the default style while txt is
	// printed under a session setting (IntervalStyle): the binary form
	// and a re-read of the value start from it.
	base string
}

// plainText is the text the value reads back from (base, else txt).
func (c engineCell) plainText() string {
	if c.base != "" {
		return c.base
	}
	return c.txt
}
