package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// The sidecar runs PostgreSQL's built-in functions only; the functions a
// database defines (CREATE FUNCTION, CREATE AGGREGATE) are not followed.
// A call PostgreSQL may resolve to one of them is refused before the
// library binds it: an unqualified name the database also defines
// (PostgreSQL weighs both against the arguments' types: polymorphism.sql's
// concat(text, VARIADIC anyarray) wins over pg_catalog's concat("any")
// for concat('%', 1, 2)), and any name qualified by a schema other than
// pg_catalog (public.lower('A') is 42883 on PostgreSQL, not lower's
// answer).

// UserFuncCatalog is the optional interface of a Catalog that knows the
// names of the database's own functions.
type UserFuncCatalog interface {
	// UserFunction says whether the database defines a function (or
	// aggregate, procedure) of this name in a schema of the session's
	// search_path (where PostgreSQL looks for an unqualified name);
	// known is false when the functions were not read, and then defined
	// says nothing.
	UserFunction(name string) (defined, known bool)
}

// userFuncRefusal is the 0A000 for a call that may name a function the
// database defines, nil for a call of PostgreSQL's own library.
func (b *binder) userFuncRefusal(f *pg.FuncCall) error {
	parts := make([]string, len(f.Funcname))
	for i, n := range f.Funcname {
		parts[i] = n.GetString_().GetSval()
	}
	name := parts[len(parts)-1]
	if len(parts) > 1 {
		if len(parts) == 2 && parts[0] == "pg_catalog" {
			return nil
		}
		return unsupported("the function "+strings.Join(parts, ".")+
			"() (a function outside pg_catalog: sidecar runs PostgreSQL's built-in functions only)", f.Location)
	}
	uc, ok := b.cat.(UserFuncCatalog)
	if !ok {
		return nil
	}
	if defined, known := uc.UserFunction(name); known && defined {
		return unsupported("the function "+name+
			" (the database defines a function of that name, which PostgreSQL may choose: sidecar runs its built-in functions only)", f.Location)
	}
	return nil
}
