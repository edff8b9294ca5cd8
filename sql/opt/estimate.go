package opt

import (
	"math"
	"strconv"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// Row estimates for join ordering, deliberately simple: a table's row
// count (TableDef.Rows: the HEAD heap's live rows; defaultRows when
// unknown), a column's distinct count when the catalog knows it, and
// fixed fractions for everything else, as PostgreSQL's planner does
// without statistics.
const (
	defaultRows  = 1000.0  // a table or operator nothing is known about
	eqFraction   = 0.1     // col = constant, distinct count unknown
	rangeFrac    = 1.0 / 3 // col < constant and the like
	otherFrac    = 0.25    // LIKE, functions, anything else
	groupFrac    = 0.1     // groups of a GROUP BY per input row
	semiFraction = 0.5     // rows a semi or anti join keeps
)

// estimator knows which base column each column of a query is.
type estimator struct {
	base map[plan.ColumnID]baseCol
}

// baseCol is column ord of table t, read by scan.
type baseCol struct {
	t    *plan.TableDef
	ord  int
	scan *plan.Scan
}

func newEstimator() *estimator { return &estimator{base: map[plan.ColumnID]baseCol{}} }

// note records the base columns of the scans in rel.
func (e *estimator) note(rel plan.Rel) {
	if s, ok := rel.(*plan.Scan); ok {
		for i, id := range s.Cols {
			e.base[id] = baseCol{t: s.Table, ord: s.Ords[i], scan: s}
		}
	}
	for _, in := range rel.Inputs() {
		e.note(in)
	}
}

// tableRows is t's row count, defaultRows when unknown.
func tableRows(t *plan.TableDef) float64 {
	if t.Rows > 0 {
		return float64(t.Rows)
	}
	return defaultRows
}

// keyDomain is the row count of the table column id is the one-column
// primary key of, 0 when it is not one.
func (e *estimator) keyDomain(id plan.ColumnID) float64 {
	if b, ok := e.base[id]; ok && len(b.t.Key) == 1 && b.t.Key[0] == b.ord {
		return tableRows(b.t)
	}
	return 0
}

// domain is the number of distinct values column id can take, 0 when
// unknown: a table's row count for its one-column primary key, the
// catalog's distinct count otherwise.
func (e *estimator) domain(id plan.ColumnID) float64 {
	if d := e.keyDomain(id); d > 0 {
		return d
	}
	b, ok := e.base[id]
	if !ok {
		return 0
	}
	if d := b.t.Columns[b.ord].Distinct; d > 0 {
		return math.Min(float64(d), tableRows(b.t))
	}
	return 0
}

// rows estimates the number of rows rel produces.
func (e *estimator) rows(rel plan.Rel) float64 {
	var r float64
	switch x := rel.(type) {
	case *plan.Scan:
		r = tableRows(x.Table)
		if k := x.Key; k != nil {
			if len(k.Eq) == len(x.Table.Key) && k.Lo == nil && k.Hi == nil {
				return 1 // a point get
			}
			r *= math.Pow(eqFraction, float64(len(k.Eq)))
			if k.Lo != nil || k.Hi != nil {
				r *= rangeFrac
			}
		}
		r *= e.selectivity(x.Filter)
	case *plan.Filter:
		r = e.rows(x.Input) * e.selectivity(x.Pred)
	case *plan.Project:
		r = e.rows(x.Input)
	case *plan.Sort:
		r = e.rows(x.Input)
	case *plan.Window:
		r = e.rows(x.Input)
	case *plan.Distinct:
		r = e.rows(x.Input)
	case *plan.Limit:
		r = e.rows(x.Input)
		if c, ok := x.Count.(*plan.Const); ok && !c.Null {
			if n, err := strconv.ParseFloat(c.Text, 64); err == nil {
				r = math.Min(r, n)
			}
		}
	case *plan.Aggregate:
		if len(x.GroupBy) == 0 {
			return 1
		}
		r = e.rows(x.Input) * groupFrac
	case *plan.Join:
		l, rr := e.rows(x.Left), e.rows(x.Right)
		switch x.Kind {
		case plan.InnerJoin, plan.CrossJoin:
			r = e.joinRows(l, rr, plan.SetOf(x.Left.Columns()), plan.SetOf(x.Right.Columns()), plan.Conjuncts(x.On))
		case plan.LeftJoin:
			r = math.Max(l, e.joinRows(l, rr, plan.SetOf(x.Left.Columns()), plan.SetOf(x.Right.Columns()), plan.Conjuncts(x.On)))
		case plan.RightJoin:
			r = math.Max(rr, e.joinRows(l, rr, plan.SetOf(x.Left.Columns()), plan.SetOf(x.Right.Columns()), plan.Conjuncts(x.On)))
		case plan.FullJoin:
			r = l + rr
		default: // semi, anti
			r = l * semiFraction
		}
	case *plan.SetOp:
		r = e.rows(x.Left) + e.rows(x.Right)
	case *plan.Values:
		r = float64(len(x.Rows))
	default:
		r = defaultRows
	}
	return math.Max(r, 1)
}

// selectivity is the fraction of rows conjunction pred keeps (nil: all).
func (e *estimator) selectivity(pred plan.Scalar) float64 {
	s := 1.0
	for _, p := range plan.Conjuncts(pred) {
		s *= e.sel1(p)
	}
	return s
}

// sel1 is the fraction of rows predicate p keeps.
func (e *estimator) sel1(p plan.Scalar) float64 {
	switch x := p.(type) {
	case *plan.Const:
		if b, ok := boolOf(x); ok && b {
			return 1
		}
		return 0
	case *plan.BoolOp:
		switch x.Op {
		case "AND":
			s := 1.0
			for _, a := range x.Args {
				s *= e.sel1(a)
			}
			return s
		case "OR":
			keep := 1.0
			for _, a := range x.Args {
				keep *= 1 - e.sel1(a)
			}
			return 1 - keep
		case "NOT":
			if len(x.Args) == 1 {
				return 1 - e.sel1(x.Args[0])
			}
		}
	case *plan.Op:
		switch x.Op {
		case "=":
			if len(x.Args) == 2 {
				return e.eqSel(x.Args[0], x.Args[1])
			}
		case "<>":
			return 1 - eqFraction
		case "<", "<=", ">", ">=":
			return rangeFrac
		}
	case *plan.InList:
		s := 0.0
		for _, v := range x.List {
			s += e.eqSel(x.Arg, v)
		}
		s = math.Min(s, 1)
		if x.Not {
			return 1 - s
		}
		return s
	case *plan.IsNull:
		if x.Not {
			return 1 - eqFraction
		}
		return eqFraction
	}
	return otherFrac
}

// eqSel is the fraction of rows a = b keeps within one relation: one
// over the column's domain when it is a column against a value. A
// column of another relation is a value here (as PostgreSQL's
// var_eq_non_const takes a Param): an outer column of a correlated
// subquery (TPC-H Q17's l_partkey = p_partkey keeps 1/200,000 of
// lineitem, not a tenth), or a column of the other side of a join;
// when that column's domain is known too, the larger domain decides
// (each value of the smaller finds a match at most once in the larger's
// domain), as for a join's equality (joinRows).
func (e *estimator) eqSel(a, b plan.Scalar) float64 {
	if plan.ColumnsOf(a).Len() == 0 {
		a, b = b, a
	}
	c, ok := a.(*plan.ColRef)
	if o, isCol := b.(*plan.ColRef); isCol && (!ok || !e.noted(c.ID) && e.noted(o.ID)) {
		c, ok, b = o, true, a // the column of a scan this estimate is about
	}
	if !ok {
		return eqFraction
	}
	if !e.otherRel(c.ID, b) {
		return eqFraction
	}
	d := e.domain(c.ID)
	if o, ok := b.(*plan.ColRef); ok && d > 0 {
		d = math.Max(d, e.domain(o.ID))
	}
	if d > 0 {
		return 1 / d
	}
	return eqFraction
}

// noted says whether id is a column of a scan the estimator noted.
func (e *estimator) noted(id plan.ColumnID) bool {
	_, ok := e.base[id]
	return ok
}

// otherRel says whether b reads no column of the scan column id comes
// from: a constant, or columns of other relations (an enclosing query's
// columns are of no scan the estimator noted). A column of no noted
// scan (a computed column) is another relation only when it is not id's
// own computation, which the estimator cannot tell: b then reads id's
// relation as far as it knows, unless id itself is of no noted scan.
func (e *estimator) otherRel(id plan.ColumnID, b plan.Scalar) bool {
	own, ok := e.base[id]
	if !ok {
		return plan.ColumnsOf(b).Len() == 0
	}
	other := true
	plan.Walk(b, func(y plan.Scalar) bool {
		if r, isCol := y.(*plan.ColRef); isCol {
			if bc, noted := e.base[r.ID]; noted && bc.scan == own.scan {
				other = false
			}
		}
		return other
	})
	return other
}

// joinRows estimates the rows of an inner join of l rows (columns lc)
// and r rows (columns rc) on conjuncts on. Each equality between a
// column of each side keeps 1/max(domains) of the pairs, equalities that
// cover a table's whole primary key 1/its rows (a key–foreign key join
// gives the foreign key side's rows, scaled by the key side's filters);
// the most selective of these counts (they are rarely independent). A
// one-column key decides an equality's domain (a foreign key's value
// range can be wider than its distinct values); an equality whose
// domains are unknown pairs each row of the larger side with one of the
// smaller. Other conditions keep a fixed fraction.
func (e *estimator) joinRows(l, r float64, lc, rc plan.ColSet, on []plan.Scalar) float64 {
	best := 1.0
	other := 1.0
	var lkeys, rkeys []plan.ColumnID
	for _, p := range on {
		lcol, rcol, ok := equiColumns(p, lc, rc)
		if !ok {
			cols := plan.ColumnsOf(p)
			if cols.Intersects(lc) && cols.Intersects(rc) {
				other *= e.sel1(p)
			} else {
				other *= e.selectivity(p)
			}
			continue
		}
		lkeys, rkeys = append(lkeys, lcol), append(rkeys, rcol)
		d := math.Max(e.keyDomain(lcol), e.keyDomain(rcol)) // a key decides
		if d == 0 {
			d = math.Max(e.domain(lcol), e.domain(rcol))
		}
		if d == 0 {
			d = math.Min(l, r)
		}
		best = math.Min(best, 1/math.Max(d, 1))
	}
	for _, keys := range [][]plan.ColumnID{lkeys, rkeys} {
		if n := e.coveredKey(keys); n > 0 {
			best = math.Min(best, 1/n)
		}
	}
	return math.Max(l*r*best*other, 1)
}

// equiColumns reports whether p is colA = colB with one column on each
// side, returning the left side's and the right side's.
func equiColumns(p plan.Scalar, lc, rc plan.ColSet) (l, r plan.ColumnID, ok bool) {
	o, isOp := p.(*plan.Op)
	if !isOp || o.Op != "=" || len(o.Args) != 2 {
		return 0, 0, false
	}
	a, aok := o.Args[0].(*plan.ColRef)
	b, bok := o.Args[1].(*plan.ColRef)
	if !aok || !bok {
		return 0, 0, false
	}
	switch {
	case lc.Has(a.ID) && rc.Has(b.ID):
		return a.ID, b.ID, true
	case lc.Has(b.ID) && rc.Has(a.ID):
		return b.ID, a.ID, true
	}
	return 0, 0, false
}

// coveredKey is the row count of the largest table whose whole primary
// key is among cols (columns of one scan of it), 0 when none is.
func (e *estimator) coveredKey(cols []plan.ColumnID) float64 {
	n := 0.0
	byScan := map[*plan.Scan]map[int]bool{}
	for _, id := range cols {
		b, ok := e.base[id]
		if !ok {
			continue
		}
		if byScan[b.scan] == nil {
			byScan[b.scan] = map[int]bool{}
		}
		byScan[b.scan][b.ord] = true
	}
	for s, ords := range byScan {
		t := s.Table
		if len(t.Key) == 0 {
			continue
		}
		all := true
		for _, k := range t.Key {
			all = all && ords[k]
		}
		if all {
			n = math.Max(n, tableRows(t))
		}
	}
	return n
}
