package sqlfront

// limitDetermined reports whether the rows p's LIMIT/OFFSET keep are
// the same in any order PostgreSQL could read them in: there is no
// LIMIT or OFFSET, the select yields one row, its ORDER BY covers every
// GROUP BY expression, or it covers the primary key of its one followed
// table. Otherwise PostgreSQL's answer is the rows its plan happens to
// read first (the heap's order, a sort's among ties), and the flat
// planner, which reads in the mirror's order, leaves the statement to
// sql/exec: that answers it only when the rows the cut could pick are
// all the same (sql/exec/limitorder.go), and refuses it otherwise.
// Catalog relations keep the flat path (their rows are the sidecar's
// own, not PostgreSQL's).
func (p *plan) limitDetermined() bool {
	if p.limit == nil && p.offset == nil || p.noRows {
		return true
	}
	ordered := func(idx int) bool {
		for _, k := range p.order {
			if c, ok := k.e.(*colExpr); ok && c.idx == idx {
				return true
			}
		}
		return false
	}
	if p.grouping {
		for _, g := range p.groupBy {
			c, ok := g.(*colExpr)
			if !ok || !ordered(c.idx) {
				return false
			}
		}
		return true
	}
	for _, it := range p.from {
		if it.virt != nil {
			return true
		}
	}
	if len(p.from) != 1 || p.from[0].table == nil || len(p.from[0].table.KeyCols) == 0 {
		return false
	}
	it := p.from[0]
	for _, k := range it.table.KeyCols {
		if !ordered(it.base + k) {
			return false
		}
	}
	return true
}
