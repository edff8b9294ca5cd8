package sqlfront

import (
	"slices"
	"strconv"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// psql's \sf over the source database's own functions, from the psql
// facts (wal.PsqlFacts.Functions, section 'v', read by the copy and the
// catalog poll: up to one poll stale after CREATE/ALTER/DROP FUNCTION):
//
//   - regproc ('name', 'schema.name') and regprocedure
//     ('name(argtypes)') resolve a user function to its OID as
//     PostgreSQL's regprocin/regprocedurein do (42883 none, 42725 more
//     than one for regproc); an unqualified name pg_catalog also has a
//     function of is refused (pg_catalog is searched first, and its
//     functions are not read).
//   - pg_get_functiondef(oid) prints the definition read under
//     search_path public; under another path, of an aggregate, or of an
//     OID sidecar does not know it is refused.

const oidRegprocedureT = 2202

// userFunctions are the source's functions as read (false: not read).
func userFunctions(tables []Table) ([]wal.FunctionDetail, bool) {
	p := psqlFacts(tables) // pgcatalog_nspdetail.go
	if p == nil || p.Functions == nil {
		return nil, false
	}
	return p.Functions, true
}

// userFunctionCandidates are the functions regprocin considers for
// names (one or two parts) under path: those of the named schema, or
// of the path's schemas in its order, a signature an earlier schema
// holds hiding a later one's (FuncnameGetCandidates). refused: the
// functions were not read, or an unqualified name pg_catalog also has.
func userFunctionCandidates(tables []Table, path []string, names []string) (out []wal.FunctionDetail, refused bool) {
	funcs, ok := userFunctions(tables)
	if !ok {
		return nil, true
	}
	name := names[len(names)-1]
	if len(names) == 2 {
		for _, f := range funcs {
			if f.Schema == names[0] && f.Name == name {
				out = append(out, f)
			}
		}
		return out, false
	}
	for _, f := range funcs {
		if f.Name == name && f.BuiltinSameName > 0 {
			return nil, true
		}
	}
	for _, p := range path {
		if p == "pg_catalog" {
			continue
		}
		for _, f := range funcs {
			if f.Schema != p || f.Name != name {
				continue
			}
			hidden := false
			for _, o := range out {
				if slices.Equal(o.ArgTypes, f.ArgTypes) {
					hidden = true
				}
			}
			if !hidden {
				out = append(out, f)
			}
		}
	}
	return out, false
}

// regprocUser resolves regproc's names among the user functions: ok
// false when it cannot tell (the caller goes on as before).
func regprocUser(tables []Table, path []string, s string, names []string) (types.Value, bool, error) {
	if len(names) > 2 || len(names) == 2 && (names[0] == "pg_catalog" || names[0] == "information_schema") {
		return nil, false, nil
	}
	c, refused := userFunctionCandidates(tables, path, names)
	switch {
	case refused:
		return nil, false, nil
	case len(c) == 1:
		return int64(c[0].OID), true, nil
	case len(c) > 1:
		return nil, true, errf("42725", -1, "more than one function named \"%s\"", s)
	case len(names) == 2:
		return nil, true, errf("42883", -1, "function \"%s\" does not exist", s)
	}
	return nil, false, nil // unqualified and not a user function: maybe PostgreSQL's own
}

// regprocedureIn is regprocedurein over the user functions: the name
// and argument types parsed as PostgreSQL parses them (a DROP
// FUNCTION's object), the types resolved to the built-in types sidecar
// knows (another type: refused).
func regprocedureIn(tables []Table, path []string) func(s string) (types.Value, error) {
	return func(s string) (types.Value, error) {
		refuse := regRefused(oidRegprocedureT, "'"+s+"'")
		tree, err := parseSQL("DROP FUNCTION " + s)
		if err != nil || len(tree.Stmts) != 1 {
			return nil, errf("22P02", -1, "invalid input syntax for type regprocedure: \"%s\"", s)
		}
		d := tree.Stmts[0].Stmt.GetDropStmt()
		if d == nil || len(d.Objects) != 1 || d.Objects[0].GetObjectWithArgs() == nil || d.Objects[0].GetObjectWithArgs().ArgsUnspecified {
			return nil, errf("22P02", -1, "expected a left parenthesis")
		}
		ow := d.Objects[0].GetObjectWithArgs()
		var names []string
		for _, n := range ow.Objname {
			names = append(names, n.GetString_().GetSval())
		}
		if len(names) > 2 || len(names) == 2 && (names[0] == "pg_catalog" || names[0] == "information_schema") {
			return nil, refuse
		}
		args := make([]uint32, len(ow.Objargs))
		for i, a := range ow.Objargs {
			tn := a.GetTypeName()
			if tn == nil {
				return nil, refuse
			}
			t, err := lplan.TypeOf(tn)
			if err != nil {
				return nil, refuse
			}
			args[i] = uint32(t.OID)
		}
		c, refused := userFunctionCandidates(tables, path, names)
		if refused {
			return nil, refuse
		}
		for _, f := range c {
			if slices.Equal(f.ArgTypes, args) {
				return int64(f.OID), nil
			}
		}
		if len(names) == 1 {
			return nil, refuse // maybe PostgreSQL's own
		}
		return nil, errf("42883", -1, "function \"%s\" does not exist", s)
	}
}

// functiondefFunc is pg_get_functiondef(oid).
func (c *vecCatalog) functiondefFunc(args []lplan.Type) (*lplan.ExtFunc, error) {
	if len(args) != 1 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function pg_get_functiondef with %d arguments does not exist", len(args))
	}
	c.stampFacts() // pgcatalog_stamp.go: planned again once the poll read other definitions
	tables, publicPath := c.pl.src.Tables(), c.defaultPath()
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidOID)}, Result: lplan.T(oidText), NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
		if v[0] == nil {
			return nil, nil
		}
		oid := oidValue(v[0])
		funcs, _ := userFunctions(tables)
		for _, f := range funcs {
			if f.OID != oid {
				continue
			}
			switch {
			case f.Kind == 'a':
				return nil, errf("42809", -1, "\"%s\" is an aggregate function", f.Name)
			case !publicPath:
				return nil, unsupported(-1, "pg_get_functiondef under a search_path other than public (sidecar read the definitions under public)")
			}
			return f.Def, nil
		}
		return nil, unsupported(-1, "pg_get_functiondef of the function with OID "+strconv.FormatUint(uint64(oid), 10)+" (not a function of the source database sidecar read)")
	}}, nil
}
