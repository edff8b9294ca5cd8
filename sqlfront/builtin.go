package sqlfront

import (
	"math/rand/v2"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// builtins is PostgreSQL's function library (sql/builtin), built once;
// it is immutable, so every session shares it.
var builtins = sync.OnceValue(builtin.New)

// builtinErr carries a library error (SQLSTATE, message, detail, hint)
// as the front end's, at pos.
func builtinErr(err error, pos int) error {
	be, ok := builtin.AsError(err)
	if !ok {
		return err
	}
	return &Error{Code: be.Code, Msg: be.Message, Detail: be.Detail, Hint: be.Hint, Pos: pos}
}

// builtinCall compiles a call of a function of the library: the
// overload PostgreSQL's rules pick for the arguments' types, untyped
// literals and parameters typed as its parameters, other arguments
// converted by the type catalog's implicit casts when the call runs.
func (pl *planner) builtinCall(name string, args []expr, f *pg.FuncCall) (expr, error) {
	pos := int(f.Location)
	if f.FuncVariadic {
		return nil, unsupported(pos, "VARIADIC in a function call")
	}
	reg := builtins()
	if !reg.Has(name) && len(args) == 1 {
		if to, ok := typeNames[name]; ok {
			// A function-style cast: text(x), float8(x), …
			return pl.castTo(args[0], to, pos)
		}
	}
	return pl.resolvedCall(name, args, pos, reg.Resolve)
}

// resolvedCall compiles a call of name over args by the overload resolve
// picks.
func (pl *planner) resolvedCall(name string, args []expr, pos int, resolve func(string, []uint32) (*builtin.Call, error)) (expr, error) {
	argTypes := make([]uint32, len(args))
	for i, a := range args {
		argTypes[i] = pl.typeOf(a)
	}
	call, err := resolve(name, argTypes)
	if err != nil {
		return nil, builtinErr(err, pos)
	}
	switch name {
	case "sinh", "cosh", "tanh", "asinh", "acosh", "atanh":
		// Their float8 results print under extra_float_digits, which
		// sql/exec follows (vexec_settings.go) and this path does not.
		return nil, unsupported(pos, name+" on this path")
	}
	if call.Result == oidBytea {
		// A bytea result prints under bytea_output, which sql/exec
		// follows (vexec_settings.go) and this path does not.
		return nil, unsupported(pos, "a function of bytea result ("+name+") on this path")
	}
	// Untyped arguments are read as their parameter's type here, so the
	// call converts none of them.
	for i := range args {
		to := call.Params[i]
		if argTypes[i] != oidUnknown {
			continue
		}
		if n, ok := pl.paramType(args[i]); ok && isPseudo(call.Func, i) {
			return nil, errf("42P18", pos, "could not determine data type of parameter $%d", n)
		}
		if args[i], err = pl.coerce(args[i], to, pos); err != nil {
			return nil, err
		}
		argTypes[i] = to
		call.Args[i] = to
	}
	// A funcExpr, so that the planner's walks see the arguments.
	return &funcExpr{args: args, t: call.Result, strict: call.Func.Strict, immutable: call.Func.Volatility == builtin.Immutable, fn: func(e *env, vals []Value) (Value, error) {
		return evalBuiltin(e, call, argTypes, vals)
	}}, nil
}

// isPseudo says whether argument i of a call of f is declared "any" or
// anyelement.
func isPseudo(f *builtin.Func, i int) bool {
	a := f.Args[min(i, len(f.Args)-1)]
	return a == builtin.Any || a == builtin.AnyElement
}

// castTo is a function-style cast of e to type to.
func (pl *planner) castTo(e expr, to uint32, pos int) (expr, error) {
	from := pl.typeOf(e)
	if from == oidUnknown {
		return pl.coerce(e, to, pos)
	}
	if err := pl.opaqueCastRefusal(from, to, pos); err != nil {
		return nil, err // unknowntypes.go
	}
	if !canCast(from, to) {
		return nil, castRefusal(from, to, pos)
	}
	return castOrFold(e, from, to)
}

// builtinOperator compiles l op r (or op r when l is nil) for an
// operator the library implements (~, ^, &, |, #, @, |/, ~ prefix, …);
// ok=false when it has none.
func (pl *planner) builtinOperator(op string, l, r expr, pos int) (expr, bool, error) {
	args := []expr{l, r}
	if l == nil {
		args = []expr{r}
	}
	reg := builtins()
	if !reg.HasOperator(op, l == nil) {
		return nil, false, nil
	}
	e, err := pl.resolvedCall(op, args, pos, reg.ResolveOperator)
	return e, true, err
}

// evalBuiltin runs a library call over evaluator values of the types
// in from. Its errors carry no position: PostgreSQL reports one only for
// errors of parse analysis (a literal's coercion included), never for an
// error a function raises when it runs (sqrt(-1), ln(0)).
func evalBuiltin(e *env, call *builtin.Call, from []uint32, vals []Value) (Value, error) {
	args := make([]types.Value, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		var err error
		if args[i], err = toCatalogValue(v, from[i]); err != nil {
			return nil, builtinErr(err, -1)
		}
	}
	r, err := call.Eval(builtinContext(e), args)
	if err != nil {
		return nil, builtinErr(err, -1)
	}
	return fromCatalogValue(r, call.Result), nil
}

// builtinContext is the statement's clock for the library.
func builtinContext(e *env) *builtin.Context {
	if e != nil && e.ex != nil && e.ex.sess != nil {
		c := e.ex.sess.libraryContext() // clock.go
		c.Ctx = e.ex.ctx                // pg_sleep waits on the statement
		return c
	}
	return &builtin.Context{Random: rand.Float64}
}

// catalogText are the types whose type-catalog value is a string (the
// evaluator's too); other types the evaluator holds as output text are
// read by the type's input function.
func catalogText(t uint32) bool {
	return isTextType(t) || t == oidUnknown || t == oidJSON || t == oidJSONB
}

// toCatalogValue is an evaluator value of type t as a type-catalog
// value.
func toCatalogValue(v Value, t uint32) (types.Value, error) {
	if s, ok := v.(string); ok && !catalogText(t) {
		return types.In(t, -1, s)
	}
	return v, nil
}

// fromCatalogValue is a type-catalog value as the evaluator holds it.
func fromCatalogValue(v types.Value, t uint32) Value {
	switch v.(type) {
	case nil, bool, int64, float64, *Num, string:
		return v
	}
	return types.Out(t, v)
}

// builtinNames lists the library's functions (for hints).
func builtinNames() string { return strings.Join(builtins().Names(), ", ") }

// sqlValueFunction compiles CURRENT_DATE, CURRENT_TIMESTAMP,
// LOCALTIMESTAMP (the transaction's start, at UTC), CURRENT_USER and
// its kin.
func (pl *planner) sqlValueFunction(f *pg.SQLValueFunction) (expr, error) {
	pos := int(f.Location)
	clock := func(t uint32) expr {
		return &funcExpr{t: t, fn: func(e *env, _ []Value) (Value, error) {
			c := builtinContext(e)
			if c.TxnStart.IsZero() {
				return nil, unsupported(pos, "the current time here")
			}
			v, err := types.Convert(builtin.TimestampOf(c.TxnStart), types.Timestamptz, t, -1)
			if err != nil {
				return nil, builtinErr(err, -1) // raised as it runs: no position
			}
			return fromCatalogValue(v, t), nil
		}}
	}
	switch f.Op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return clock(oidDate), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP:
		return clock(oidTimestamptz), nil
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP:
		return clock(oidTimestamp), nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_USER,
		pg.SQLValueFunctionOp_SVFOP_SESSION_USER, pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return &funcExpr{t: oidName, fn: func(e *env, _ []Value) (Value, error) { return e.ex.sess.user, nil }}, nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return &funcExpr{t: oidName, fn: func(e *env, _ []Value) (Value, error) { return e.ex.sess.database, nil }}, nil
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		if !pl.pathIsPublic() { // searchpath.go; sql/exec's catalog answers it
			return nil, unsupported(pos, "current_schema under a search_path not starting at public on this path")
		}
		return &constExpr{v: "public", t: oidName}, nil
	}
	return nil, unsupported(pos, strings.ToLower(strings.TrimPrefix(f.Op.String(), "SVFOP_")))
}

