package plan

import "github.com/sidecar-dev/sidecar/sql/builtin"

// The select list and ORDER BY of a level with windows read the columns
// the windows' Project computed (their arguments, PARTITION BY and ORDER
// BY expressions) where they hold the same expression, as PostgreSQL's
// target list shares one entry between a select-list item and a window
// clause equal to it (findTargetlistEntrySQL99). The value is the same
// either way; what changes is what the plan reads above the windows:
// `SELECT ten/4, sum(x) OVER (ORDER BY ten/4 ROWS …)` then reads ten/4,
// not ten, so peers that differ only in ten are alike to everything
// above, and the executor's check of whether the peers' order can
// change the answer (sql/exec winneed.go) need not refuse it.
//
// An expression calling a volatile function or holding a subquery is
// left alone: it is computed where it stands.

// sharer is the mapping of an expression onto the columns byText names
// (FormatScalar of each computed expression): the whole expression
// first, else its parts.
func (b *binder) sharer(byText map[string]ColumnID) func(Scalar) Scalar {
	one := func(x Scalar) Scalar {
		if _, ok := x.(*ColRef); ok || !shareable(x) {
			return x
		}
		if id, ok := byText[FormatScalar(x, b.md)]; ok && b.md.Column(id).Type == x.Type() {
			return &ColRef{ID: id, T: x.Type()}
		}
		return x
	}
	return func(e Scalar) Scalar {
		if e == nil || len(byText) == 0 {
			return e
		}
		if s := one(e); s != e {
			return s
		}
		if !shareable(e) {
			return e
		}
		return Map(e, one)
	}
}

// shareable says whether e may be replaced by a column computing the
// same expression for the same row: no volatile call, no subquery.
func shareable(e Scalar) bool {
	ok := true
	Walk(e, func(x Scalar) bool {
		switch y := x.(type) {
		case *Subquery:
			ok = false
		case *Func:
			if y.Call != nil && y.Call.Func.Volatility == builtin.Volatile {
				ok = false
			}
		}
		return ok
	})
	return ok
}
