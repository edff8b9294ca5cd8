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
// kin are not bound here (the session's names are not in the plan).

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
