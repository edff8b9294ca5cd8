package plan

// An aggregate in a subquery of an expression belongs to the query level
// of the columns its arguments, ORDER BY and FILTER read (PostgreSQL's
// agglevelsup): when they are all columns of the enclosing query, it is
// computed there, once per group of that query, and the subquery reads
// its value as an outer column. The binder moves it when every column
// read is of the directly enclosing level; aggregates reading columns of
// both levels, of levels further out, or no column at all stay at the
// subquery's level.

// outerAggScope is the scope between sc's query level and the expression
// holding it, when sc's level is a subquery in an expression (nil: not
// one), and sc's and that scope's outer columns before an aggregate is
// bound (restored when it moves out).
func outerAggScope(sc *scope) (*scope, [2]ColSet) {
	var saved [2]ColSet
	ph := sc.parent
	if ph == nil || ph.subCtx == nil || ph.parent == nil || len(ph.items) > 0 {
		return nil, saved
	}
	saved[0].AddSet(sc.outer)
	saved[1].AddSet(ph.outer)
	return ph, saved
}

// outerAgg says whether ae, bound at sc's level, reads columns of the
// enclosing level (the items of ph.parent) and no others.
func (b *binder) outerAgg(sc, ph *scope, ae AggExpr) bool {
	var read ColSet
	note := func(s Scalar) {
		if s == nil {
			return
		}
		Walk(s, func(x Scalar) bool {
			switch y := x.(type) {
			case *ColRef:
				read.Add(y.ID)
			case *Subquery:
				for _, id := range y.Outer {
					read.Add(id)
				}
			}
			return true
		})
	}
	for _, a := range ae.Args {
		note(a)
	}
	note(ae.Filter)
	if read.Len() == 0 {
		return false
	}
	outer := itemCols(ph.parent.items)
	for _, id := range read.Sorted() {
		if !outer.Has(id) {
			return false
		}
	}
	return true
}

// itemCols are the columns of FROM items (those of the items inside
// unaliased joins too).
func itemCols(items []*item) ColSet {
	var out ColSet
	for _, it := range items {
		for _, c := range it.cols {
			out.Add(c.id)
		}
		out.AddSet(itemCols(it.sub))
	}
	return out
}
