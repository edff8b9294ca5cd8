package sqlfront

import (
	"strconv"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
	"github.com/sidecar-dev/sidecar/wal"
)

// pg_get_viewdef on the SQL port: the definitions of the views above the
// followed tables are kept with their facts (wal.ViewFacts.Def and
// DefPretty, read with search_path public), so pg_get_viewdef(view) and
// pg_get_viewdef(view, pretty) answer them under that search_path.
// A followed table or one of its indexes or sequences is not a view:
// NULL, as PostgreSQL answers. Any other relation (a view reading only
// relations sidecar does not follow, a temporary view, a catalog) is
// one sidecar cannot tell about, and is refused by name; so is the
// line-wrapping form pg_get_viewdef(view, wrap column).

// viewdefFunc is pg_get_viewdef for the argument types args: by name
// (text) or by OID (oid, regclass).
func (c *vecCatalog) viewdefFunc(args []lplan.Type) (*lplan.ExtFunc, error) {
	if len(args) != 1 && len(args) != 2 {
		return nil, lplan.ExtError(lplan.CodeUndefinedFunction, "function pg_get_viewdef with %d arguments does not exist", len(args))
	}
	byName := false
	switch args[0].OID {
	case lplan.Unknown, oidText, oidVarchar, oidName:
		byName = true
	}
	if len(args) == 2 && args[1].OID != oidBool && args[1].OID != lplan.Unknown {
		return nil, lplan.ExtError(lplan.CodeFeatureNotSupported, "pg_get_viewdef with a wrap column is not supported by sidecar yet")
	}
	tables := c.pl.src.Tables()
	path := c.searchPath()
	publicPath := c.defaultPath()
	_, ns := (&pgCatCtx{tables: tables}).namespaces()
	views := listedViews(tables, ns)
	ts := []lplan.Type{lplan.T(oidOID), lplan.T(oidBool)}[:len(args)]
	if byName {
		ts[0] = lplan.T(oidText)
	}
	return &lplan.ExtFunc{Args: ts, Result: lplan.T(oidText), NullOK: true, Eval: func(v []types.Value) (types.Value, error) {
		if v[0] == nil || len(v) == 2 && v[1] == nil {
			return nil, nil // strict
		}
		var view *wal.ViewFacts
		if byName {
			var err error
			var notView bool
			if view, notView, err = viewByName(v[0].(string), tables, views, path); err != nil || notView {
				return nil, err
			}
		} else {
			oid := oidValue(v[0])
			for _, w := range views {
				if w.OID == oid {
					view = w
				}
			}
			if view == nil {
				for _, r := range catalogRels(tables) {
					if r.oid == oid {
						return nil, nil // a table, index or sequence: not a view
					}
				}
				return nil, unsupported(-1, "pg_get_viewdef of the relation with OID "+strconv.FormatUint(uint64(oid), 10)+" (not a view sidecar follows)")
			}
		}
		if view.Kind != 'v' && view.Kind != 'm' {
			return nil, nil
		}
		if !publicPath {
			return nil, unsupported(-1, "pg_get_viewdef under a search_path other than public (sidecar read the definitions under public)")
		}
		if len(v) == 2 && v[1].(bool) {
			return view.DefPretty, nil
		}
		return view.Def, nil
	}}, nil
}

// viewByName resolves pg_get_viewdef's text argument as PostgreSQL's
// RangeVarGetRelid does, among the views and relations sidecar knows:
// the view, or notView for a followed table, index or sequence; a name
// it cannot resolve is refused (it may name a relation sidecar does not
// see), a malformed one is 42602.
func viewByName(s string, tables []Table, views []*wal.ViewFacts, path []string) (*wal.ViewFacts, bool, error) {
	names, err := qualifiedName(s)
	if err != nil {
		return nil, false, err
	}
	refuse := unsupported(-1, "pg_get_viewdef of '"+s+"' (not a view sidecar follows)")
	var schemas []string
	switch {
	case len(names) == 2:
		schemas = []string{names[0]}
	case len(names) == 1 && !strings.HasPrefix(names[0], "pg_") && catalogDef("", names[0]) == nil:
		schemas = path // pg_catalog, searched first, has none of that name
	default:
		return nil, false, refuse
	}
	name := names[len(names)-1]
	rels := catalogRels(tables)
	for _, sch := range schemas {
		if sch == "pg_catalog" || sch == "information_schema" || strings.HasPrefix(sch, "pg_") {
			return nil, false, refuse
		}
		for _, w := range views {
			if w.Schema == sch && w.Name == name {
				return w, false, nil
			}
		}
		for _, r := range rels {
			if r.schema == sch && r.name == name {
				return nil, true, nil
			}
		}
	}
	return nil, false, refuse
}
