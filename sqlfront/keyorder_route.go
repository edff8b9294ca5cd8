package sqlfront

import (
	"errors"

	pg "github.com/pganalyze/pg_query_go/v6"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// A SELECT from one followed table ordered by its primary key under a
// LIMIT (`ORDER BY id DESC LIMIT 10`, keyset pagination `WHERE id > $1
// ORDER BY id LIMIT 50`) is planned on sql/exec when its optimizer reads
// the table in key order (sql/opt keyorder.go): the rows come from the
// HEAD's index or the tree's cursor, forward or backward, and the read
// stops at the LIMIT, where the flat evaluator reads and sorts every
// row. Anything else the flat planner took — sql/exec refusing it, or
// keeping a sort — stays on the flat plan.

// errKeepFlat is planVec's failure for a statement that stays flat.
var errKeepFlat = errors.New("keep the flat plan")

// keyOrderRoute replans the flat plan just made for n (a SELECT, or
// the SELECT an EXPLAIN shows) on sql/exec when that reads in key order.
// It replaces the flat plan's fast paths for such statements too: the
// engine's row scan (p.rows) reads the in-memory HEAD only, collecting
// the whole key range's row ids before its LIMIT stops it, while the
// trees and AS OF went to the evaluator, which reads every row of the
// range; rows sent as stored (p.direct) read the HEAD in chunks of 4096
// rows, and a client asking for binary results leaves them to the
// evaluator. declared are the parameter types the statement was planned
// with.
func (pl *planner) keyOrderRoute(n *pg.Node, declared []uint32) {
	if es := n.GetExplainStmt(); es != nil {
		n = es.Query
	}
	p := pl.p
	if n.GetSelectStmt() == nil || p.vec != nil || p.copyOut != nil ||
		p.kind != "select" || p.limit == nil || len(p.order) == 0 || p.grouping || p.distinct || p.agg != nil || len(p.aggs) > 0 ||
		len(p.from) != 1 || p.from[0].table == nil || len(p.from[0].keyEq) > 0 || p.inherits() || !pl.asOfPlannable() {
		return
	}
	saved := *pl
	err := pl.planVec(n, declared, func(error) error { return errKeepFlat })
	if err != nil || pl.p.vec == nil || pl.p.vec.query == nil || !readsKeyOrder(pl.p.vec.query.Plan) {
		*pl = saved
		return
	}
	pl.p.markNeeded(len(pl.scope))
	pl.p.params = pl.params
}

// readsKeyOrder says whether rel holds a scan in key order.
func readsKeyOrder(rel lplan.Rel) bool {
	if s, ok := rel.(*lplan.Scan); ok {
		return s.Order != lplan.NoKeyOrder
	}
	for _, in := range rel.Inputs() {
		if readsKeyOrder(in) {
			return true
		}
	}
	return false
}
