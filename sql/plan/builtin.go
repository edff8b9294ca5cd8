package plan

import (
	"errors"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// This file types a scalar function call by PostgreSQL's function
// library (sql/builtin): the overload PostgreSQL's resolution rules pick
// for the arguments' types, its result type, and its 42883/42725/0A000
// when there is none. The executor runs the resolved call (Func.Call).

// CodeIndeterminateType is 42P18: a parameter's type cannot be inferred.
const CodeIndeterminateType = "42P18"

// FuncRegistry is the optional interface of a Catalog that names the
// function library of the followed server's major (types.Dialect);
// without it the binder uses the newest major's library.
type FuncRegistry interface {
	Functions() *builtin.Registry
}

// newestFuncs is the newest major's library, built once: a Registry is
// immutable, so every statement shares it.
var newestFuncs = sync.OnceValue(builtin.New)

// functions is the library the statement's calls resolve against.
func (b *binder) functions() *builtin.Registry {
	if fr, ok := b.cat.(FuncRegistry); ok {
		if r := fr.Functions(); r != nil {
			return r
		}
	}
	return newestFuncs()
}

// ownFuncs are the functions the binder types itself (their arguments
// share a common type, which the library's signatures do not express).
var ownFuncs = map[string]bool{"coalesce": true, "greatest": true, "least": true, "nullif": true}

// libraryCall binds name(args) as a call of the library. Untyped
// literals and parameters take the chosen overload's parameter types;
// other arguments are converted by the library when the call runs.
func (b *binder) libraryCall(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (Scalar, error) {
	out := &Func{Name: name}
	for _, a := range f.Args {
		e, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, e)
	}
	argTypes := make([]OID, len(out.Args))
	for i, e := range out.Args {
		argTypes[i] = e.Type().OID
	}
	resolve := b.functions().Resolve
	if f.FuncVariadic {
		resolve = b.functions().ResolveSpread // f(…, VARIADIC array): the library spreads it
	}
	call, err := resolve(name, argTypes)
	if err != nil {
		if c := numericCastFunc(name, out.Args); c != nil {
			return c, nil
		}
		if be, ok := builtin.AsError(err); ok && be.Code == CodeUndefinedFunction && !b.functions().Has(name) {
			// Not a function of PostgreSQL's library: one the database
			// may define (CREATE FUNCTION), which the sidecar does not
			// follow. PostgreSQL may well answer the call: refused.
			return nil, unsupported("the function "+strings.TrimSuffix(strings.TrimPrefix(be.Message, "function "), " does not exist")+
				" (a function sidecar does not know: one defined in the database is not followed)", f.Location)
		}
		return nil, libraryErr(err).at(f.Location)
	}
	for i, a := range out.Args {
		if argTypes[i] != Unknown {
			continue
		}
		to := call.Params[i]
		if p, ok := a.(*Param); ok {
			if d := call.Func.Args[min(i, len(call.Func.Args)-1)]; d == builtin.Any || d == builtin.AnyElement {
				return nil, errorf(CodeIndeterminateType, "could not determine data type of parameter $%d", p.N).at(f.Location)
			}
		}
		out.Args[i] = coerce(a, T(to))
		b.noteParam(out.Args[i])
		call.Args[i] = to
	}
	out.T = T(call.Result)
	out.Call = call
	return out, nil
}

// libraryErr is a library error as the binder's (SQLSTATE and message).
func libraryErr(err error) *Error {
	if be, ok := builtin.AsError(err); ok {
		if m, cut := strings.CutPrefix(be.Message, "sidecar does not support "); cut && be.Code == CodeFeatureNotSupported {
			return unsupported(m, -1)
		}
		return &Error{Code: be.Code, Message: be.Message, Detail: be.Detail, Hint: be.Hint}
	}
	var te *types.Error
	if errors.As(err, &te) {
		return &Error{Code: te.Code, Message: te.Message, Detail: te.Detail, Hint: te.Hint}
	}
	return &Error{Code: "XX000", Message: err.Error()}
}

// numericCasts are the numeric types whose pg_proc cast functions bear
// the type's name (float8(int8), int4(numeric), …).
var numericCasts = map[string]OID{"int2": Int2, "int4": Int4, "int8": Int8, "float4": Float4, "float8": Float8, "numeric": Numeric}

// numericCastFunc is a call such as float8(count(*)) of a numeric type's
// cast function over a number of another numeric type: the explicit
// cast (nil for any other call).
func numericCastFunc(name string, args []Scalar) Scalar {
	to, ok := numericCasts[name]
	if !ok || len(args) != 1 {
		return nil
	}
	from := args[0].Type().OID
	switch from {
	case Int2, Int4, Int8, Float4, Float8, Numeric:
		if from == to {
			return nil
		}
		return &Cast{Arg: args[0], T: T(to)}
	}
	return nil
}
