package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// extFunction compiles a function the catalog supplied (plan.ExtFunc):
// strict unless it says NullOK.
func (c *compiler) extFunction(x *plan.Func) (vexpr, error) {
	args, err := c.compileArgs(x.Args)
	if err != nil {
		return nil, err
	}
	ext := x.Ext
	return func(b *Batch, sel []int, out []types.Value) error {
		vecs, err := evalArgs(args, b, sel)
		if err != nil {
			return err
		}
		row := make([]types.Value, len(args))
	rows:
		for _, i := range sel {
			for k := range args {
				if row[k] = vecs[k][i]; row[k] == nil && !ext.NullOK {
					out[i] = nil
					continue rows
				}
			}
			v, err := ext.Eval(row)
			if err != nil {
				return err
			}
			out[i] = v
		}
		return nil
	}, nil
}

// compileArgs compiles a call's arguments.
func (c *compiler) compileArgs(xs []plan.Scalar) ([]vexpr, error) {
	args := make([]vexpr, len(xs))
	for i, a := range xs {
		var err error
		if args[i], err = c.compile(a); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// evalArgs evaluates every argument over the selected rows of b, one
// vector per argument (a call's arguments are all evaluated, unlike
// CASE's or COALESCE's).
func evalArgs(args []vexpr, b *Batch, sel []int) ([][]types.Value, error) {
	vecs := make([][]types.Value, len(args))
	for k, a := range args {
		vecs[k] = make([]types.Value, b.N)
		if err := a(b, sel, vecs[k]); err != nil {
			return nil, err
		}
	}
	return vecs, nil
}
