package plan

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// This file binds the SQL-standard date/time "functions without
// parentheses" (SQLValueFunction): CURRENT_DATE, CURRENT_TIME,
// CURRENT_TIMESTAMP, LOCALTIME and LOCALTIMESTAMP, with an optional
// precision. Each is the transaction's start (the library's now(), which
// reads the session's clock handed to the executor) converted to its
// type, as PostgreSQL's ExecEvalSQLValueFunction does; the precision
// rounds as a cast to the type with that typmod. CURRENT_USER and its
// kin read the session's names, which the plan does not hold: they are
// the catalog's functions of those names (sessionValue).

// sqlValueFunction binds one SQLValueFunction.
func (b *binder) sqlValueFunction(f *pg.SQLValueFunction) (Scalar, error) {
	var to OID
	switch f.Op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		to = Date
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		to = types.Timetz
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		to = Timestamptz
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		to = Time
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		to = Timestamp
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_USER, pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return b.sessionValue("current_user", f)
	case pg.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return b.sessionValue("session_user", f)
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return b.sessionValue("current_database", f)
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return b.sessionValue("current_schema", f)
	default:
		return nil, unsupported(sqlValueName(f), f.Location)
	}
	call, err := b.functions().Resolve("now", nil)
	if err != nil {
		return nil, libraryErr(err).at(f.Location)
	}
	now := &Func{Name: "now", T: T(call.Result), Call: call}
	t := T(to)
	if strings.HasSuffix(f.Op.String(), "_N") {
		if f.Typmod < 0 || f.Typmod > 6 {
			// PostgreSQL warns and reduces a precision above 6; its
			// parser already refuses a negative one.
			return nil, unsupported(sqlValueName(f)+" with precision "+strconv.Itoa(int(f.Typmod)), f.Location)
		}
		t.Mod = f.Typmod
	}
	if t == now.T {
		return now, nil
	}
	return &Cast{Arg: now, T: t}, nil
}

// sqlValueName is the column name PostgreSQL gives a SQLValueFunction
// (FigureColname): its keyword in lower case.
func sqlValueName(f *pg.SQLValueFunction) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(f.Op.String(), "SVFOP_"), "_N"))
}

// sessionValue binds CURRENT_USER, SESSION_USER, USER, CURRENT_ROLE,
// CURRENT_CATALOG and CURRENT_SCHEMA as the catalog's function fn
// (current_user, session_user, current_database, current_schema: what
// PostgreSQL's ExecEvalSQLValueFunction calls), refused when the
// catalog has none (a catalog not tied to a session).
func (b *binder) sessionValue(fn string, f *pg.SQLValueFunction) (Scalar, error) {
	fc, ok := b.cat.(FuncCatalog)
	if !ok || !fc.HasFunc(fn) {
		return nil, unsupported(sqlValueName(f), f.Location)
	}
	ext, err := fc.Func(fn, nil)
	if err != nil {
		if pe, ok := err.(*Error); ok {
			return nil, pe.at(f.Location)
		}
		return nil, err
	}
	if ext == nil {
		return nil, unsupported(sqlValueName(f), f.Location)
	}
	return &Func{Name: fn, T: ext.Result, Ext: ext}, nil
}
