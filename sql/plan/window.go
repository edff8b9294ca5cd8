package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Window frame option bits, as PostgreSQL's parser sets them in
// WindowDef.frameOptions (parsenodes.h FRAMEOPTION_*).
const (
	FrameNonDefault       = 0x00001
	FrameRange            = 0x00002
	FrameRows             = 0x00004
	FrameGroups           = 0x00008
	FrameStartUnbounded   = 0x00020 // UNBOUNDED PRECEDING
	FrameEndUnbounded     = 0x00100 // UNBOUNDED FOLLOWING
	FrameStartCurrent     = 0x00200
	FrameEndCurrent       = 0x00400
	FrameStartPreceding   = 0x00800 // offset PRECEDING
	FrameEndPreceding     = 0x01000
	FrameStartFollowing   = 0x02000 // offset FOLLOWING
	FrameEndFollowing     = 0x04000
	FrameExcludeCurrent   = 0x08000
	FrameExcludeGroup     = 0x10000
	FrameExcludeTies      = 0x20000
	frameDefaults         = FrameRange | FrameStartUnbounded | FrameEndCurrent
	frameStartOffset      = FrameStartPreceding | FrameStartFollowing
	frameEndOffset        = FrameEndPreceding | FrameEndFollowing
	frameExclusion        = FrameExcludeCurrent | FrameExcludeGroup | FrameExcludeTies
	frameBehaviourMask    = ^FrameNonDefault &^ 0x10
	frameModeMask         = FrameRange | FrameRows | FrameGroups
	frameOffsetSomewhere  = frameStartOffset | frameEndOffset
	windowNestedSentinel  = "window function calls cannot be nested"
	windowAggInsideWindow = "aggregate function calls cannot contain window function calls"
)

// Frame is a window frame: Options holds the Frame* bits (mode, bounds,
// exclusion), Start and End the offset expressions of offset bounds
// (constants: they read no column).
type Frame struct {
	Options    int32
	Start, End Scalar
}

// Window computes window functions over its input, sorted by Partition
// then Order (one Window per distinct window specification). Output:
// the input's columns, then one column per function. Every argument is
// an input column (the binder computes expressions below).
type Window struct {
	Input     Rel
	Partition []ColumnID
	Order     []SortKey
	Frame     Frame
	Funcs     []WinFunc
}

// WinFunc is one window function call: a ranking or value function
// (row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag,
// lead, first_value, last_value, nth_value) or an aggregate over the
// frame. Filter is the FILTER column (0: none); Star is count(*).
type WinFunc struct {
	Col    ColumnID
	Name   string
	Args   []ColumnID
	Filter ColumnID
	Star   bool
	T      Type
}

// Columns implements Rel.
func (w *Window) Columns() []ColumnID {
	out := append([]ColumnID(nil), w.Input.Columns()...)
	for _, f := range w.Funcs {
		out = append(out, f.Col)
	}
	return out
}

// Inputs implements Rel.
func (w *Window) Inputs() []Rel { return []Rel{w.Input} }

// winState collects the window function calls of one query level (its
// select list and ORDER BY) and knows its WINDOW clause.
type winState struct {
	defs   map[string]*pg.WindowDef
	calls  []winCall
	nested bool // inside a window function's arguments
	// probe: binding the select list only for its errors (bindorder.go);
	// a window's PARTITION BY and ORDER BY, which PostgreSQL binds after
	// every clause, are not bound
	probe bool
	// late binds each call's window definition, in the calls' order,
	// once the clauses PostgreSQL binds before the windows are bound
	// (bindWindows).
	late []func() error
}

// winCall is one bound window function call, its expressions over the
// level's (grouped) input.
type winCall struct {
	fn     WinFunc
	args   []Scalar
	filter Scalar
	part   []Scalar
	order  []orderKey
	frame  Frame
}

// newWinState reads a level's WINDOW clause (42P20 for a name defined
// twice).
func newWinState(list []*pg.Node) (*winState, error) {
	ws := &winState{defs: map[string]*pg.WindowDef{}}
	for _, n := range list {
		d := n.GetWindowDef()
		if _, dup := ws.defs[d.Name]; dup {
			return nil, errorf(CodeWindowing, "window \"%s\" is already defined", d.Name).at(d.Location)
		}
		ws.defs[d.Name] = d
	}
	return ws, nil
}

