package sqlfront

import (
	"context"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/wal"
)

// Views on the SQL port. The copy and the catalog poll read the views
// above each followed table with its schema facts (wal.ViewFacts), so
// a view's definition is versioned with the tables it reads. A FROM
// reference to a view is planned on sql/exec (the flat planner refuses
// it with a construct betterRefusal hands over): the binder expands the
// definition (lplan.ViewCatalog), resolving its tables and views at the
// version the reference reads. A view is served when it lies in a
// schema of a followed table and every relation it reads is a followed
// table or a served view; otherwise it is refused by name. The SQL
// port has no privileges of its own (every followed table is readable
// by every client), and neither do its views.

// viewSource is what finds views: the followed tables (at HEAD and at
// a version) and the statement's version of an AS OF ref.
type viewSource struct {
	ctx context.Context
	src Source
	ver func(ref string) (Version, error)
}

func (pl *planner) views() viewSource {
	return viewSource{ctx: pl.ctx, src: pl.src, ver: func(ref string) (Version, error) { return pl.sess.versionFor(pl.ctx, ref) }}
}

// headView finds the view schema.name among the views the followed
// tables' current facts list, and the followed tables that list it
// (whose facts hold its definition at each version).
func (vs viewSource) headView(schema, name string) (*wal.ViewFacts, []string) {
	if schema == "" {
		schema = "public"
	}
	var found *wal.ViewFacts
	var anchors []string
	for _, t := range vs.src.Tables() {
		if t.Facts == nil || t.Facts.Schema == nil {
			continue
		}
		for i := range t.Facts.Schema.Views {
			v := &t.Facts.Schema.Views[i]
			if v.Schema == schema && v.Name == name {
				found = v
				anchors = append(anchors, t.Name)
			}
		}
	}
	return found, anchors
}

// viewAt is the definition of the view schema.name at AS OF ref (""
// the statement's version), or the refusal naming why it cannot be
// read; nil, nil when no followed table lists such a view.
func (vs viewSource) viewAt(schema, name, ref string, pos int) (*wal.ViewFacts, error) {
	head, anchors := vs.headView(schema, name)
	if head == nil {
		return nil, nil
	}
	qname := head.QualifiedName()
	ver, err := vs.ver(ref)
	if err != nil {
		return nil, withPos(err, pos)
	}
	var found *wal.ViewFacts
	unread := false
	for _, a := range anchors {
		t, err := vs.src.Table(vs.ctx, ver, a)
		if err != nil || t.Facts == nil || t.Facts.Schema == nil || !t.Facts.Schema.ViewsRead {
			unread = unread || err == nil
			continue
		}
		for i := range t.Facts.Schema.Views {
			v := &t.Facts.Schema.Views[i]
			if v.Schema != head.Schema || v.Name != head.Name {
				continue
			}
			if found != nil && !found.Equal(v) {
				return nil, refuseView(pos, fmt.Sprintf("the view %s at this version (the tables it reads hold different definitions of it)", qname))
			}
			found = v
		}
	}
	if found == nil {
		why := "it did not exist then"
		if unread {
			why = "sidecar had not read view definitions then"
		}
		return nil, refuseView(pos, fmt.Sprintf("the view %s at this version (%s)", qname, why))
	}
	if found.Kind != 'v' {
		return nil, refuseView(pos, fmt.Sprintf("the materialized view %s (sidecar does not follow materialized views)", qname))
	}
	if err := vs.viewReach(found, pos); err != nil {
		return nil, err
	}
	return found, nil
}

// viewReach refuses a view outside what the SQL port serves: in a
// schema no followed table is in, or reading a relation that is
// neither a followed table nor a view above one.
func (vs viewSource) viewReach(v *wal.ViewFacts, pos int) error {
	schemas := map[string]bool{}
	tables := map[[2]string]bool{}
	for _, t := range vs.src.Tables() {
		schemas[t.Schema] = true
		tables[[2]string{t.Schema, t.Rel}] = true
	}
	if !schemas[v.Schema] {
		return refuseView(pos, fmt.Sprintf("the view %s (sidecar follows no table in the schema %s)", v.QualifiedName(), v.Schema))
	}
	for _, r := range v.Refs {
		name := r.Schema + "." + r.Name
		switch {
		case (r.Kind == 'r' || r.Kind == 'p') && tables[[2]string{r.Schema, r.Name}]:
		case r.Kind == 'v':
			if w, _ := vs.headView(r.Schema, r.Name); w == nil {
				return refuseView(pos, fmt.Sprintf("the view %s (it reads the view %s, which reads relations sidecar does not follow)", v.QualifiedName(), name))
			}
		default:
			return refuseView(pos, fmt.Sprintf("the view %s (it reads %s, which sidecar does not follow)", v.QualifiedName(), name))
		}
	}
	return nil
}

