package plan

// An aggregate or GROUPING() in a subquery of an expression belongs to
// the query level of the columns its arguments, ORDER BY and FILTER read
// (PostgreSQL's agglevelsup): when they are all columns of one enclosing
// query, it is computed there, once per group of that query, and the
// subquery reads its value as an outer column. The binder moves it when
// every column read is of the same enclosing level; one reading columns
// of several levels, or no column at all, stays at the subquery's level.

// aggLevels are the scopes from an aggregate's scope out to the root,
// with their outer columns before the aggregate's arguments were bound
// (restored when it moves out: the subquery then reads the aggregate's
// column, not those its arguments read).
type aggLevels struct {
	chain []*scope
	saved []ColSet
}

// outerAggLevels notes sc's chain of scopes before an aggregate is bound.
func outerAggLevels(sc *scope) *aggLevels {
	l := &aggLevels{}
	for s := sc; s != nil; s = s.parent {
		var c ColSet
		c.AddSet(s.outer)
		l.chain, l.saved = append(l.chain, s), append(l.saved, c)
	}
	return l
}

// target is the context of the expression holding the subquery whose
// enclosing level ae belongs to, nil when ae stays at its own level; it
// fixes the outer columns of the scopes in between (they read col, the
// aggregate's column, instead), given by set once col is known.
func (b *binder) outerAggTarget(l *aggLevels, ae AggExpr) (*exprCtx, func(col ColumnID)) {
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
		return nil, nil
	}
	// A subquery in an expression is bound in a scope without items
	// holding the expression's context (subLink), whose parent is the
	// scope of the level holding the expression.
	for i := 0; i+2 < len(l.chain); i++ {
		ph := l.chain[i+1]
		if ph.subCtx == nil || len(ph.items) > 0 || !read.SubsetOf(itemCols(l.chain[i+2].items)) {
			continue
		}
		return ph.subCtx, func(col ColumnID) {
			for k := 0; k <= i+1; k++ {
				l.chain[k].outer = l.saved[k]
				l.chain[k].outer.Add(col)
			}
		}
	}
	return nil, nil
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
