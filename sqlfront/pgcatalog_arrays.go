package sqlfront

import (
	"slices"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The catalog functions that answer arrays (sql/plan's arrays), beside
// pgcatalog_plan.go's.

// arrayCatalogFuncs are the functions arrayCatalogFunc answers.
var arrayCatalogFuncs = map[string]bool{"current_schemas": true}

// arrayCatalogFunc is current_schemas(include_implicit): the schemas of
// the session's search_path that exist, as name[], pg_catalog first
// when include_implicit and the path does not name it. A schema named
// in the path that sidecar does not know exists or not (not followed,
// not built in) is refused; "$user" without a followed schema of that
// name is taken as absent, as current_schema() takes it.
func (c *vecCatalog) arrayCatalogFunc(name string, args []lplan.Type) (*lplan.ExtFunc, error) {
	if name != "current_schemas" {
		return nil, nil
	}
	if len(args) != 1 || args[0].OID != oidBool && args[0].OID != lplan.Unknown {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.String())
		}
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function current_schemas(%s) does not exist", strings.Join(ts, ", "))
	}
	path, err := c.existingPath("current_schemas")
	if err != nil {
		return nil, err
	}
	explicitCatalog := slices.Contains(path, types.Value("pg_catalog"))
	return &lplan.ExtFunc{Args: []lplan.Type{lplan.T(oidBool)}, Result: lplan.T(types.ArrayOf(types.Name)),
		Eval: func(v []types.Value) (types.Value, error) {
			out := &types.Array{Elem: types.Name, Elems: []types.Value{}}
			if v[0].(bool) && !explicitCatalog {
				out.Elems = append(out.Elems, "pg_catalog")
			}
			out.Elems = append(out.Elems, path...)
			return out, nil
		}}, nil
}

// existingPath is the session's search_path without the schemas that do
// not exist, as PostgreSQL's fetch_search_path(false) gives it to
// current_schema and current_schemas: "$user" without a followed schema
// of that name is taken as absent; any other schema sidecar does not
// know (not followed, not built in) is refused for fn, since it may
// exist in PostgreSQL.
func (c *vecCatalog) existingPath(fn string) ([]types.Value, error) {
	_, ns := (&pgCatCtx{tables: c.pl.src.Tables()}).namespaces()
	var path []types.Value
	for _, p := range c.searchPath() {
		if _, ok := ns[p]; !ok {
			if p == c.pl.sess.user {
				continue
			}
			return nil, lplan.ExtError(lplan.CodeFeatureNotSupported, "%s with the schema %q in search_path (sidecar does not know whether it exists)", fn, p)
		}
		path = append(path, p)
	}
	return path, nil
}
