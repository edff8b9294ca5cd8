package sqlfront

import (
	"slices"
	"strconv"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// pg_proc's rows of the source database's own functions (issue 23,
// session 23), for psql's \df, \df+ and their patterns: the functions
// outside pg_catalog and information_schema as the copy and the catalog
// poll read them (section 'v' for their names, schemas and argument
// types, section 'y' for the rest: wal.ProcFacts,
// replication/relmeta_procs.go; up to one poll stale after
// CREATE/ALTER/DROP FUNCTION, GRANT ON FUNCTION, COMMENT ON FUNCTION).
// Served from them:
//
//   - pg_proc rows with oid, proname, pronamespace, proowner, prolang,
//     prokind, prosecdef, proretset, provolatile, proparallel, pronargs,
//     prorettype, proargtypes, prosrc, prosqlbody and proacl; the other
//     columns are unknown (refused when read).
//   - pg_get_function_result, pg_get_function_arguments,
//     pg_get_function_identity_arguments and pg_get_function_sqlbody
//     of those functions, printed
//     under search_path public when read (refused under a path that
//     prints otherwise).
//   - pg_function_is_visible of those functions: the first schema of
//     the session's path holding a function of the name and argument
//     types holds this one (FunctionIsVisible); refused for a name
//     pg_catalog also has (its functions, searched first, are not read).
//   - obj_description(oid, 'pg_proc').
//
// PostgreSQL's own functions are still not rows: a scan reaching
// pg_catalog's functions is refused by the reach proof.

// procRow is one user function: its psql facts and its pg_proc details.
type procRow struct {
	fn wal.FunctionDetail
	wal.ProcDetail
}

// userProcRows are the user functions with their details, ok false when
// either section was not read (a record written before, more than
// wal.MaxPsqlFunctions functions) or the two disagree (read by two
// statements of a poll with a CREATE or DROP FUNCTION between them).
func userProcRows(tables []Table) ([]procRow, bool) {
	funcs, ok := userFunctions(tables)                                                                              // pgcatalog_funcdef.go
	p := carriedSection(tables, func(s *wal.SchemaFacts) *wal.ProcFacts { return s.Procs }, (*wal.ProcFacts).Equal) // pgcatalog_extensions.go
	if !ok || p == nil || p.Functions == nil || len(p.Functions) != len(funcs) {
		return nil, false
	}
	out := make([]procRow, len(funcs))
	for i, f := range funcs {
		if p.Functions[i].OID != f.OID { // both read in OID order
			return nil, false
		}
		out[i] = procRow{f, p.Functions[i]}
	}
	return out, true
}

// userProcRow is the user function oid (false: not one sidecar read).
func userProcRow(rows []procRow, oid uint32) (procRow, bool) {
	for _, r := range rows {
		if r.OID == oid {
			return r, true
		}
	}
	return procRow{}, false
}

// procRows are pg_proc's rows: the user functions (none when not read:
// the relation's refuse decides whether a scan answers).
func procRows(cx *pgCatCtx) [][]*string {
	rows, _ := userProcRows(cx.tables)
	u := pgUnknown
	var out [][]*string
	for _, r := range rows {
		args := make([]string, len(r.fn.ArgTypes))
		for i, a := range r.fn.ArgTypes {
			args[i] = strconv.FormatUint(uint64(a), 10)
		}
		acl, body := (*string)(nil), (*string)(nil)
		if r.HasBody {
			body = sv(r.BodyTree)
		}
		if r.HasACL {
			acl = relOptions(append([]string{}, r.ACL...)) // pgcatalog_schema.go
		}
		out = append(out, []*string{u32(r.OID), sv(r.fn.Name), u32(r.Namespace), u32(r.Owner), u32(r.Lang), u, u, u,
			u, sv(string(r.Kind)), bv(r.SecDef), u, u, bv(r.RetSet), sv(string(r.Volatile)), sv(string(r.Parallel)),
			iv(int64(len(r.fn.ArgTypes))), u, u32(r.RetType), sv(strings.Join(args, " ")), u, u, u,
			u, u, sv(r.Src), u, body, u, acl})
	}
	return out
}

// procComment is obj_description(oid, 'pg_proc'): a user function's
// comment (NULL: none), refused for another function or when not read.
func procComment(tables []Table, oid uint32) (types.Value, error) {
	rows, ok := userProcRows(tables)
	r, found := userProcRow(rows, oid)
	switch {
	case !ok || !found:
		return nil, unsupported(-1, "obj_description of the function with OID "+strconv.FormatUint(uint64(oid), 10)+
			" (sidecar reads the comments of the source database's own functions only, and not while more than "+
			strconv.Itoa(wal.MaxPsqlFunctions)+" or before the next catalog poll of a mirror copied by an older sidecar)")
	case !r.HasComment:
		return nil, nil
	}
	return r.Comment, nil
}

// procFunc is one of procFuncs over the user functions' rows.
func (c *vecCatalog) procFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	if len(args) != 1 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
	}
	c.stampFacts() // pgcatalog_stamp.go: planned again once the poll read other functions
	tables, publicPath, path := c.pl.src.Tables(), c.defaultPath(), c.searchPath()
	rows, read := userProcRows(tables)
	refuse := func(oid uint32, why string) error {
		return unsupported(-1, name+" of the function with OID "+strconv.FormatUint(uint64(oid), 10)+" ("+why+")")
	}
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidOID)}, Result: procFuncs[name], NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
		if v[0] == nil {
			return nil, nil
		}
		oid := oidValue(v[0])
		r, ok := userProcRow(rows, oid)
		if name == "pg_operator_is_visible" {
			return nil, refuse(oid, "sidecar reads no operator")
		}
		if !read || !ok {
			return nil, refuse(oid, "sidecar reads the source database's own functions only")
		}
		switch name {
		case "pg_function_is_visible":
			return functionVisible(rows, path, r)
		case "pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments", "pg_get_function_sqlbody":
			if !publicPath {
				return nil, refuse(oid, "under a search_path other than public: sidecar read it under public")
			}
			switch name {
			case "pg_get_function_result":
				if !r.HasResult {
					return nil, nil
				}
				return r.Result, nil
			case "pg_get_function_arguments":
				return r.Arguments, nil
			case "pg_get_function_sqlbody":
				if !r.HasBody {
					return nil, nil
				}
				return r.Body, nil
			}
			return r.IdentityArguments, nil
		}
		return nil, refuse(oid, "not read")
	}}, nil
}

// functionVisible is pg_function_is_visible of the user function r
// under path: its schema is on the path and no function of the same
// name and argument types is in a schema before it (FunctionIsVisible).
// A name pg_catalog also has is refused: pg_catalog is searched first
// unless the path names it later, and its functions are not read.
func functionVisible(rows []procRow, path []string, r procRow) (types.Value, error) {
	if r.fn.BuiltinSameName > 0 {
		return nil, unsupported(-1, "pg_function_is_visible of "+r.fn.Schema+"."+r.fn.Name+" (pg_catalog has functions of that name: sidecar does not read them)")
	}
	for _, p := range path {
		if p == "pg_catalog" {
			continue
		}
		for _, o := range rows {
			if o.fn.Schema == p && o.fn.Name == r.fn.Name && slices.Equal(o.fn.ArgTypes, r.fn.ArgTypes) {
				return o.OID == r.OID, nil
			}
		}
	}
	return false, nil
}
