package opt

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// keyRanges gives every scan with a filter the primary-key range its
// conjuncts bound: equalities on the leading key columns, then a range
// (>, >=, <, <=) on the next, each against a value that does not depend
// on the scanned row (a constant, a parameter, an outer reference) and of
// the key column's own type (cross-type comparisons keep their
// semantics). The conjuncts stay in the filter: the range only narrows
// the rows read (snapshot.Table.Pages, a point get when every key column
// is equal).
func keyRanges(rel plan.Rel) plan.Rel {
	if s, ok := rel.(*plan.Scan); ok {
		if s.Filter == nil || len(s.Table.Key) == 0 {
			return s
		}
		c := *s
		c.Key = keyRange(s)
		return &c
	}
	return rebuild(rel, keyRanges)
}

// keyRange is the key range of s's filter (nil: none).
func keyRange(s *plan.Scan) *plan.KeyRange {
	own := plan.SetOf(s.Cols)
	colOf := map[plan.ColumnID]int{} // scan column → table column
	for i, id := range s.Cols {
		colOf[id] = s.Ords[i]
	}
	// bound finds conjuncts `keycol op value` for table column ord.
	type bound struct {
		op string
		v  plan.Scalar
	}
	bounds := func(ord int) []bound {
		var out []bound
		for _, p := range plan.Conjuncts(s.Filter) {
			o, ok := p.(*plan.Op)
			if !ok || len(o.Args) != 2 || !isRangeOp(o.Op) {
				continue
			}
			for i, flip := range []bool{false, true} {
				c, ok := o.Args[i].(*plan.ColRef)
				v := o.Args[1-i]
				if !ok || colOf[c.ID] != ord || !own.Has(c.ID) || plan.ColumnsOf(v).Intersects(own) {
					continue
				}
				if o.Op != "=" && types.IsUserOID(c.T.OID) {
					continue // an enum key is stored in its labels' text order, not its sort order (plan enum.go)
				}
				if v, ok = boundOf(v, c.T); !ok {
					continue
				}
				op := o.Op
				if flip {
					op = flipOp(op)
				}
				out = append(out, bound{op, v})
			}
		}
		return out
	}
	kr := &plan.KeyRange{}
	for _, ord := range s.Table.Key {
		bs := bounds(ord)
		eq := false
		for _, b := range bs {
			if b.op == "=" {
				kr.Eq, eq = append(kr.Eq, b.v), true
				break
			}
		}
		if eq {
			continue
		}
		for _, b := range bs {
			switch b.op {
			case ">", ">=":
				if kr.Lo == nil {
					kr.Lo, kr.LoIncl = b.v, b.op == ">="
				}
			case "<", "<=":
				if kr.Hi == nil {
					kr.Hi, kr.HiIncl = b.v, b.op == "<="
				}
			}
		}
		break
	}
	if len(kr.Eq) == 0 && kr.Lo == nil && kr.Hi == nil {
		return nil
	}
	return kr
}

// boundOf is v as a bound of a key column of type t: v itself when of
// type t, v cast to t when that widens one integer type to another (an
// int4 literal against a bigint key, `id = 5`: PostgreSQL's int84eq
// compares the same values; the cast cannot fail) or relabels text as
// varchar (`varchar_key < $1` compares as text; the cast keeps every
// character: no typmod), else not a bound (the filter decides).
func boundOf(v plan.Scalar, t plan.Type) (plan.Scalar, bool) {
	from := v.Type().OID
	if from == t.OID {
		return v, true
	}
	if from == plan.Text && t.OID == plan.Varchar {
		return &plan.Cast{Arg: v, T: plan.T(plan.Varchar)}, true
	}
	rank := map[plan.OID]int{plan.Int2: 1, plan.Int4: 2, plan.Int8: 3}
	if rank[from] == 0 || rank[t.OID] <= rank[from] {
		return nil, false
	}
	return &plan.Cast{Arg: v, T: t}, true
}

func isRangeOp(op string) bool {
	return op == "=" || op == "<" || op == "<=" || op == ">" || op == ">="
}

// flipOp is op with its operands swapped (v op col → col op' v).
func flipOp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// rebuild is rel with fn applied to each input.
func rebuild(rel plan.Rel, fn func(plan.Rel) plan.Rel) plan.Rel {
	switch x := rel.(type) {
	case *plan.Filter:
		return &plan.Filter{Input: fn(x.Input), Pred: x.Pred, Gate: x.Gate}
	case *plan.Project:
		return &plan.Project{Input: fn(x.Input), Cols: x.Cols, Exprs: x.Exprs}
	case *plan.Join:
		return &plan.Join{Kind: x.Kind, Left: fn(x.Left), Right: fn(x.Right), On: x.On}
	case *plan.Aggregate:
		c := *x
		c.Input = fn(x.Input)
		return &c
	case *plan.Sort:
		return &plan.Sort{Input: fn(x.Input), Keys: x.Keys}
	case *plan.Window:
		c := *x
		c.Input = fn(x.Input)
		return &c
	case *plan.Limit:
		return &plan.Limit{Input: fn(x.Input), Count: x.Count, Offset: x.Offset, Ties: x.Ties}
	case *plan.Distinct:
		return &plan.Distinct{Input: fn(x.Input), On: x.On}
	case *plan.SetOp:
		c := *x
		c.Left, c.Right = fn(x.Left), fn(x.Right)
		return &c
	case *plan.LateralJoin:
		// Only the left side: the right one reads the left row's
		// values and is optimized as its own query (mapExprs).
		c := *x
		c.Left = fn(x.Left)
		return &c
	case *plan.With:
		c := &plan.With{CTEs: x.CTEs, Body: fn(x.Body)}
		for _, cte := range x.CTEs {
			cte.Plan = fn(cte.Plan)
		}
		return c
	}
	return rel
}
