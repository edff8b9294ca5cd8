package sqlfront

import (
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// pg_proc holds PostgreSQL's thousands of built-in functions and the
// source database's own; sidecar reads neither, only how many functions
// the source has outside pg_catalog and information_schema
// (wal.SchemaFacts.UserFunctions). When that is none, a pg_proc scan
// restricted to the other schemas (reach.prove: pronamespace of a
// pg_namespace scan excluding both by name, or a user schema's OID) has
// no rows on PostgreSQL either: psql's \df and pgjdbc's getFunctions and
// getProcedures list none. Any other scan is refused, and so is every
// scan when the source has user functions or the count was not read.
var procRel = &pgRel{schema: "pg_catalog", name: "pg_proc",
	cols: pgc("oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost float4, prorows float4, provariadic oid, " +
		"prosupport text, prokind char, prosecdef bool, proleakproof bool, proisstrict bool, proretset bool, provolatile char, proparallel char, " +
		"pronargs int2, pronargdefaults int2, prorettype oid, proargtypes oidvector, proallargtypes oid[], proargmodes char[], proargnames text[], " +
		"proargdefaults pg_node_tree, protrftypes oid[], prosrc text, probin text, prosqlbody pg_node_tree, proconfig text[], proacl text[]"),
	rows: func(*pgCatCtx) [][]*string { return nil },
	refuse: func(cx *pgCatCtx) error {
		if len(cx.tables) == 0 {
			return unsupported(-1, "pg_catalog.pg_proc (the source database's functions are counted with the followed tables' facts: none is followed)")
		}
		for i := range cx.tables {
			s := schemaFactsOf(&cx.tables[i])
			switch {
			case s == nil || !s.StorageRead:
				return unsupported(-1, "pg_catalog.pg_proc (whether the source database has functions of its own was not read: copied by an older sidecar; a resync reads it)")
			case s.UserFunctions > 0:
				return unsupported(-1, "pg_catalog.pg_proc (the source database's own functions are not read from the server)")
			}
		}
		return nil
	}}

// procFuncs are the functions of pg_proc rows psql and pgjdbc call on
// the rows they list: bound so that a listing without rows answers, and
// refused when called (sidecar reads no function's definition).
var procFuncs = map[string]lplan.Type{"pg_function_is_visible": lplan.T(types.Bool), "pg_get_function_result": lplan.T(types.Text),
	"pg_get_function_sqlbody":   lplan.T(types.Text),
	"pg_get_function_arguments": lplan.T(types.Text), "pg_get_function_identity_arguments": lplan.T(types.Text),
	"pg_operator_is_visible": operatorFuncs["pg_operator_is_visible"]} // pgcatalog_listings.go

// procFunc is one of procFuncs.
func procFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	if len(args) != 1 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidOID)}, Result: procFuncs[name], NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
		if v[0] == nil {
			return nil, nil
		}
		return nil, unsupported(-1, name+" (sidecar reads no function's definition)")
	}}, nil
}
