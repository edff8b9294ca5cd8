package sqlfront

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// cursorScroll decides whether a declared cursor may move backward, as
// PostgreSQL's PerformCursorOpen does: SCROLL may, NO SCROLL may not, and
// a cursor declared with neither may when its plan supports a backward
// scan (ExecSupportsBackwardScan: scans, Sort, Material, Limit and Append
// of such do; Result without a child, Agg, Group, Unique, WindowAgg,
// ProjectSet, joins and IncrementalSort do not). Sidecar does not see
// PostgreSQL's plan, so only statements whose plan is certain are decided
// (cursors are planned without parallel workers, so no Gather):
//
//   - one followed ordinary table (its inheritance children included),
//     no WHERE, no ORDER BY, no grouping and a target list of columns,
//     constants and operators: a Seq Scan (or an Append of them) under
//     an optional Limit — backward;
//   - VALUES of two rows or more (ORDER BY, LIMIT allowed): a Values Scan
//     under an optional Sort and Limit — backward;
//   - no ORDER BY over grouping, aggregates, DISTINCT, window functions
//     or no FROM at all: an Agg, Group, Unique, WindowAgg, ProjectSet or
//     Result is the top node below an optional Limit — forward only.
//
// Anything else (WHERE: an index or bitmap scan or a constant-false
// Result; ORDER BY over a table: Sort, Index Scan or Incremental Sort;
// joins, set operations, CTEs, functions in FROM) is scrollUnknown.
func cursorScroll(d *pg.DeclareCursorStmt, sel *plan) scrollMode {
	switch {
	case d.Options&cursorOptScroll != 0:
		return scrollYes
	case d.Options&cursorOptNoScroll != 0:
		return scrollNo
	}
	s := d.Query.GetSelectStmt()
	if s == nil || s.Op != pg.SetOperation_SETOP_NONE || s.WithClause != nil || len(s.LockingClause) > 0 || s.IntoClause != nil {
		return scrollUnknown
	}
	if len(s.ValuesLists) > 0 {
		if len(s.ValuesLists) >= 2 {
			return scrollYes
		}
		return scrollUnknown
	}
	ordered := len(s.SortClause) > 0
	forwardOnly := len(s.GroupClause) > 0 || s.HavingClause != nil || len(s.DistinctClause) > 0 ||
		len(s.WindowClause) > 0 || len(s.FromClause) == 0 || windowCall(s.TargetList) ||
		sel != nil && sel.vec == nil && (len(sel.aggs) > 0 || sel.grouping)
	if forwardOnly {
		if ordered {
			return scrollUnknown // a Sort over them, or an ordered Agg/Unique
		}
		return scrollNo
	}
	if ordered || s.WhereClause != nil || len(s.FromClause) != 1 || s.FromClause[0].GetRangeVar() == nil {
		return scrollUnknown
	}
	if sel == nil || sel.vec != nil || len(sel.from) != 1 || sel.from[0].table == nil || sel.from[0].table.part != nil ||
		sel.from[0].partOnly || len(sel.aggs) > 0 || sel.grouping || sel.distinct {
		return scrollUnknown
	}
	for _, t := range s.TargetList {
		if !plainTarget(t.GetResTarget().GetVal()) {
			return scrollUnknown
		}
	}
	return scrollYes
}

// windowCall says whether a target calls a window function at its top.
func windowCall(targets []*pg.Node) bool {
	for _, t := range targets {
		if f := t.GetResTarget().GetVal().GetFuncCall(); f != nil && f.Over != nil {
			return true
		}
	}
	return false
}

// plainTarget says whether e is built of columns, constants, casts and
// built-in operators only: no function (a set-returning one would put a
// ProjectSet over the scan) and no subquery.
func plainTarget(e *pg.Node) bool {
	if e == nil {
		return false
	}
	switch n := e.Node.(type) {
	case *pg.Node_ColumnRef, *pg.Node_AConst:
		return true
	case *pg.Node_TypeCast:
		return plainTarget(n.TypeCast.Arg)
	case *pg.Node_AExpr:
		if n.AExpr.Kind != pg.A_Expr_Kind_AEXPR_OP {
			return false
		}
		return (n.AExpr.Lexpr == nil || plainTarget(n.AExpr.Lexpr)) && plainTarget(n.AExpr.Rexpr)
	}
	return false
}