// usedView is a view a plan expanded: the plan is current while the
// view's definition at ref is still this one.
type usedView struct {
	schema, name, ref string
	facts             *wal.ViewFacts
}

// viewsCurrent says whether the views a plan expanded still have the
// definitions it was planned with (CREATE OR REPLACE VIEW seen by the
// catalog poll makes a cached or prepared plan stale).
func (vs viewSource) viewsCurrent(used []usedView) bool {
	for _, u := range used {
		v, err := vs.viewAt(u.schema, u.name, u.ref, -1)
		if err != nil || v == nil || !v.Equal(u.facts) {
			return false
		}
	}
	return true
}

// execViews is the viewSource of a statement being run.
func (ex *execCtx) views() viewSource {
	return viewSource{ctx: ex.ctx, src: ex.src, ver: func(ref string) (Version, error) {
		if ex.sess != nil {
			return ex.sess.versionFor(ex.ctx, ref)
		}
		if ref == "" {
			ref = "HEAD"
		}
		return ex.src.Resolve(ex.ctx, ref)
	}}
}

// viewDef turns a view's facts into the binder's ViewDef, its names
// resolved at AS OF ref.
func (c *vecCatalog) viewDef(v *wal.ViewFacts, ref string, pos int) (*lplan.ViewDef, error) {
	text := v.Qualified
	if text == "" {
		text = v.Def
	}
	tree, err := parseSQL(text)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, refuseView(pos, fmt.Sprintf("the view %s (its definition does not parse here)", v.QualifiedName()))
	}
	stmt := tree.Stmts[0].Stmt
	// The checks the statement's own references get (planVec).
	if err := c.pl.onlyPartRoot(stmt); err != nil {
		return nil, err
	}
	if err := c.pl.inheritRefusal(stmt); err != nil {
		return nil, err
	}
	if err := c.pl.notCarriedRefusal(stmt); err != nil {
		return nil, err
	}
	d := &lplan.ViewDef{Schema: v.Schema, Name: v.Name, Query: stmt.GetSelectStmt(), Catalog: &viewCatalog{c: c, ref: ref}}
	oid := v.OID
	d.Bound = func(cols []lplan.ColumnID) { c.viewCols.bound(oid, cols) } // vexec_origin.go
	for _, col := range v.Columns {
		typ := lplan.Type{OID: col.TypeOID, Mod: col.TypeMod}
		if b, ok := c.pl.domainBases()[col.TypeOID]; ok {
			typ = b // domaincols.go: a domain column planned by its base type
		}
		d.Columns = append(d.Columns, lplan.ColumnDef{Name: col.Name, Type: typ})
	}
	return d, nil
}

// View implements lplan.ViewCatalog for the statement's references.
func (c *vecCatalog) View(schema, name string, loc int32) (*lplan.ViewDef, error) {
	ref := ""
	if loc >= 0 {
		ref = c.pl.asOf[int(loc)]
	}
	return c.viewRef(schema, name, ref, int(loc))
}

func (c *vecCatalog) viewRef(schema, name, ref string, pos int) (*lplan.ViewDef, error) {
	if c.catalogTable(schema, name) != nil {
		return nil, nil // a catalog relation (pgcatalog_plan.go)
	}
	v, err := c.pl.views().viewAt(schema, name, ref, pos)
	if v == nil || err != nil {
		return nil, err
	}
	c.views = append(c.views, usedView{schema: schema, name: name, ref: ref, facts: v})
	return c.viewDef(v, ref, pos)
}

// viewCatalog resolves the names inside a view's definition: followed
// tables and views at the version of the reference to the view.
type viewCatalog struct {
	c   *vecCatalog
	ref string
}

// Table implements lplan.Catalog.
func (vc *viewCatalog) Table(schema, name string) *lplan.TableDef {
	return vc.c.tableRef(schema, name, vc.ref)
}

// View implements lplan.ViewCatalog.
func (vc *viewCatalog) View(schema, name string, _ int32) (*lplan.ViewDef, error) {
	return vc.c.viewRef(schema, name, vc.ref, -1)
}

// viewRefusal is the flat planner's answer for a view: a refusal, so the
// statement is planned on sql/exec; nil when name is no view.
func (pl *planner) viewRefusal(rv *pg.RangeVar, schema string) error {
	v, _ := pl.views().headView(schema, rv.Relname)
	if v == nil {
		return nil
	}
	return unsupported(int(rv.Location), fmt.Sprintf("a view (%s) on the flat path", v.QualifiedName()))
}

// viewRefused is a refusal of a view itself (not of the statement
// around it): betterRefusal answers it as it is.
type viewRefused struct{ e *Error }

func (v viewRefused) Error() string { return v.e.Error() }
func (v viewRefused) Unwrap() error { return v.e }

func refuseView(pos int, construct string) error {
	return viewRefused{unsupported(pos, construct).hint("sidecar reads a view when it reads every relation the view reads")}
}
