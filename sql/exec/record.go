package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Record values (plan/record.go): ROW(…) builds a types.Record per row,
// (r).fN reads a field, a RowCompare compares field pairs left to
// right; comparisons of whole records are record_cmp (comparer).

// compileRecord compiles the record nodes (ok=false: s is not one).
func (c *compiler) compileRecord(s plan.Scalar) (vexpr, bool, error) {
	switch x := s.(type) {
	case *plan.Row:
		f, err := c.row(x, false)
		return f, true, err
	case *plan.FieldSelect:
		f, err := c.fieldSelect(x)
		return f, true, err
	case *plan.RowCompare:
		f, err := c.rowCompare(x)
		return f, true, err
	}
	return nil, false, nil
}

// row builds the record values of ROW(…). A field of type unknown (an
// untyped literal) is refused unless the row is only tested for NULL
// (anyUnknown): PostgreSQL fails comparing, hashing or sorting such a
// record ("could not identify a comparison function for type unknown")
// where rows meet, an error sidecar's sorts and hash tables cannot raise.
func (c *compiler) row(x *plan.Row, anyUnknown bool) (vexpr, error) {
	args := make([]vexpr, len(x.Args))
	oids := make([]types.OID, len(x.Args))
	for i, a := range x.Args {
		if a.Type().OID == plan.Unknown && !anyUnknown {
			return nil, unsupported("a row holding an untyped literal (cast it: ROW('a'::text))")
		}
		f, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		args[i] = f
		oids[i] = a.Type().OID // an untyped literal stays unknown (prints as text, compares with nothing)
	}
	names := x.Names
	scr := make([]valScratch, len(args))
	return func(b *Batch, sel []int, out []types.Value) error {
		vals := make([][]types.Value, len(args))
		for k, f := range args {
			vals[k] = scr[k].get(b.N)
			if err := f(b, sel, vals[k]); err != nil {
				return err
			}
		}
		for _, i := range sel {
			r := &types.Record{Types: oids, Names: names, Fields: make([]types.Value, len(args))}
			for k := range args {
				r.Fields[k] = vals[k][i]
			}
			out[i] = r
		}
		return nil
	}, nil
}

func (c *compiler) fieldSelect(x *plan.FieldSelect) (vexpr, error) {
	arg, err := c.compile(x.Arg)
	if err != nil {
		return nil, err
	}
	k := x.Index
	return func(b *Batch, sel []int, out []types.Value) error {
		if err := arg(b, sel, out); err != nil {
			return err
		}
		for _, i := range sel {
			if r, ok := out[i].(*types.Record); ok && k < len(r.Fields) {
				out[i] = r.Fields[k]
			} else {
				out[i] = nil
			}
		}
		return nil
	}, nil
}

// rowCompare is ExecRowCompare's loop: the first pair that is not equal
// decides (a NULL in it: NULL); all equal is true for <= and >=.
func (c *compiler) rowCompare(x *plan.RowCompare) (vexpr, error) {
	n := len(x.Pairs)
	ls, rs := make([]vexpr, n), make([]vexpr, n)
	cmps := make([]func(a, b types.Value) (int, error), n)
	for k, p := range x.Pairs {
		var err error
		if ls[k], rs[k], err = c.two(p.Args[0], p.Args[1]); err != nil {
			return nil, err
		}
		if cmps[k], err = c.comparer(p.Args[0].Type(), p.Args[1].Type()); err != nil {
			return nil, err
		}
	}
	op := x.Op
	lscr, rscr := make([]valScratch, n), make([]valScratch, n)
	return func(b *Batch, sel []int, out []types.Value) error {
		lv, rv := make([][]types.Value, n), make([][]types.Value, n)
		for k := range x.Pairs {
			lv[k], rv[k] = lscr[k].get(b.N), rscr[k].get(b.N)
			if err := ls[k](b, sel, lv[k]); err != nil {
				return err
			}
			if err := rs[k](b, sel, rv[k]); err != nil {
				return err
			}
		}
		for _, i := range sel {
			var res types.Value = op == "<=" || op == ">="
			for k := 0; k < n; k++ {
				a, bb := lv[k][i], rv[k][i]
				if a == nil || bb == nil {
					res = nil
					break
				}
				d, err := cmps[k](a, bb)
				if err != nil {
					return err
				}
				if d != 0 {
					res = cmpResult(op, d)
					break
				}
			}
			out[i] = res
		}
		return nil
	}, nil
}

// recordIsNull is IS [NOT] NULL of a value: a record is NULL when every
// field is, NOT NULL when none is (ExecEvalRowNull).
func recordIsNull(v types.Value, not bool) bool {
	if r, ok := v.(*types.Record); ok {
		if not {
			return r.NoneNull()
		}
		return r.AllNull()
	}
	return (v == nil) != not
}

// recordComparer is record_cmp between two record values, failing as
// PostgreSQL does on dissimilar field types.
func recordComparer(a, b types.Value) (int, error) {
	x, ok1 := a.(*types.Record)
	y, ok2 := b.(*types.Record)
	if !ok1 || !ok2 {
		return 0, unsupported("comparing a record with a value of another type")
	}
	return types.CompareRecords(x, y)
}

// isNullArg compiles the operand of IS [NOT] NULL: a ROW(…) there may
// hold untyped literals.
func (c *compiler) isNullArg(s plan.Scalar) (vexpr, error) {
	if r, ok := s.(*plan.Row); ok {
		return c.row(r, true)
	}
	return c.compile(s)
}
