package sqlfront

import (
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/wal"
)

// Which collation an ordering of text uses on the sql/exec path, derived
// from the bound plan as PostgreSQL's parse_collate.c does for implicit
// collations: a column's own (non-default) collation wins over the
// default one (literals, parameters and the database default), two
// different non-default collations conflict (PostgreSQL: 42P21 where an
// ordering uses them; sidecar refuses), and an expression whose result is
// not text carries none. Explicit COLLATE clauses never reach here (the
// binder refuses all but "default", which pgcatalog_collate.go refuses
// under a non-byte-order default). Where a value's collation cannot be
// traced (a column of a subquery, CTE or set operation) the derivation
// says so, and the caller refuses unless no column read has a collation
// other than the default.

// derivedColl is a derived implicit collation.
type derivedColl struct {
	kind int           // collNone, collNamed, collUnknown, collConflict
	c    wal.Collation // collNamed: the non-default collation
}

const (
	collNone     = iota // the default (or no collation)
	collNamed           // a non-default collation
	collUnknown         // not traced
	collConflict        // two non-default collations
	collExplicit        // an explicit COLLATE's (collate_explicit.go)
)

// merge combines the collations of an expression's inputs.
func (d derivedColl) merge(o derivedColl) derivedColl {
	switch {
	case d.kind == collConflict || o.kind == collConflict:
		return derivedColl{kind: collConflict}
	case d.kind == collExplicit && o.kind == collExplicit:
		if d.c != o.c {
			return derivedColl{kind: collConflict} // PostgreSQL: 42P21
		}
		return d
	case d.kind == collExplicit:
		return d // an explicit collation wins over implicit ones
	case o.kind == collExplicit:
		return o
	case d.kind == collNone:
		return o
	case o.kind == collNone:
		return d
	case d.kind == collNamed && o.kind == collNamed:
		if d.c != o.c {
			return derivedColl{kind: collConflict}
		}
		return d
	}
	return derivedColl{kind: collUnknown}
}

// collDeriver derives collations over one statement's plan.
type collDeriver struct {
	md     *lplan.Metadata
	tables map[*lplan.TableDef]*Table
	cols   map[lplan.ColumnID]derivedColl
	// traced: no column the plan scans has a collation other than the
	// default (nor is of type name), so an untraced value is the
	// default's.
	traced bool
	// explicit are the statement's explicit COLLATE names resolved
	// (collate_explicit.go).
	explicit map[string]wal.Collation
}

func newCollDeriver(r lplan.Rel, md *lplan.Metadata, tables map[*lplan.TableDef]*Table, explicit map[string]wal.Collation) *collDeriver {
	d := &collDeriver{md: md, tables: tables, cols: map[lplan.ColumnID]derivedColl{}, traced: true, explicit: explicit}
	d.rel(r)
	return d
}

// textResult says whether t carries a collation here.
func textResult(t lplan.Type) bool { return isTextType(t.OID) || t.OID == lplan.Unknown }

// rel records, bottom-up, the collations of the columns r produces.
func (d *collDeriver) rel(r lplan.Rel) {
	if r == nil {
		return
	}
	for _, in := range r.Inputs() {
		d.rel(in)
	}
	d.subqueries(r)
	switch x := r.(type) {
	case *lplan.Scan:
		t := d.tables[x.Table]
		for i, id := range x.Cols {
			ct := d.md.Column(id).Type
			switch {
			case ct.OID == oidName:
				d.cols[id] = derivedColl{kind: collNamed, c: nameCollation}
				d.traced = false
			case !textResult(ct) || ct.OID == oidCharType:
				d.cols[id] = derivedColl{}
			case t == nil || i >= len(x.Ords) || x.Ords[i] >= len(t.Columns):
				d.cols[id] = derivedColl{kind: collUnknown} // a catalog table's
				d.traced = false
			default:
				c := t.Columns[x.Ords[i]].Collation
				if c.Name == "" || c.Name == "default" {
					d.cols[id] = derivedColl{}
				} else {
					d.cols[id] = derivedColl{kind: collNamed, c: c}
					d.traced = false
				}
			}
		}
	case *lplan.Project:
		for i, id := range x.Cols {
			if i < len(x.Exprs) {
				c := d.expr(x.Exprs[i])
				if c.kind == collExplicit {
					// a column of a subquery carries its collation
					// implicitly (where it stays in one query level,
					// the merges are the same: refused where they differ)
					c.kind = collNamed
					d.traced = false
				}
				d.cols[id] = c
			}
		}
	case *lplan.Aggregate:
		for _, a := range x.Aggs {
			if (a.Name == "min" || a.Name == "max") && len(a.Args) == 1 {
				d.cols[a.Col] = d.expr(a.Args[0])
			}
		}
	}
}

// subqueries records the columns of the subqueries r's expressions hold.
func (d *collDeriver) subqueries(r lplan.Rel) {
	var exprs []lplan.Scalar
	switch x := r.(type) {
	case *lplan.Scan:
		exprs = append(exprs, x.Filter)
	case *lplan.Filter:
		exprs = append(exprs, x.Pred)
	case *lplan.Project:
		exprs = append(exprs, x.Exprs...)
	case *lplan.Join:
		exprs = append(exprs, x.On)
	case *lplan.Aggregate:
		for _, a := range x.Aggs {
			exprs = append(exprs, a.Args...)
			exprs = append(exprs, a.Filter)
		}
	}
	for _, e := range exprs {
		lplan.Walk(e, func(s lplan.Scalar) bool {
			if q, ok := s.(*lplan.Subquery); ok && q.Plan != nil {
				d.rel(q.Plan)
			}
			return true
		})
	}
}

// expr derives the collation of s.
func (d *collDeriver) expr(s lplan.Scalar) derivedColl {
	if s == nil || !textResult(s.Type()) {
		return derivedColl{}
	}
	switch x := s.(type) {
	case *lplan.ColRef:
		if c, ok := d.cols[x.ID]; ok {
			return c
		}
		return derivedColl{kind: collUnknown}
	case *lplan.Const, *lplan.Param:
		return derivedColl{}
	case *lplan.Subquery:
		return derivedColl{kind: collUnknown}
	}
	if name, ok := lplan.ExplicitCollation(s); ok {
		if c, known := d.explicit[name]; known {
			return derivedColl{kind: collExplicit, c: c}
		}
		return derivedColl{kind: collConflict} // not resolved: refused
	}
	out := derivedColl{}
	for _, c := range lplan.Children(s) {
		out = out.merge(d.expr(c))
	}
	return out
}

// col derives the collation of column id.
func (d *collDeriver) col(id lplan.ColumnID) derivedColl {
	if c, ok := d.cols[id]; ok {
		return c
	}
	return derivedColl{kind: collUnknown}
}

// resolve is the collation an ordering of a value derived as c uses
// under the default def; ok false when it cannot be told.
func (d *collDeriver) resolve(c derivedColl, def wal.Collation) (wal.Collation, bool) {
	switch c.kind {
	case collNone:
		return def, true
	case collNamed, collExplicit:
		return c.c, true
	case collUnknown:
		return def, d.traced
	}
	return wal.Collation{}, false
}
