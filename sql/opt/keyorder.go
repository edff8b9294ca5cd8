package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// keyOrder is top-N by key order (issue 22): a LIMIT over an ORDER BY
// that is the order of a scanned table's primary key (replica identity)
// — its columns in key order, all ascending or all descending, the
// leading ones an equality of the key range fixes allowed to be left
// out — drops the Sort and marks the Scan to hand its rows in that order
// (plan.Scan.Order): the executor reads the rows in key order (forward
// or backward) and stops once the LIMIT has its rows, as PostgreSQL's
// Index Scan [Backward] under a Limit does, instead of reading and
// sorting every row.
//
// Only where that order is PostgreSQL's ORDER BY order: key columns of
// integer, numeric, date, bool, timestamp and timestamptz types, whose
// key encoding orders as the type does (rowenc: numeric by value,
// -Infinity < … < Infinity < NaN; timestamps by their fields, the
// mirror's timestamptz all in UTC), and text or varchar only under a
// byte-order collation (ColumnDef.ByteOrder: the key is in byte order,
// PostgreSQL's order under C, POSIX, ucs_basic only; an explicit COLLATE
// in the ORDER BY is a computed sort key and keeps the Sort); never
// floats. The key is unique and not NULL, so the order is total: which
// rows the LIMIT keeps does not depend on ties, and NULLS FIRST/LAST do
// not matter.
//
// Only where nothing evaluated on the rows below the LIMIT can fail
// (columns, constants, parameters, comparisons, widening casts and casts
// to text, AND/OR/NOT, IS NULL, CASE and coalesce of such, and the
// functions the library's facts say cannot fail: builtin.Call.CannotFail,
// e.g. to_char of a timestamp with a constant format, AT TIME ZONE
// 'UTC'): PostgreSQL may read every row there (Seq Scan and Sort) and
// fail on one the ordered scan never reads, so a statement that could
// fail keeps the Sort (the executor then reads every row, and refuses
// such an error as not settled, limiterr.go).
func keyOrder(rel plan.Rel) plan.Rel {
	if l, ok := rel.(*plan.Limit); ok && len(l.Ties) == 0 {
		if in, ok := keyOrdered(l.Input); ok {
			return &plan.Limit{Input: in, Count: l.Count, Offset: l.Offset}
		}
	}
	return rebuild(rel, keyOrder)
}

// keyOrdered is rel (a LIMIT's input: projections over a Sort) without
// the Sort, its scan reading in key order; ok=false when the Sort is not
// the key order.
func keyOrdered(rel plan.Rel) (plan.Rel, bool) {
	switch x := rel.(type) {
	case *plan.Project:
		if !infallible(x.Exprs...) {
			return nil, false
		}
		in, ok := keyOrdered(x.Input)
		if !ok {
			return nil, false
		}
		return &plan.Project{Input: in, Cols: x.Cols, Exprs: x.Exprs}, true
	case *plan.Sort:
		s := scanUnder(x.Input)
		if s == nil {
			return nil, false
		}
		order, ok := sortIsKeyOrder(x.Keys, s)
		if !ok {
			return nil, false
		}
		return withScanOrder(x.Input, order), true
	}
	return nil, false
}

// scanUnder is the scan under filters and projections none of whose
// expressions can fail (nil: none, or another operator).
func scanUnder(rel plan.Rel) *plan.Scan {
	switch x := rel.(type) {
	case *plan.Scan:
		if x.Table == nil || len(x.Table.Key) == 0 || x.Table.Schema == "pg_catalog" || x.Table.Schema == "information_schema" {
			return nil
		}
		if x.Filter != nil && !infallible(x.Filter) {
			return nil
		}
		return x
	case *plan.Filter:
		if !x.Gate && !infallible(x.Pred) {
			return nil
		}
		return scanUnder(x.Input)
	case *plan.Project:
		if !infallible(x.Exprs...) {
			return nil
		}
		return scanUnder(x.Input)
	}
	return nil
}

