package sqlfront

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Inheritance parents on the sql/exec path (inherit.go): the catalog
// describes a parent with descendants as a relation with the parent's
// columns and no key (the descendants' keys are their own); vecSource
// scans it as the parent's own rows then each followed descendant's,
// mapped to the parent's columns by name. sql/plan's binder does not
// tell FROM ONLY from FROM, so a statement naming such a parent with
// ONLY is refused here, as one whose parent has descendants not followed.

// inheritsVec says whether t is read with its descendants on this path.
func inheritsVec(t *Table) bool {
	return t != nil && t.part == nil && t.Facts != nil && len(t.Facts.Descendants) > 0
}

// inheritRefusal refuses stmt when it reads an inheritance parent with
// ONLY, or one with a descendant holding rows that is not followed.
func (pl *planner) inheritRefusal(stmt *pg.Node) error {
	return eachRangeVar(stmt, func(rv *pg.RangeVar) error { // partroot_vec.go
		t, terr := pl.table(rv, "")
		if terr != nil || !inheritsVec(t) {
			return nil // a CTE's name, or a table the binder reports
		}
		if !rv.Inh {
			return unsupported(int(rv.Location), "FROM ONLY "+t.Name+" (an inheritance parent) with joins, subqueries, CTEs or set operations").
				hint("the query refused here is one sidecar answers only on its flat path")
		}
		if _, missing := inheritParts(t.Name, t.Facts, pl.followed()); len(missing) > 0 {
			return missingDescendants(int(rv.Location), t.Name, missing)
		}
		return nil
	})
}

// scanInherited reads the inheritance parent planned as t at the
// statement's version (or AS OF ref): its own rows, then its followed
// descendants' in t's column order.
func (s *vecSource) scanInherited(ctx context.Context, t *Table, ref string, fn func(row []*string) error) error {
	v, err := s.ex.sess.versionFor(ctx, ref)
	if err != nil {
		return err
	}
	own, err := s.ex.src.Table(ctx, v, t.Name)
	if err != nil {
		return err
	}
	if !sameColumns(&own, t) || !sameFacts(&own, t) {
		return errReplan
	}
	if err := s.ex.src.Scan(ctx, v, &own, "", "", fn); err != nil {
		return err
	}
	tables := map[string]bool{}
	for _, x := range s.ex.src.Tables() {
		tables[x.Name] = true
	}
	parts, missing := inheritParts(t.Name, t.Facts, func(n string) bool { return tables[n] })
	if len(missing) > 0 {
		return missingDescendants(-1, t.Name, missing)
	}
	return mappedRows(ctx, s.ex.src, v, t, parts, fn)
}
