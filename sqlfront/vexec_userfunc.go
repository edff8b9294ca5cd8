package sqlfront

import (
	"slices"
	"strings"

	"github.com/sidecar-dev/sidecar/wal"
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
	var served map[uint32]bool // the user types sidecar reads: enums, domains, their arrays
	for _, f := range funcs {
		if f.Name != name || !slices.Contains(path, f.Schema) {
			continue
		}
		if served == nil {
			served = map[uint32]bool{}
			all := listedTypes(tables) // pgcatalog_usertypes.go
			for _, t := range all {
				if t.Type == 'e' || t.Type == 'd' {
					served[t.OID] = true
				}
			}
			for _, t := range all { // their arrays
				if t.Category == 'A' && served[t.Elem] {
					served[t.OID] = true
				}
			}
		}
		if takesUnservedType(f, served) {
			continue
		}
		return true, true
	}
	return false, true
}

// takesUnservedType says whether an argument of f is a user-defined type
// (an extension's citext, a composite, a range) other than the enums
// and domains sidecar reads: no expression sidecar evaluates has that
// type (a column of it is refused), so PostgreSQL can choose f only for
// a call sidecar refuses anyway — citext's min(citext), max(citext),
// replace(citext, …) do not shadow the built-ins for other arguments.
func takesUnservedType(f wal.FunctionDetail, served map[uint32]bool) bool {
	for _, a := range f.ArgTypes {
		if a >= firstNormalOID && !served[a] {
			return true
		}
	}
	return false
}
