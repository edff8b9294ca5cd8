package plan

import (
	"errors"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// PostgreSQL's parse analysis (transformSelectStmt) binds a SELECT's
// clauses in this order: FROM, the select list, WHERE, HAVING, ORDER BY,
// GROUP BY, DISTINCT ON, OFFSET, LIMIT, the WINDOW definitions (every
// one, used or not); grouping errors (a column neither grouped nor
// aggregated, 42803) come after all of them (parseCheckAggregates). Of
// two errors in one statement, the client sees the first in that order:
// `SELECT nosuch1 FROM t WHERE nosuch2 > 0` names nosuch1. bindSimple
// binds in an order of its own (WHERE first, GROUP BY before HAVING),
// so where a clause fails, the clauses PostgreSQL binds before it are
// bound again here, their results discarded, and their first error is
// the statement's. A refusal from them (0A000) does not replace the
// error: PostgreSQL, which binds them, would have raised the other.

// earlier is the error of a clause PostgreSQL binds before the one that
// failed with err: probe's, unless it is nil or a refusal.
func earlier(probe, err error) error {
	var pe *Error
	if probe == nil || errors.As(probe, &pe) && pe.Code == CodeFeatureNotSupported {
		return err
	}
	return probe
}

// probeTargets binds sel's select list (before WHERE).
func (b *binder) probeTargets(sel *pg.SelectStmt, sc *scope) error {
	ws, err := newWinState(sel.WindowClause)
	if err != nil {
		return err
	}
	ws.probe = true // windows are bound after every clause
	ctx := &exprCtx{clause: "SELECT", aggs: &aggState{}, wins: ws, srfs: &srfState{}}
	for _, n := range sel.TargetList {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			if _, err := b.star(cr, sc); err != nil {
				return err
			}
			continue
		}
		if _, err := b.expr(rt.Val, sc, ctx); err != nil {
			return err
		}
	}
	return nil
}

// probeHavingOrder binds HAVING and ORDER BY (before GROUP BY).
func (b *binder) probeHavingOrder(sel *pg.SelectStmt, sc *scope, targets []target) error {
	ag := &aggState{}
	if sel.HavingClause != nil {
		if _, err := b.expr(sel.HavingClause, sc, &exprCtx{clause: "HAVING", aggs: ag}); err != nil {
			return err
		}
	}
	ws, err := newWinState(sel.WindowClause)
	if err != nil {
		return err
	}
	ws.probe = true
	_, err = b.orderKeys(sel.SortClause, sc, targets, &exprCtx{clause: "ORDER BY", aggs: ag, wins: ws})
	return err
}

// probeLate binds OFFSET, LIMIT and the WINDOW definitions (before the
// grouping check).
func (b *binder) probeLate(sel *pg.SelectStmt, sc, parent *scope) error {
	if err := b.probeLimit(sel, parent); err != nil {
		return err
	}
	return b.probeWindowDefs(sel, sc)
}

// probeLimit binds OFFSET and LIMIT (before the WINDOW definitions).
func (b *binder) probeLimit(sel *pg.SelectStmt, parent *scope) error {
	_, err := b.bindLimit(&Values{}, sel, parent)
	return err
}

// bindWindows binds the level's window definitions as PostgreSQL's
// transformWindowDefinitions does, after every other clause: those of
// the WINDOW clause in their order (used or not: an unknown column in a
// window no call uses fails the statement; a refusal there does not,
// a call using it raises it), then each call's own (OVER (…), merged
// with the window it names). A named window a call uses was bound in
// the select list before, so its error named another column than
// PostgreSQL's where a later clause had one too.
func (b *binder) bindWindows(sel *pg.SelectStmt, sc *scope, ws *winState) error {
	if err := earlier(b.probeWindowDefs(sel, sc), nil); err != nil {
		return err
	}
	for _, f := range ws.late {
		if err := f(); err != nil {
			return err
		}
	}
	ws.late = nil
	return nil
}

// probeWindowDefs binds the ORDER BY and PARTITION BY expressions of
// every WINDOW definition, in that order (transformWindowDefinitions
// transforms a definition's ORDER BY first).
func (b *binder) probeWindowDefs(sel *pg.SelectStmt, sc *scope) error {
	for _, n := range sel.WindowClause {
		d := n.GetWindowDef()
		ctx := &exprCtx{clause: "window definition", aggs: &aggState{}}
		for _, o := range d.OrderClause {
			if _, err := b.expr(o.GetSortBy().GetNode(), sc, ctx); err != nil {
				return err
			}
		}
		for _, p := range d.PartitionClause {
			if _, err := b.expr(p, sc, ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
