package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// The hypothetical-set aggregates rank, dense_rank, percent_rank and
// cume_dist (direct… WITHIN GROUP (ORDER BY key…)): the rank the row of
// direct arguments would have among the group's rows ordered by the
// keys, as PostgreSQL's orderedsetaggs.c computes it. The value counts
// rows, so it does not depend on the order PostgreSQL reads them in.
//
// Bound as an AggExpr whose Args are the direct arguments then the keys
// (as every aggregate with ORDER BY keys: Order holds the keys'
// directions); each direct argument and its key are brought to their
// common type, as PostgreSQL's unify_hypothetical_args does.

// HypoAggs are the hypothetical-set aggregates.
var HypoAggs = map[string]bool{"rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true}

// hypoAgg binds name(direct…) WITHIN GROUP (ORDER BY key…); ae.Args
// holds the direct arguments, bound.
func (b *binder) hypoAgg(name string, ae *AggExpr, f *pg.FuncCall, sc *scope, ctx *exprCtx) error {
	if ae.Distinct {
		return errorf(CodeFeatureNotSupported, "cannot use DISTINCT with WITHIN GROUP").at(f.Location)
	}
	n := len(ae.Args)
	if n != len(f.AggOrder) {
		var ts []string
		for _, a := range ae.Args {
			ts = append(ts, a.Type().String())
		}
		return errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).at(f.Location)
	}
	for _, a := range ae.Args {
		if ColumnsOf(a).Len() > 0 {
			// PostgreSQL evaluates them once per group (grouped columns
			// only, NULL in a grouping set that leaves them out); the
			// executor reads them from the rows.
			return unsupported("a direct argument of "+name+" that reads columns", f.Location)
		}
	}
	if err := b.aggOrderBy(ae, f, sc, ctx); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		d, k := ae.Args[i], ae.Args[n+i]
		if err := hypoCollations(d, k); err != nil {
			return err // agghypo_collate.go
		}
		t, err := commonType([]Type{d.Type(), k.Type()})
		if err != nil {
			return err.(*Error).at(f.Location)
		}
		t.Mod = -1
		for _, j := range []int{i, n + i} {
			a := ae.Args[j]
			switch {
			case a.Type().OID == t.OID:
			case a.Type().OID == Unknown:
				ae.Args[j] = cast(a, t)
			case types.CastContext(a.Type().OID, t.OID) == types.CastImplicit:
				ae.Args[j] = &Cast{Arg: a, T: t}
			default:
				return errorf(CodeDatatypeMismatch, "WITHIN GROUP types %s and %s cannot be matched", k.Type(), d.Type()).at(f.Location)
			}
		}
		if !types.Orderable(t.OID) {
			return unsupported(name+" ordered by a value of type "+t.String(), f.Location)
		}
	}
	if name == "rank" || name == "dense_rank" {
		ae.T = T(Int8)
	} else {
		ae.T = T(Float8)
	}
	return nil
}
