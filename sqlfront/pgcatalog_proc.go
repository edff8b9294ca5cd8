package sqlfront

import (
	"strconv"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// pg_proc holds PostgreSQL's thousands of built-in functions and the
// source database's own; sidecar reads the source's own
// (pgcatalog_procrows.go) and how many there are
// (wal.SchemaFacts.UserFunctions). A pg_proc scan restricted to the
// schemas other than pg_catalog and information_schema (reach.prove:
// pronamespace of a pg_namespace scan excluding both by name, or a user
// schema's OID) reads those rows: psql's \df and \df+, pgjdbc's
// getFunctions and getProcedures. Any other scan is refused, and so is
// every scan when the source has functions whose rows were not read
// (a mirror copied by an older sidecar until the next poll, more than
// wal.MaxPsqlFunctions) or the count was not read.
var procRel = &pgRel{schema: "pg_catalog", name: "pg_proc",
	cols: pgc("oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost float4, prorows float4, provariadic oid, " +
		"prosupport text, prokind char, prosecdef bool, proleakproof bool, proisstrict bool, proretset bool, provolatile char, proparallel char, " +
		"pronargs int2, pronargdefaults int2, prorettype oid, proargtypes oidvector, proallargtypes oid[], proargmodes char[], proargnames text[], " +
		"proargdefaults pg_node_tree, protrftypes oid[], prosrc text, probin text, prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]"),
	rows: procRows, // pgcatalog_procrows.go
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
				if _, ok := userProcRows(cx.tables); !ok {
					return unsupported(-1, "pg_catalog.pg_proc (the source database's own functions were not read from the server: more than "+
						strconv.Itoa(wal.MaxPsqlFunctions)+", or a mirror copied by an older sidecar until the next catalog poll)")
				}
			}
		}
		return nil
	}}

// procFuncs are the functions of pg_proc rows psql and pgjdbc call on
// the rows they list: answered for the source's own functions
// (vecCatalog.procFunc, pgcatalog_procrows.go), refused for others.
var procFuncs = map[string]lplan.Type{"pg_function_is_visible": lplan.T(types.Bool), "pg_get_function_result": lplan.T(types.Text),
	"pg_get_function_sqlbody":   lplan.T(types.Text),
	"pg_get_function_arguments": lplan.T(types.Text), "pg_get_function_identity_arguments": lplan.T(types.Text),
	"pg_operator_is_visible": operatorFuncs["pg_operator_is_visible"]} // pgcatalog_listings.go
