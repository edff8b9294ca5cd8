package plan

// AllExprsOf lists every expression an operator evaluates itself:
// ExprsOf's, a Limit's count and offset and the aggregates' FILTERs
// (nil ones left out).
func AllExprsOf(r Rel) []Scalar {
	exprs := ExprsOf(r)
	switch x := r.(type) {
	case *Limit:
		exprs = append(exprs, x.Count, x.Offset)
	case *Aggregate:
		for _, a := range x.Aggs {
			exprs = append(exprs, a.Filter)
		}
	}
	out := exprs[:0:0]
	for _, e := range exprs {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}
