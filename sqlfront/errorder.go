package sqlfront

import (
	"errors"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// Of two errors in one SELECT, PostgreSQL raises the first in its parse
// analysis order (the select list before WHERE, HAVING and ORDER BY
// before GROUP BY, the grouping check after every clause). sql/plan's
// binder follows that order (its bindorder.go); the flat planner binds
// WHERE first and checks grouping while it binds the select list, so
// `SELECT nosuch1 FROM t WHERE nosuch2 > 0` named nosuch2 and
// `SELECT t FROM mx GROUP BY i4 LIMIT nosuch` failed 42803 where
// PostgreSQL fails 42703. Where the flat planner fails with a name or
// grouping error, the statement is bound on sql/plan too and its error,
// if it has one of the kind, is the statement's. (A malformed literal's
// error stays the flat planner's: sql/plan's binder does not read
// literals, so it cannot tell which comes first.)

// orderedErrCodes are the errors whose order between clauses decides
// which one the client sees: undefined and ambiguous columns, grouping.
var orderedErrCodes = map[string]bool{codeUndefinedColumn: true, "42702": true, codeGrouping: true}

// engineOrderError is sql/plan's binder's error for stmt where the flat
// planner failed with flat, when both are errors of orderedErrCodes
// (nil otherwise: flat stands).
func (pl *planner) engineOrderError(stmt *pg.Node, declared []uint32, flat error) error {
	var fe *Error
	if !errors.As(flat, &fe) || !orderedErrCodes[fe.Code] || !pl.asOfPlannable() {
		return nil
	}
	cat, ptypes := pl.newVecCatalog(declared) // vexec.go
	_, err := lplan.BindParams(stmt, cat, ptypes)
	return engineNameError(err)
}

// engineNameError is err, sql/plan's binder's, as the client's error when
// it is one of orderedErrCodes or a window's (nil otherwise).
func engineNameError(err error) error {
	var pe *lplan.Error
	if !errors.As(err, &pe) || !orderedErrCodes[pe.Code] && !windowError(pe) {
		return nil
	}
	return &Error{Code: pe.Code, Pos: int(pe.Position) - 1, Msg: pe.Message, Detail: pe.Detail, Hint: pe.Hint}
}

// targetsFirst is the error of the select list where WHERE failed with
// err: PostgreSQL binds the select list first, so an unknown column or a
// malformed literal there is the statement's error (`SELECT nosuch FROM
// t WHERE id = 'abc'` fails 42703, not 22P02). Only those errors replace
// err: the select list is bound here out of its place (grouping not yet
// known), for its errors only.
func (pl *planner) targetsFirst(s *pg.SelectStmt, err error) error {
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			continue
		}
		_, terr := pl.compile(rt.Val)
		var te *Error
		if errors.As(terr, &te) && (te.Code == codeUndefinedColumn || te.Code == "42702" || te.Code == "22P02" || te.Code == "22007" || te.Code == "22008") {
			return terr
		}
		if terr != nil {
			return err
		}
	}
	return err
}

// windowError says whether pe is a window's error, which the flat
// planner (refusing windows) never raises: `OVER w` naming no window
// (42704, raised with the select list, before WHERE's errors) and the
// windowing errors (42P20).
func windowError(pe *lplan.Error) bool {
	return pe.Code == lplan.CodeWindowing || pe.Code == "42704" && strings.HasPrefix(pe.Message, "window \"")
}