// sortIsKeyOrder says whether keys order s's rows as its table's key
// does, and in which direction.
func sortIsKeyOrder(keys []plan.SortKey, s *plan.Scan) (plan.KeyOrder, bool) {
	ordOf := map[plan.ColumnID]int{}
	for i, id := range s.Cols {
		ordOf[id] = s.Ords[i]
	}
	order := plan.NoKeyOrder
	k := 0
	for i, ord := range s.Table.Key {
		fixed := s.Key != nil && i < len(s.Key.Eq)
		if k < len(keys) {
			if o, ok := ordOf[keys[k].Col]; ok && o == ord {
				k++
				if fixed {
					continue // one value: either direction
				}
				d := plan.KeyAsc
				if keys[k-1].Desc {
					d = plan.KeyDesc
				}
				if order != plan.NoKeyOrder && order != d || !keyOrderColumn(s.Table.Columns[ord]) {
					return plan.NoKeyOrder, false
				}
				order = d
				continue
			}
		}
		if !fixed {
			return plan.NoKeyOrder, false // the ORDER BY leaves this key column's order open
		}
	}
	if order == plan.NoKeyOrder {
		order = plan.KeyAsc // every key column fixed: one row at most
	}
	return order, true // keys after the whole key order nothing more
}

// keyOrderColumn says whether the key encoding of column c orders as
// PostgreSQL's ORDER BY does (rowenc's kinds; text only in byte order).
func keyOrderColumn(c plan.ColumnDef) bool {
	switch c.Type.OID {
	case plan.Int2, plan.Int4, plan.Int8, plan.Numeric, plan.Date, plan.Bool, plan.Timestamp, plan.Timestamptz:
		return true
	case plan.Text, plan.Varchar:
		return c.ByteOrder
	}
	return false
}

// withScanOrder is rel (filters and projections over a scan) with the
// scan reading in order.
func withScanOrder(rel plan.Rel, order plan.KeyOrder) plan.Rel {
	if s, ok := rel.(*plan.Scan); ok {
		c := *s
		c.Order = order
		return &c
	}
	return rebuild(rel, func(in plan.Rel) plan.Rel { return withScanOrder(in, order) })
}

// infallible says whether evaluating every expression of es on any row
// raises no error: columns, constants, parameters, comparisons of two
// values of one type (or two integer types), casts widening an integer
// or printing a value as text, the negation of a numeric or float,
// AND/OR/NOT, IS [NOT] NULL, CASE and coalesce of such, and calls the
// library's facts say cannot fail with these arguments (nofail.go).
func infallible(es ...plan.Scalar) bool {
	for _, e := range es {
		if e != nil && !infallible1(e) {
			return false
		}
	}
	return true
}

func infallible1(e plan.Scalar) bool {
	switch x := e.(type) {
	case *plan.ColRef, *plan.Const, *plan.Param:
		return true
	case *plan.BoolOp:
		return infallible(x.Args...)
	case *plan.IsNull:
		return infallible1(x.Arg)
	case *plan.Cast:
		from, to := x.Arg.Type().OID, x.T.OID
		return infallible1(x.Arg) && (from == to && x.T.Mod < 0 || intRank(from) > 0 && intRank(from) <= intRank(to) ||
			intRank(from) > 0 && to == plan.Numeric && x.T.Mod < 0 || printsAsText(from, x.T))
	case *plan.Case:
		for _, w := range x.Whens {
			if !infallible(w.Cond, w.Result) {
				return false
			}
		}
		return infallible(x.Else)
	case *plan.Func:
		return infallibleCall(x)
	case *plan.Op:
		if len(x.Args) == 1 && x.Op == "-" {
			switch x.Args[0].Type().OID {
			case plan.Numeric, plan.Float4, plan.Float8: // numeric_uminus, float[48]um flip the sign
				return infallible1(x.Args[0])
			}
			return false
		}
		if len(x.Args) != 2 || !isRangeOp(x.Op) && x.Op != "<>" {
			return false
		}
		a, b := x.Args[0].Type().OID, x.Args[1].Type().OID
		return (a == b && comparable(a) || intRank(a) > 0 && intRank(b) > 0 || textual(a) && textual(b)) && infallible(x.Args...)
	}
	return false
}

// intRank orders the integer types by width (0: not one).
func intRank(oid plan.OID) int {
	switch oid {
	case plan.Int2:
		return 1
	case plan.Int4:
		return 2
	case plan.Int8:
		return 3
	}
	return 0
}

// comparable: types whose comparison operators raise no error.
func comparable(oid plan.OID) bool {
	switch oid {
	case plan.Int2, plan.Int4, plan.Int8, plan.Numeric, plan.Float8, plan.Float4, plan.Date,
		plan.Timestamp, plan.Timestamptz, plan.Bool, plan.Text, plan.Varchar, plan.UUID:
		return true
	}
	return false
}
