package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/sql/builtin"
)

// OrderedAggArgs is how many value arguments the aggregate name takes
// when it is one whose value keeps its input's order (array_agg, the
// json aggregates): its AggExpr's Args are those values followed by
// the keys of its ORDER BY. 0 for every other aggregate.
func OrderedAggArgs(name string) int {
	switch name {
	case "array_agg", "json_agg", "jsonb_agg":
		return 1
	case "json_object_agg", "jsonb_object_agg":
		return 2
	}
	return 0
}

// jsonAgg binds json_agg, jsonb_agg, json_object_agg and
// jsonb_object_agg (their value arguments bound): an untyped literal is
// an error for json[b]_agg (anyelement) and text for the object
// aggregates ("any"), a value type whose JSON
// form the library does not print and DISTINCT are refused; ORDER BY
// keys are bound and appended to Args.
func (b *binder) jsonAgg(ae *AggExpr, f *pg.FuncCall, sc *scope, ctx *exprCtx) error {
	if ae.Distinct {
		return unsupported(ae.Name+"(DISTINCT …)", f.Location)
	}
	for i, a := range ae.Args {
		t := a.Type()
		if t.OID == Unknown && len(ae.Args) == 1 {
			// json_agg(anyelement): PostgreSQL cannot resolve it.
			return errorf(CodeDatatypeMismatch, "could not determine polymorphic type because input has type unknown").at(f.Location)
		}
		if t.OID == Unknown {
			ae.Args[i] = coerce(a, T(Text)) // "any": printed as text
			continue
		}
		if !builtin.JSONConvertible(t.OID) {
			return unsupported(ae.Name+" of a value of type "+t.String(), f.Location)
		}
	}
	return b.aggOrderBy(ae, f, sc, ctx)
}