// sqlValueName is the column name PostgreSQL gives a SQLValueFunction.
func sqlValueName(f *pg.SQLValueFunction) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(f.Op.String(), "SVFOP_"), "_N"))
}

// isDateTime are the date/time types the evaluator holds as output text
// and casts among by the type catalog.
func isDateTime(t uint32) bool {
	switch t {
	case oidDate, oidTime, oidTimestamp, oidTimestamptz, oidInterval, types.Timetz:
		return true
	}
	return false
}

// convertDateTime is the cast of a date/time value (held as its text)
// to another date/time type, by the type catalog.
func convertDateTime(s string, from, to uint32) (Value, error) {
	v, err := types.In(from, -1, s)
	if err != nil {
		return nil, typesErr(err)
	}
	if tv, ok := v.(types.TimestampVal); ok && to == oidTime && (tv == types.TimestampPosInf || tv == types.TimestampNegInf) {
		return nil, nil // timestamp[tz]_time: an infinite timestamp has no time of day (NULL)
	}
	r, err := types.Convert(v, from, to, -1)
	if err != nil {
		return nil, typesErr(err)
	}
	return fromCatalogValue(r, to), nil
}

// libAggregate types an aggregate of the library (stddev, variance, …)
// over an argument of type at.
func (pl *planner) libAggregate(a *aggSpec, at uint32, pos int) error {
	agg, err := builtins().ResolveAggregate(a.fn, at)
	if err != nil {
		return builtinErr(err, pos)
	}
	if at != agg.Arg {
		if a.arg, err = pl.coerce(a.arg, agg.Arg, pos); err != nil {
			return err
		}
	}
	a.lib, a.t = agg, agg.Result
	return nil
}

// libAggStep adds one non-NULL value to a library aggregate's state.
func libAggStep(a *aggSpec, s *aggState, v Value) error {
	if s.lib == nil {
		s.lib = a.lib.New()
	}
	tv, err := toCatalogValue(v, a.lib.Arg)
	if err != nil {
		return builtinErr(err, -1)
	}
	return builtinErr(s.lib.Step(tv), -1)
}

// libAggResult is a library aggregate's value for the group.
func libAggResult(a *aggSpec, s *aggState) (Value, error) {
	st := s.lib
	if st == nil {
		st = a.lib.New()
	}
	r, err := st.Final()
	if err != nil {
		return nil, builtinErr(err, -1)
	}
	return fromCatalogValue(r, a.t), nil
}

// libAggregate and libAggState are the library's aggregate and its
// per-group state, as the planner and executor hold them.
type (
	libAggregate = builtin.Aggregate
	libAggState  = builtin.AggState
)
