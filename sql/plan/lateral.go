package plan

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// LateralJoin is `left, LATERAL right` (a subquery or a set-returning
// function reading columns of the items before it, in a FROM list or on
// the right of an INNER or LEFT JOIN): Right is evaluated once per row
// of Left with Outer (columns of Left it reads) bound to that row's
// values, and each Left row is paired with every row Right gives for it
// (a dependent join, as PostgreSQL's nested loop with parameters). A
// JOIN's ON condition is a filter inside Right (it may read Outer too).
// LeftOuter (LEFT JOIN LATERAL) keeps a Left row Right gives no row for,
// with NULLs for Right's columns.
type LateralJoin struct {
	Left, Right Rel
	Outer       []ColumnID
	LeftOuter   bool
}

// Columns implements Rel.
func (j *LateralJoin) Columns() []ColumnID {
	return append(append([]ColumnID(nil), j.Left.Columns()...), j.Right.Columns()...)
}

// Inputs implements Rel.
func (j *LateralJoin) Inputs() []Rel { return []Rel{j.Left, j.Right} }

// latState is what a LATERAL item being bound may read: the FROM items
// before it at this query level (and, on the right of a JOIN, the
// join's left side), and the columns of theirs it read so far. As in
// PostgreSQL a function in FROM is LATERAL with or without the keyword.
type latState struct {
	visible []*item
	refs    ColSet
	split   *latSplit
}

// latSplit is what the last plain JOIN bound read of the items before
// it through its left side (leftRefs).
type latSplit struct {
	join     *Join
	leftRefs ColSet
}

// latScope is the scope a LATERAL item's expressions are bound in: the
// visible items, then the enclosing query levels.
func (b *binder) latScope(sc *scope) *scope {
	return &scope{parent: sc.parent, items: b.lat.visible}
}

// lateralSubquery binds `LATERAL (subquery)`: the subquery sees the
// visible items as an enclosing level; what it reads of them is noted in
// b.lat.refs for the join that holds it (lateralOrCross, lateralJoin).
func (b *binder) lateralSubquery(rs *pg.RangeSubselect, sc *scope) (Rel, *item, error) {
	lat := b.latScope(sc)
	sub := &scope{parent: lat}
	rel, cols, names, err := b.bindSelect(rs.Subquery.GetSelectStmt(), sub)
	if err != nil {
		return nil, nil, err
	}
	b.lat.refs.AddSet(sub.outer)
	sc.outer.AddSet(lat.outer) // columns of the enclosing levels
	// An output column that is an outer column itself (SELECT a.x) gets
	// its own ID: beside a's column in the join's output (and NULL
	// where a LEFT JOIN LATERAL finds no row) it is another column.
	var p *Project
	for i, id := range cols {
		if sub.outer.Has(id) {
			if p == nil {
				p = &Project{Input: rel, Cols: append([]ColumnID(nil), cols...), Exprs: b.refs(cols)}
			}
			c := b.md.Column(id)
			p.Cols[i] = b.md.Add(ColumnMeta{Name: c.Name, Type: c.Type})
		}
	}
	if p != nil {
		rel, cols = p, p.Cols
	}
	alias := ""
	var colAlias []*pg.Node
	if rs.Alias != nil {
		alias, colAlias = rs.Alias.Aliasname, rs.Alias.Colnames
	}
	if names, err = aliasNames(names, colAlias, "subquery "+alias, -1); err != nil {
		return nil, nil, err
	}
	return rel, newItem(alias, b.scopeCols(cols, names)), nil
}

// readOf is the columns of rel that refs holds, in ID order.
func readOf(refs ColSet, rel Rel) []ColumnID {
	var out []ColumnID
	for _, id := range rel.Columns() {
		if refs.Has(id) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// lateralOrCross joins the next item of a FROM list to the items before
// it: a lateral join when it read their columns (refs), else a cross
// join (the rules turn WHERE's conditions into its condition).
func (b *binder) lateralOrCross(left, right Rel, refs ColSet) Rel {
	if left == nil {
		return right
	}
	if outer := readOf(refs, left); len(outer) > 0 {
		// left, (b JOIN LATERAL f(left) ON c) with only the JOIN's right
		// side reading left: (left, LATERAL f) JOIN b ON c, so b is read
		// once, not once per row of left (inner joins only).
		if j, ok := right.(*Join); ok && (j.Kind == InnerJoin || j.Kind == CrossJoin) && b.lat.split != nil && b.lat.split.join == j &&
			len(readOf(b.lat.split.leftRefs, left)) == 0 {
			return &Join{Kind: j.Kind, On: j.On, Left: &LateralJoin{Left: left, Right: j.Right, Outer: outer}, Right: j.Left}
		}
		return &LateralJoin{Left: left, Right: right, Outer: outer}
	}
	return &Join{Kind: CrossJoin, Left: left, Right: right}
}

// lateralJoin turns join into a LateralJoin when its right side read
// columns of its left side (refs: what binding the right side noted).
// Only INNER and LEFT joins may, as in PostgreSQL (42P10 otherwise).
func lateralJoin(join *Join, refs ColSet, loc int32) (Rel, error) {
	outer := readOf(refs, join.Left)
	if len(outer) == 0 {
		return join, nil
	}
	switch join.Kind {
	case RightJoin, FullJoin:
		return nil, errorf("42P10", "invalid reference to FROM-clause entry for table: the combining JOIN type must be INNER or LEFT for a LATERAL reference").at(loc)
	}
	right := join.Right
	if join.On != nil {
		right = &Filter{Input: right, Pred: join.On}
		outer = readOf(SetOf(append(outer, ColumnsOf(join.On).Sorted()...)), join.Left)
	}
	return &LateralJoin{Left: join.Left, Right: right, Outer: outer, LeftOuter: join.Kind == LeftJoin}, nil
}
