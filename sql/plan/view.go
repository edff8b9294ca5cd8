package plan

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// ViewCatalog is the optional interface of a Catalog that knows views:
// a FROM reference to a view is bound as its definition, a subquery
// whose columns take the view's names (CREATE VIEW v (a, b) renames
// them), as PostgreSQL's rewriter expands it.
type ViewCatalog interface {
	// View finds the view a FROM reference names (loc: where the name
	// starts in the statement, as for LocatedCatalog; -1 inside a view's
	// definition). It returns nil, nil when the name is not a view, and
	// an error when it is one that cannot be read (a reference outside
	// the followed tables, a materialized view, …).
	View(schema, name string, loc int32) (*ViewDef, error)
}

// ViewDef is one view as the binder expands it.
type ViewDef struct {
	Schema, Name string
	// Columns are the view's columns (its pg_attribute rows).
	Columns []ColumnDef
	// Query is the view's definition, parsed (pg_get_viewdef's text).
	Query *pg.SelectStmt
	// Catalog resolves the names inside the definition: the tables at
	// the version the view is read at. It must not be a
	// LocatedCatalog: the definition's offsets are not the statement's.
	Catalog Catalog
	// Bound, when set, is told the columns the expansion outputs, in the
	// view's column order (the result columns' origins: a view's
	// column is described by the view's OID and its position).
	Bound func(cols []ColumnID)
}

// maxViewDepth bounds views over views (PostgreSQL refuses cycles when
// the views are created; this guards a corrupt catalog).
const maxViewDepth = 64

// view binds a reference to v under alias with column aliases
// colAlias.
func (b *binder) view(v *ViewDef, alias string, colAlias []*pg.Node, loc int32) (Rel, *item, error) {
	if b.viewDepth >= maxViewDepth {
		return nil, nil, unsupported(fmt.Sprintf("views nested deeper than %d (at %s.%s)", maxViewDepth, v.Schema, v.Name), loc)
	}
	// The definition sees neither the statement's CTEs nor its query
	// levels, and resolves its names against the view's catalog.
	cat, ctes := b.cat, b.ctes
	b.cat, b.ctes = v.Catalog, nil
	b.viewDepth++
	rel, cols, _, err := b.bindSelect(v.Query, nil)
	b.cat, b.ctes = cat, ctes
	b.viewDepth--
	if err != nil {
		return nil, nil, viewError(v, err, loc)
	}
	if len(cols) != len(v.Columns) {
		return nil, nil, unsupported(fmt.Sprintf("the view %s.%s (its definition gives %d columns here, PostgreSQL's view has %d)", v.Schema, v.Name, len(cols), len(v.Columns)), loc)
	}
	names := make([]string, len(cols))
	for i, id := range cols {
		c := v.Columns[i]
		if got := b.md.Column(id).Type; got.OID != c.Type.OID {
			return nil, nil, unsupported(fmt.Sprintf("the view %s.%s (its column %s is typed %d here, %d in PostgreSQL)", v.Schema, v.Name, c.Name, got.OID, c.Type.OID), loc)
		}
		names[i] = c.Name
	}
	names, err = aliasNames(names, colAlias, "table "+alias, loc)
	if err != nil {
		return nil, nil, err
	}
	if v.Bound != nil {
		v.Bound(cols)
	}
	return rel, newItem(alias, b.scopeCols(cols, names)), nil
}

// viewError places an error of a view's definition at the reference
// and names the view.
func viewError(v *ViewDef, err error, loc int32) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	out := *e
	out.Message = fmt.Sprintf("%s (in the definition of the view %s.%s)", e.Message, v.Schema, v.Name)
	out.Position = 0
	return out.at(loc)
}

// catalogView finds the view a FROM reference names, when the catalog
// knows views (nil, nil otherwise).
func (b *binder) catalogView(rv *pg.RangeVar) (*ViewDef, error) {
	vc, ok := b.cat.(ViewCatalog)
	if !ok {
		return nil, nil
	}
	loc := rv.Location
	if b.viewDepth > 0 {
		loc = -1
	}
	return vc.View(rv.Schemaname, rv.Relname, loc)
}
