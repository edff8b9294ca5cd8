package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// LateralJoin is `left, LATERAL (subquery)`: Right is evaluated once per
// row of Left with Outer (columns of Left it reads) bound to that row's
// values, and each Left row is paired with every row Right gives for it
// (a dependent cross join, as PostgreSQL's nested loop with
// parameters).
type LateralJoin struct {
	Left, Right Rel
	Outer       []ColumnID
}

// Columns implements Rel.
func (j *LateralJoin) Columns() []ColumnID {
	return append(append([]ColumnID(nil), j.Left.Columns()...), j.Right.Columns()...)
}

// Inputs implements Rel.
func (j *LateralJoin) Inputs() []Rel { return []Rel{j.Left, j.Right} }

// lateralItem binds a LATERAL subquery of a FROM list after the items
// before it (left, bound into sc.items; nil for the first item): the
// subquery sees them as outer columns. A subquery that reads none of
// them is an ordinary cross join.
func (b *binder) lateralItem(left Rel, rs *pg.RangeSubselect, sc *scope) (Rel, *item, error) {
	sub := &scope{parent: sc}
	rel, cols, names, err := b.bindSelect(rs.Subquery.GetSelectStmt(), sub)
	if err != nil {
		return nil, nil, err
	}
	alias := ""
	var colAlias []*pg.Node
	if rs.Alias != nil {
		alias, colAlias = rs.Alias.Aliasname, rs.Alias.Colnames
	}
	if names, err = aliasNames(names, colAlias, "subquery "+alias, -1); err != nil {
		return nil, nil, err
	}
	it := newItem(alias, b.scopeCols(cols, names))
	if left == nil {
		sc.outer.AddSet(sub.outer)
		return rel, it, nil
	}
	leftCols := SetOf(left.Columns())
	var outer []ColumnID
	for _, id := range sub.outer.Sorted() {
		if leftCols.Has(id) {
			outer = append(outer, id)
		}
		// Columns of enclosing levels: the lookup noted them in sc.outer.
	}
	if len(outer) == 0 {
		return &Join{Kind: CrossJoin, Left: left, Right: rel}, it, nil
	}
	return &LateralJoin{Left: left, Right: rel, Outer: outer}, it, nil
}
