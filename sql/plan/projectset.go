package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// Set-returning functions in a select list, with PostgreSQL 10+'s
// ProjectSet semantics: for each input row (after WHERE, grouping and
// window functions) the functions of the list run in lockstep, the row
// is repeated as many times as the longest gives rows, the shorter ones
// padded with NULLs, and an input row for which every one gives no row
// is dropped. That is exactly `FROM input, LATERAL ROWS FROM (f1, f2,
// …)`, which is how they are planned: a LateralJoin over RowsFrom, below
// the select list's projection (so DISTINCT, ORDER BY and LIMIT apply
// to its rows).

// RowsFrom runs set-returning functions in lockstep: its row i holds
// each function's i-th value, NULL for those that ended; it ends when
// every function has.
// It is also ROWS FROM (…) and unnest(a, b, …) in FROM (srf.go).
type RowsFrom struct {
	Funcs []*FuncScan // one column each, no ORDINALITY
	// Ord is WITH ORDINALITY's column numbering the rows (0: none), last.
	Ord ColumnID
}

// Columns implements Rel.
func (r *RowsFrom) Columns() []ColumnID {
	var out []ColumnID
	for _, f := range r.Funcs {
		out = append(out, f.Cols...)
	}
	if r.Ord != 0 {
		out = append(out, r.Ord)
	}
	return out
}

// Inputs implements Rel.
func (*RowsFrom) Inputs() []Rel { return nil }

// srfState collects the set-returning function calls of one select
// list.
type srfState struct {
	calls []*FuncScan
}

// noSRF is ctx inside a construct PostgreSQL refuses set-returning
// functions in (CASE, COALESCE: they would run even where the construct
// does not evaluate the argument).
func (ctx *exprCtx) noSRF(construct string) *exprCtx {
	if ctx == nil || ctx.srfs == nil {
		return ctx
	}
	c := *ctx
	c.srfBan = construct
	return &c
}

// srfCall binds a set-returning function call in an expression: in a
// select list it becomes a column of the level's RowsFrom, elsewhere the
// error PostgreSQL gives (or a refusal where PostgreSQL runs it and the
// planner does not).
func (b *binder) srfCall(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, error) {
	hint := "You might be able to move the set-returning function into a LATERAL FROM item."
	switch {
	case ctx.inAgg:
		return nil, withHint(errorf(CodeFeatureNotSupported, "aggregate function calls cannot contain set-returning function calls"), hint).at(f.Location)
	case ctx.wins != nil && ctx.wins.nested:
		return nil, withHint(errorf(CodeFeatureNotSupported, "window function calls cannot contain set-returning function calls"), hint).at(f.Location)
	case ctx.srfs == nil:
		switch ctx.clause {
		case "ORDER BY", "GROUP BY", "DISTINCT ON":
			return nil, unsupported("a set-returning function in "+ctx.clause, f.Location)
		case "functions in FROM":
			return nil, errorf(CodeFeatureNotSupported, "set-returning functions must appear at top level of FROM").at(f.Location)
		}
		return nil, errorf(CodeFeatureNotSupported, "set-returning functions are not allowed in %s", ctx.clause).at(f.Location)
	case ctx.srfBan != "":
		return nil, withHint(errorf(CodeFeatureNotSupported, "set-returning functions are not allowed in %s", ctx.srfBan), hint).at(f.Location)
	case ctx.inSRF:
		return nil, unsupported("a set-returning function in the arguments of another", f.Location)
	case f.AggStar || f.AggDistinct || f.AggFilter != nil || len(f.AggOrder) > 0 || f.FuncVariadic:
		return nil, unsupported("this call of "+name, f.Location)
	}
	f, err := b.positionalArgs(name, f) // namedargs.go
	if err != nil {
		return nil, err
	}
	inner := *ctx
	inner.inSRF = true
	fs := &FuncScan{Name: name}
	for _, a := range f.Args {
		e, err := b.expr(a, sc, &inner)
		if err != nil {
			return nil, err
		}
		fs.Args = append(fs.Args, e)
	}
	res, ok, err := srfType(fs, f.Location)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(fs.Args)).at(f.Location)
	}
	id := b.md.Add(ColumnMeta{Name: name, Type: res})
	fs.Cols = []ColumnID{id}
	ctx.srfs.calls = append(ctx.srfs.calls, fs)
	if ctx.aggs != nil {
		ctx.aggs.extra.Add(id) // computed above the aggregation
	}
	return &ColRef{ID: id, T: res}, nil
}

// projectSet puts the select list's set-returning functions over rel
// (the level after grouping and windows): their arguments are rewritten
// onto the aggregation's output (rewrite, nil when there is none). A
// GROUP BY on a function's result is refused (PostgreSQL runs those
// below the grouping).
func (b *binder) projectSet(rel Rel, srfs *srfState, groups []Scalar, rewrite func(Scalar) (Scalar, error)) (Rel, error) {
	var mine ColSet
	for _, f := range srfs.calls {
		mine.Add(f.Cols[0])
	}
	for _, g := range groups {
		if ColumnsOf(g).Intersects(mine) {
			return nil, unsupported("GROUP BY a set-returning function of the select list", -1)
		}
	}
	var reads ColSet
	for _, f := range srfs.calls {
		for i, a := range f.Args {
			if rewrite != nil {
				x, err := rewrite(a)
				if err != nil {
					return nil, err
				}
				f.Args[i] = x
			}
			reads.AddSet(ColumnsOf(f.Args[i]))
		}
	}
	return &LateralJoin{Left: rel, Right: &RowsFrom{Funcs: srfs.calls}, Outer: readOf(reads, rel)}, nil
}

// withHint sets e's HINT line.
func withHint(e *Error, hint string) *Error {
	e.Hint = hint
	return e
}

// srfsBelowGrouping puts the select list's set-returning functions
// below the grouping when GROUP BY reads their results (GROUP BY 1 or
// an output name over jsonb_object_keys(j)): PostgreSQL computes such
// grouping expressions in a ProjectSet under the Agg, so the groups are
// of the functions' rows. Done when every function of the list is
// grouped by and reads only the input's columns (then all run in
// lockstep below, as in PostgreSQL's one ProjectSet); other mixes are
// refused. done says whether they were placed.
func (b *binder) srfsBelowGrouping(rel Rel, srfs *srfState, groups []Scalar) (out Rel, done bool, err error) {
	var mine, grouped ColSet
	for _, f := range srfs.calls {
		mine.Add(f.Cols[0])
	}
	for _, g := range groups {
		for _, id := range ColumnsOf(g).Sorted() {
			if mine.Has(id) {
				grouped.Add(id)
			}
		}
	}
	if grouped.Len() == 0 {
		return rel, false, nil
	}
	if grouped.Len() != mine.Len() {
		return nil, false, unsupported("GROUP BY some of the select list's set-returning functions and not others", -1)
	}
	var input, reads ColSet
	for _, id := range rel.Columns() {
		input.Add(id)
	}
	for _, f := range srfs.calls {
		for _, a := range f.Args {
			if !ColumnsOf(a).SubsetOf(input) {
				return nil, false, unsupported("GROUP BY a set-returning function whose arguments read aggregates or outer columns", -1)
			}
			reads.AddSet(ColumnsOf(a))
		}
	}
	return &LateralJoin{Left: rel, Right: &RowsFrom{Funcs: srfs.calls}, Outer: readOf(reads, rel)}, true, nil
}
