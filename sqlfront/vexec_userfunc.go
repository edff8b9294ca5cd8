package sqlfront

import (
	"slices"
	"strings"
)

// The database's own functions are not followed (sql/plan/userfunc.go):
// a call of an unqualified name that a function on the search path
// also has is refused on both paths, since PostgreSQL may resolve it to
// that function rather than to its built-in one.

// UserFunction implements lplan.UserFuncCatalog.
func (c *vecCatalog) UserFunction(name string) (defined, known bool) {
	return userFunctionOnPath(c.pl.src.Tables(), c.searchPath(), name)
}

// userFuncShadow is the flat path's refusal of an unqualified call
// name a user function on the session's search path shares (nil
// otherwise; a qualified name is not the library's and is refused
// where it is resolved).
func (pl *planner) userFuncShadow(name string, pos int) error {
	if strings.Contains(name, ".") {
		return nil
	}
	if defined, known := userFunctionOnPath(pl.src.Tables(), searchPathOf(pl.sess), name); known && defined {
		return unsupported(pos, "the function "+name+
			" (the database defines a function of that name, which PostgreSQL may choose: sidecar runs its built-in functions only)")
	}
	return nil
}

// userFunctionOnPath says whether the source database has a function
// named name in a schema of path, from the functions as the psql facts
// read them (section 'v': up to one catalog poll stale after
// CREATE/DROP FUNCTION; not read past wal.MaxPsqlFunctions, then known
// is false).
func userFunctionOnPath(tables []Table, path []string, name string) (defined, known bool) {
	funcs, ok := userFunctions(tables) // pgcatalog_funcdef.go
	if !ok {
		return false, false
	}
	for _, f := range funcs {
		if f.Name == name && slices.Contains(path, f.Schema) {
			return true, true
		}
	}
	return false, true
}
