package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// RegrAggs are the two-argument statistics aggregates of PostgreSQL's
// float.c (corr, covar_pop, covar_samp, regr_*): (Y, X) double precision
// pairs accumulated by float8_regr_accum; sql/exec/aggregr.go computes
// them. regr_count is bigint, the others double precision.
var RegrAggs = map[string]bool{"corr": true, "covar_pop": true, "covar_samp": true, "regr_avgx": true, "regr_avgy": true,
	"regr_count": true, "regr_intercept": true, "regr_r2": true, "regr_slope": true, "regr_sxx": true, "regr_sxy": true, "regr_syy": true}

// regrAgg binds name(Y, X): both arguments double precision (the number
// types cast implicitly; an untyped literal is read as one). DISTINCT
// and ORDER BY inside are refused (their float answers depend on the
// order PostgreSQL's sort leaves rows in).
func (b *binder) regrAgg(name string, ae *AggExpr, f *pg.FuncCall) error {
	if f.AggWithinGroup {
		return errorf(CodeWrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name).at(f.Location)
	}
	if len(ae.Args) != 2 {
		return errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(ae.Args)).at(f.Location)
	}
	if ae.Distinct || len(f.AggOrder) > 0 {
		return unsupported(name+" with DISTINCT or ORDER BY", f.Location)
	}
	for i, a := range ae.Args {
		switch t := a.Type().OID; {
		case t == Float8:
		case t == Unknown:
			ae.Args[i] = coerce(a, T(Float8))
		case types.CastContext(t, Float8) == types.CastImplicit:
			ae.Args[i] = &Cast{Arg: a, T: T(Float8)}
		default:
			e := errorf(CodeUndefinedFunction, "function %s(%s, %s) does not exist", name, ae.Args[0].Type(), ae.Args[1].Type()).at(f.Location)
			e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
			return e
		}
	}
	ae.T = T(Float8)
	if name == "regr_count" {
		ae.T = T(Int8)
	}
	return nil
}
