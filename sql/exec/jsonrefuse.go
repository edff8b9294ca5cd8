package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// json (unlike jsonb) has neither equality nor ordering in PostgreSQL:
// comparing, grouping, DISTINCT, set operations and ORDER BY on it fail
// there with 42883. The executor answers the same where it would
// otherwise refuse (0A000) because types.Orderable says no.

// noEquality is the error for grouping, DISTINCT or a set operation
// over values of type t that cannot be compared: PostgreSQL's for json,
// else the executor's refusal naming what.
func noEquality(t plan.Type, what string) error {
	if t.OID == plan.JSON {
		return &types.Error{Code: types.CodeUndefinedFunc, Message: "could not identify an equality operator for type json"}
	}
	return unsupported(what)
}

// noOrdering is the error for ORDER BY (or a window's ORDER BY) over
// values of type t that cannot be ordered.
func noOrdering(t plan.Type, what string) error {
	if t.OID == plan.JSON {
		return &types.Error{Code: types.CodeUndefinedFunc, Message: "could not identify an ordering operator for type json"}
	}
	return unsupported(what)
}

// noOperator is the error for a comparison operator over values of type
// t that cannot be compared.
func noOperator(t plan.Type, what string) error {
	if t.OID == plan.JSON {
		return &types.Error{Code: types.CodeUndefinedFunc, Message: "operator does not exist: json = json"}
	}
	return unsupported(what)
}