// CodeWindowing is PostgreSQL's windowing_error.
const CodeWindowing = "42P20"

// resolveWindow merges OVER's definition with the named window it
// refers to, as PostgreSQL's transformWindowDefinitions does.
func (ws *winState) resolveWindow(over *pg.WindowDef) (*pg.WindowDef, error) {
	if over.Name != "" { // OVER w
		d, ok := ws.defs[over.Name]
		if !ok {
			return nil, errorf("42704", "window \"%s\" does not exist", over.Name).at(over.Location)
		}
		return ws.spec(d)
	}
	return ws.spec(over)
}

// spec is a window definition with the window it names (Refname)
// merged in; its own Name is not a reference.
func (ws *winState) spec(over *pg.WindowDef) (*pg.WindowDef, error) {
	if over.Refname == "" {
		return over, nil
	}
	ref, ok := ws.defs[over.Refname]
	if !ok {
		return nil, errorf("42704", "window \"%s\" does not exist", over.Refname).at(over.Location)
	}
	if ref.Refname != "" {
		var err error
		if ref, err = ws.spec(ref); err != nil {
			return nil, err
		}
	}
	if len(over.PartitionClause) > 0 {
		return nil, errorf(CodeWindowing, "cannot override PARTITION BY clause of window \"%s\"", over.Refname).at(over.Location)
	}
	if len(over.OrderClause) > 0 && len(ref.OrderClause) > 0 {
		return nil, errorf(CodeWindowing, "cannot override ORDER BY clause of window \"%s\"", over.Refname).at(over.Location)
	}
	if ref.FrameOptions&FrameNonDefault != 0 {
		return nil, errorf(CodeWindowing, "cannot copy window \"%s\" because it has a frame clause", over.Refname).at(over.Location)
	}
	out := &pg.WindowDef{PartitionClause: ref.PartitionClause, OrderClause: over.OrderClause,
		FrameOptions: over.FrameOptions, StartOffset: over.StartOffset, EndOffset: over.EndOffset, Location: over.Location}
	if len(out.OrderClause) == 0 {
		out.OrderClause = ref.OrderClause
	}
	return out, nil
}

// windowCall binds f(…) OVER (…): its arguments, FILTER, PARTITION BY,
// ORDER BY and frame, in the level's scope; the expression reads the
// call's output column.
func (b *binder) windowCall(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, error) {
	switch {
	case ctx.inAgg:
		return nil, errorf(CodeGrouping, windowAggInsideWindow).at(f.Location)
	case ctx.wins != nil && ctx.wins.nested:
		return nil, errorf(CodeWindowing, windowNestedSentinel).at(f.Location)
	case ctx.wins == nil:
		return nil, errorf(CodeWindowing, "window functions are not allowed in %s", ctx.clause).at(f.Location)
	}
	ws := ctx.wins
	if f.AggDistinct {
		return nil, errorf(CodeFeatureNotSupported, "DISTINCT is not implemented for window functions").at(f.Location)
	}
	if len(f.AggOrder) > 0 {
		return nil, errorf(CodeFeatureNotSupported, "aggregate ORDER BY is not implemented for window functions").at(f.Location)
	}
	if f.FuncVariadic || f.AggWithinGroup {
		return nil, unsupported("this window function call", f.Location)
	}
	inner := &exprCtx{clause: ctx.clause, aggs: ctx.aggs, wins: &winState{nested: true}}
	call := winCall{fn: WinFunc{Name: name, Star: f.AggStar}}
	for _, a := range f.Args {
		e, err := b.expr(a, sc, inner)
		if err != nil {
			return nil, err
		}
		call.args = append(call.args, e)
	}
	if f.AggFilter != nil {
		if !aggFuncs[name] && name != "array_agg" {
			return nil, errorf(CodeWrongObjectType, "FILTER is not implemented for non-aggregate window functions").at(f.Location)
		}
		e, err := b.expr(f.AggFilter, sc, inner)
		if err != nil {
			return nil, err
		}
		if call.filter, err = boolean(e, "FILTER"); err != nil {
			return nil, err
		}
	}
	t, err := b.windowType(&call, f)
	if err != nil {
		return nil, err
	}
	call.fn.T = t
	if f.Over.Name != "" { // OVER w: a window that does not exist fails here
		if _, err := ws.resolveWindow(f.Over); err != nil {
			return nil, err
		}
	}
	if ws.probe {
		return &Const{T: t, Null: true}, nil
	}
	call.fn.Col = b.md.Add(ColumnMeta{Name: name, Type: t})
	i := len(ws.calls)
	ws.calls = append(ws.calls, call)
	ws.late = append(ws.late, func() error { return b.windowSpec(&ws.calls[i], f.Over, ws, sc, inner) })
	return &ColRef{ID: call.fn.Col, T: t}, nil
}

