package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// orderFreeAggs are the aggregates whose value does not depend on the
// order of their input: an ORDER BY inside them sorts rows PostgreSQL
// then reduces alike in any order.
var orderFreeAggs = map[string]bool{"min": true, "max": true, "count": true, "bool_and": true, "bool_or": true, "every": true}

// orderFreeAgg binds and drops the ORDER BY inside a call of an
// aggregate of orderFreeAggs (min(x ORDER BY y)). Its keys are bound
// (an unknown column is PostgreSQL's error) and must be columns or
// constants of a type with an ordering: evaluating them cannot fail, so
// leaving them out changes nothing; other keys, and ORDER BY in other
// aggregates, are refused (0A000).
func (b *binder) orderFreeAgg(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) error {
	if !orderFreeAggs[name] {
		return unsupported("ORDER BY inside an aggregate", f.Location)
	}
	var keys AggExpr
	inner := &exprCtx{clause: ctx.clause, aggs: ctx.aggs, inAgg: true}
	if err := b.aggOrderBy(&keys, f, sc, inner); err != nil {
		return err
	}
	for _, k := range keys.Args {
		switch k.(type) {
		case *ColRef, *Const:
		default:
			return unsupported("ORDER BY inside "+name+" over an expression", f.Location)
		}
		if !types.Orderable(k.Type().OID) {
			return unsupported("ORDER BY inside "+name+" over a value of type "+k.Type().String(), f.Location)
		}
	}
	return nil
}
