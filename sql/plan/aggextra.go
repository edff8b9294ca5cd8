package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// The aggregates bound here: string_agg and the ordered-set aggregates
// percentile_cont, percentile_disc and mode (… WITHIN GROUP (ORDER BY …)).
//
// An AggExpr with ORDER BY keys carries them last in Args: the values
// are Args[:len(Args)-len(Order)]. For an ordered-set
// aggregate the values are its direct arguments (the fraction) and the
// one key is the aggregated value.

// orderedSetAggs are the ordered-set aggregates the executor computes:
// their number of direct arguments.
var orderedSetAggs = map[string]int{"percentile_cont": 1, "percentile_disc": 1, "mode": 0}

// isExtraAgg says whether name is one of the aggregates bound by
// extraAgg.
func (b *binder) isExtraAgg(name string) bool {
	_, ok := orderedSetAggs[name]
	return ok || name == "string_agg" || RegrAggs[name] || HypoAggs[name] // aggregr.go, agghypo.go
}

// extraAgg binds the arguments of an aggregate isExtraAgg names and its
// result type. The caller has bound ae.Args from f.Args (the direct
// arguments of an ordered-set aggregate) and checks FILTER.
func (b *binder) extraAgg(name string, ae *AggExpr, f *pg.FuncCall, sc *scope, ctx *exprCtx) error {
	if n, ok := orderedSetAggs[name]; ok {
		return b.orderedSetAgg(name, n, ae, f, sc, ctx)
	}
	if RegrAggs[name] {
		return b.regrAgg(name, ae, f) // aggregr.go
	}
	if HypoAggs[name] {
		return b.hypoAgg(name, ae, f, sc, ctx) // agghypo.go
	}
	if f.AggWithinGroup {
		return errorf(CodeWrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name).at(f.Location)
	}
	if name == "string_agg" {
		return b.stringAgg(ae, f, sc, ctx)
	}
	return errorf(CodeUndefinedFunction, "function %s does not exist", name).at(f.Location)
}

// stringAgg binds string_agg(value text, delimiter text [ORDER BY …]):
// both arguments text (string types widen implicitly; an untyped literal
// is text), or both bytea.
func (b *binder) stringAgg(ae *AggExpr, f *pg.FuncCall, sc *scope, ctx *exprCtx) error {
	if len(ae.Args) != 2 {
		return errorf(CodeUndefinedFunction, "function string_agg with %d arguments does not exist", len(ae.Args)).at(f.Location)
	}
	written := append([]Scalar(nil), ae.Args...) // before coercion: DISTINCT's keys are compared with these
	// string_agg(bytea, bytea) when an argument is bytea and the other
	// bytea or untyped; string_agg(text, text) otherwise.
	str := T(Text)
	t0, t1 := ae.Args[0].Type().OID, ae.Args[1].Type().OID
	if (t0 == types.Bytea || t1 == types.Bytea) && (t0 == types.Bytea || t0 == Unknown) && (t1 == types.Bytea || t1 == Unknown) {
		str = T(types.Bytea)
	}
	for i, a := range ae.Args {
		t := a.Type().OID
		switch {
		case str.OID == types.Bytea:
			if t == Unknown {
				ae.Args[i] = coerce(a, str)
			}
		case t == Unknown:
			ae.Args[i] = coerce(a, T(Text))
		case t == Text:
		case types.CastContext(t, Text) == types.CastImplicit:
			ae.Args[i] = &Cast{Arg: a, T: T(Text)}
		default:
			e := errorf(CodeUndefinedFunction, "function string_agg(%s, %s) does not exist", ae.Args[0].Type(), ae.Args[1].Type()).at(f.Location)
			e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
			return e
		}
	}
	if err := b.aggOrderBy(ae, f, sc, ctx); err != nil {
		return err
	}
	if ae.Distinct && len(ae.Order) > 0 {
		if err := distinctOrderKeys(ae, written, f.Location); err != nil {
			return err // array.go
		}
		for i, k := range ae.Args[2:] { // a key that is the value or delimiter: as coerced
			for j, w := range written {
				if Equal(k, w) {
					ae.Args[2+i] = ae.Args[j]
				}
			}
		}
	}
	ae.T = str
	return nil
}

// orderedSetAgg binds name(direct…) WITHIN GROUP (ORDER BY key): the
// direct arguments (the fraction, float8) must not read columns (the
// executor evaluates them once); the key is the aggregated value.
func (b *binder) orderedSetAgg(name string, direct int, ae *AggExpr, f *pg.FuncCall, sc *scope, ctx *exprCtx) error {
	if !f.AggWithinGroup {
		return errorf(CodeWrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name).at(f.Location)
	}
	if ae.Distinct {
		return errorf(CodeFeatureNotSupported, "cannot use DISTINCT with WITHIN GROUP").at(f.Location)
	}
	if len(ae.Args) != direct || len(f.AggOrder) != 1 {
		return errorf(CodeUndefinedFunction, "function %s with %d direct and %d aggregated arguments does not exist", name, len(ae.Args), len(f.AggOrder)).at(f.Location)
	}
	multi := false
	for i, a := range ae.Args {
		if ColumnsOf(a).Len() > 0 {
			return unsupported("a direct argument of "+name+" that reads columns", f.Location)
		}
		switch t := a.Type().OID; {
		case t == Unknown:
			ae.Args[i] = coerce(a, T(Float8))
		case t == Float8:
		case IsArray(a.Type()):
			// percentile_cont/percentile_disc(float8[]): one result per
			// fraction, an array (aggarray.go's multi form).
			switch e := ElemType(a.Type()).OID; {
			case e == Float8:
			case types.CastContext(e, Float8) == types.CastImplicit:
				ae.Args[i] = &Cast{Arg: a, T: ArrayType(T(Float8))}
			default:
				return errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, a.Type()).at(f.Location)
			}
			multi = true
		case types.CastContext(t, Float8) == types.CastImplicit:
			ae.Args[i] = &Cast{Arg: a, T: T(Float8)}
		default:
			return errorf(CodeUndefinedFunction, "function %s(%s) does not exist", name, a.Type()).at(f.Location)
		}
	}
	if err := b.aggOrderBy(ae, f, sc, ctx); err != nil {
		return err
	}
	k := len(ae.Args) - 1
	key := ae.Args[k]
	switch name {
	case "percentile_cont":
		switch t := key.Type().OID; {
		case t == Float8:
		case t == Interval:
			return unsupported("percentile_cont over interval values", f.Location)
		case t == Unknown || types.CastContext(t, Float8) == types.CastImplicit:
			ae.Args[k] = cast(key, T(Float8))
		default:
			return errorf(CodeUndefinedFunction, "function percentile_cont(double precision ORDER BY %s) does not exist", key.Type()).at(f.Location)
		}
		ae.T = T(Float8)
		if multi {
			ae.T = ArrayType(T(Float8))
		}
	default: // percentile_disc, mode: anyelement
		t := key.Type()
		if t.OID == Unknown {
			ae.Args[k] = coerce(key, T(Text))
			t = T(Text)
		}
		if !types.Orderable(t.OID) {
			return unsupported(name+" over values of type "+t.String(), f.Location)
		}
		ae.T = T(t.OID)
		if multi {
			if types.ArrayOf(t.OID) == 0 {
				return unsupported(name+" of an array of fractions over values of type "+t.String(), f.Location)
			}
			ae.T = ArrayType(T(t.OID))
		}
	}
	return nil
}