// windowSpec binds a window call's definition (the window it names
// merged in), as PostgreSQL's transformWindowDefinitions does after
// every other clause of the query level (bindorder.go): its ORDER BY,
// then its PARTITION BY, then its frame.
func (b *binder) windowSpec(call *winCall, over *pg.WindowDef, ws *winState, sc *scope, inner *exprCtx) error {
	def, err := ws.resolveWindow(over)
	if err != nil {
		return err
	}
	for _, n := range def.OrderClause {
		sb := n.GetSortBy()
		k, err := sortDirection(sb)
		if err != nil {
			return err
		}
		if k.e, err = b.expr(sb.Node, sc, inner); err != nil {
			return err
		}
		if err := usingOrdered(sb, k.e.Type()); err != nil {
			return err
		}
		if k.e.Type().OID == Unknown {
			k.e = coerce(k.e, T(Text))
		}
		call.order = append(call.order, k)
	}
	for _, p := range def.PartitionClause {
		e, err := b.expr(p, sc, inner)
		if err != nil {
			return err
		}
		call.part = append(call.part, e)
	}
	call.frame, err = b.frame(def, call.order, sc)
	return err
}

// frame binds a window's frame clause: the mode's requirements and the
// offsets, which may not read columns.
func (b *binder) frame(def *pg.WindowDef, order []orderKey, sc *scope) (Frame, error) {
	fr := Frame{Options: def.FrameOptions}
	if fr.Options&FrameNonDefault == 0 {
		fr.Options = frameDefaults
	}
	mode := "ROWS"
	switch {
	case fr.Options&FrameRange != 0:
		mode = "RANGE"
	case fr.Options&FrameGroups != 0:
		mode = "GROUPS"
		if len(order) == 0 {
			return fr, errorf(CodeWindowing, "GROUPS mode requires an ORDER BY clause").at(def.Location)
		}
	}
	offset := func(n *pg.Node) (Scalar, error) {
		if n == nil {
			return nil, nil
		}
		e, err := b.expr(n, sc, &exprCtx{clause: "window " + mode})
		if err != nil {
			return nil, err
		}
		if ColumnsOf(e).Len() > 0 {
			return nil, errorf(CodeWindowing, "argument of %s must not contain variables", mode)
		}
		var sub bool
		Walk(e, func(x Scalar) bool {
			if _, ok := x.(*Subquery); ok {
				sub = true
			}
			return !sub
		})
		if sub {
			return nil, unsupported("a subquery in a window frame offset", -1)
		}
		if mode == "RANGE" {
			if len(order) != 1 {
				return nil, errorf(CodeWindowing, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column").at(def.Location)
			}
			ot := order[0].e.Type().OID
			switch {
			case isIntOID(ot):
				if !isIntOID(coerce(e, T(Int8)).Type().OID) {
					return nil, unsupported("RANGE with an offset of type "+e.Type().String(), -1)
				}
				return coerce(e, T(Int8)), nil
			case ot == Numeric || ot == Float8 || ot == Float4:
				e = coerce(e, T(ot))
				if ot == Float4 {
					e = coerce(e, T(Float8))
				}
				if n := numericRank(e.Type().OID); n == 0 || n > numericRank(ot) && ot != Float4 {
					return nil, unsupported("RANGE with an offset of type "+e.Type().String(), -1)
				}
				target := Float8
				if ot == Numeric {
					target = Numeric
				}
				return cast(e, T(target)), nil
			case ot == Date || ot == Timestamp || ot == Timestamptz || ot == Time:
				if e = coerce(e, T(Interval)); e.Type().OID != Interval {
					return nil, unsupported("RANGE with an offset of type "+e.Type().String(), -1)
				}
				return e, nil
			}
			return nil, unsupported("RANGE with offset PRECEDING/FOLLOWING over type "+order[0].e.Type().String(), -1)
		}
		e = coerce(e, T(Int8))
		if !isIntOID(e.Type().OID) {
			return nil, errorf(CodeDatatypeMismatch, "argument of %s must be type bigint, not type %s", mode, e.Type())
		}
		return e, nil
	}
	var err error
	if fr.Start, err = offset(def.StartOffset); err != nil {
		return fr, err
	}
	if fr.End, err = offset(def.EndOffset); err != nil {
		return fr, err
	}
	return fr, nil
}

func isIntOID(o OID) bool { return o == Int2 || o == Int4 || o == Int8 }

// winRanking are the window functions without an aggregate form, with
// their result types (0: the first argument's type).
var winRanking = map[string]OID{
	"row_number": Int8, "rank": Int8, "dense_rank": Int8, "percent_rank": Float8, "cume_dist": Float8,
	"ntile": Int4, "lag": 0, "lead": 0, "first_value": 0, "last_value": 0, "nth_value": 0,
}

// windowType checks a window call's arguments and gives its result type
// (PostgreSQL's pg_proc signatures: lag/lead's default is
// anycompatible with the value).
func (b *binder) windowType(c *winCall, f *pg.FuncCall) (Type, error) {
	name := c.fn.Name
	sig := func() string {
		var ts []string
		for _, a := range c.args {
			ts = append(ts, a.Type().String())
		}
		return name + "(" + strings.Join(ts, ", ") + ")"
	}
	noFunc := func() (Type, error) {
		return Type{}, errorf(CodeUndefinedFunction, "function %s does not exist", sig()).at(f.Location)
	}
	intArg := func(i int, to OID) bool {
		c.args[i] = coerce(c.args[i], T(to))
		if t := c.args[i].Type().OID; t == Int2 || t == Int4 || t == to {
			if t != to {
				c.args[i] = &Cast{Arg: c.args[i], T: T(to)}
			}
			return true
		}
		return false
	}
	if aggFuncs[name] {
		if f.AggStar {
			if name != "count" || len(c.args) > 0 {
				return Type{}, errorf(CodeSyntax, "%s(*) specified, but %s is not an aggregate function taking no arguments", name, name).at(f.Location)
			}
			return T(Int8), nil
		}
		if len(c.args) != 1 {
			return noFunc()
		}
		if c.args[0].Type().OID == Unknown {
			c.args[0] = coerce(c.args[0], unknownAggArg(name))
		}
		oid, err := aggResult(name, c.args[0].Type().OID, b.functions().Version())
		if err != nil {
			return Type{}, err
		}
		c.args[0] = minMaxArg(name, c.args[0])
		return T(oid), nil
	}
	if name == "array_agg" {
		return b.windowArrayAgg(c, f) // winarray.go
	}
	res, ok := winRanking[name]
	if !ok {
		return Type{}, unsupported("the window function "+name, f.Location)
	}
	if f.AggStar {
		return Type{}, errorf(CodeSyntax, "%s(*) specified, but %s is not an aggregate function", name, name).at(f.Location)
	}
	switch name {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist":
		if len(c.args) != 0 {
			return noFunc()
		}
		return T(res), nil
	case "ntile":
		if len(c.args) != 1 || !intArg(0, Int4) {
			return noFunc()
		}
		return T(Int4), nil
	case "nth_value":
		if len(c.args) != 2 || !intArg(1, Int4) {
			return noFunc()
		}
	case "first_value", "last_value":
		if len(c.args) != 1 {
			return noFunc()
		}
	case "lag", "lead":
		if len(c.args) < 1 || len(c.args) > 3 || len(c.args) >= 2 && !intArg(1, Int4) {
			return noFunc()
		}
		if len(c.args) == 3 {
			t, err := commonType([]Type{c.args[0].Type(), c.args[2].Type()})
			if err != nil {
				return noFunc()
			}
			for _, i := range []int{0, 2} {
				if c.args[i].Type().OID != t.OID {
					c.args[i] = cast(c.args[i], T(t.OID))
				}
			}
			t.Mod = -1
			if c.args[0].Type() == c.args[2].Type() {
				t = c.args[0].Type()
			}
			return t, nil
		}
	}
	if c.args[0].Type().OID == Unknown {
		c.args[0] = coerce(c.args[0], T(Text))
	}
	return c.args[0].Type(), nil
}

// windows builds the Window operators of a level over rel (its FROM,
// WHERE, grouping and HAVING applied): a Project computes every
// argument, partition and order expression as a column, then one Window
// per distinct specification. rewrite maps expressions onto a grouped
// level's Aggregate output (nil: not grouped). share maps an expression
// of the select list or ORDER BY onto those columns where it is one of
// them (winshare.go).
func (b *binder) windows(rel Rel, ws *winState, rewrite func(Scalar) (Scalar, error)) (_ Rel, share func(Scalar) Scalar, _ error) {
	in := rel.Columns()
	pre := &Project{Input: rel, Cols: append([]ColumnID(nil), in...), Exprs: b.refs(in)}
	byText := map[string]ColumnID{}
	col := func(e Scalar) (ColumnID, error) {
		if rewrite != nil {
			var err error
			if e, err = rewrite(e); err != nil {
				return 0, err
			}
		}
		if c, ok := e.(*ColRef); ok {
			return c.ID, nil
		}
		key := FormatScalar(e, b.md)
		if id, ok := byText[key]; ok {
			return id, nil
		}
		id := b.md.Add(ColumnMeta{Name: "?column?", Type: e.Type()})
		pre.Cols, pre.Exprs = append(pre.Cols, id), append(pre.Exprs, e)
		byText[key] = id
		return id, nil
	}
	var specs []*Window
	var keys []string
	for _, c := range ws.calls {
		w := &Window{Frame: c.frame}
		var key strings.Builder
		for _, p := range c.part {
			id, err := col(p)
			if err != nil {
				return nil, nil, err
			}
			w.Partition = append(w.Partition, id)
			key.WriteString(b.md.Label(id) + ",")
		}
		key.WriteString("|")
		for _, k := range c.order {
			id, err := col(k.e)
			if err != nil {
				return nil, nil, err
			}
			w.Order = append(w.Order, SortKey{Col: id, Desc: k.desc, NullsFirst: k.nullsFirst})
			key.WriteString(b.md.Label(id))
			if k.desc {
				key.WriteString(" desc")
			}
			if k.nullsFirst {
				key.WriteString(" nf")
			}
			key.WriteString(",")
		}
		key.WriteString("|" + string(rune(c.frame.Options)))
		for _, o := range []Scalar{c.frame.Start, c.frame.End} {
			if o != nil {
				key.WriteString("|" + FormatScalar(o, b.md))
			}
		}
		fn := c.fn
		for _, a := range c.args {
			id, err := col(a)
			if err != nil {
				return nil, nil, err
			}
			fn.Args = append(fn.Args, id)
		}
		if c.filter != nil {
			id, err := col(c.filter)
			if err != nil {
				return nil, nil, err
			}
			fn.Filter = id
		}
		k := key.String()
		found := false
		for i, s := range keys {
			if s == k {
				specs[i].Funcs = append(specs[i].Funcs, fn)
				found = true
			}
		}
		if !found {
			w.Funcs = []WinFunc{fn}
			specs, keys = append(specs, w), append(keys, k)
		}
	}
	rel = pre
	for _, w := range specs {
		w.Input = rel
		rel = w
	}
	return rel, b.sharer(byText), nil
}

// explainWindow is a Window's EXPLAIN line.
func explainWindow(w *Window, md *Metadata) string {
	var b strings.Builder
	b.WriteString("Window")
	for i, f := range w.Funcs {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + md.Label(f.Col))
	}
	if len(w.Partition) > 0 {
		b.WriteString(" partition by")
		for _, id := range w.Partition {
			b.WriteString(" " + md.Label(id))
		}
	}
	if len(w.Order) > 0 {
		b.WriteString(" order by")
		for _, k := range w.Order {
			b.WriteString(" " + md.Label(k.Col))
			if k.Desc {
				b.WriteString(" DESC")
			}
		}
	}
	return b.String()
}
