package builtin

import (
	"github.com/sidecar-dev/sidecar/types"
)

// addFactorial registers factorial(bigint) → numeric as PostgreSQL's
// numeric_fac (14 on): a negative argument is 22003, 0! and 1! are 1,
// past 32177! (which numeric cannot hold) 22003 before computing. The
// postfix ! operator went in PostgreSQL 14, so only the function is
// left.
func (r *Registry) addFactorial() {
	r.def("factorial", nm, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n := a[0].(int64)
		if n < 0 {
			return nil, errorf(CodeOutOfRange, "factorial of a negative number is undefined")
		}
		if n > 32177 {
			return nil, errorf(CodeOutOfRange, "value overflows numeric format")
		}
		res := &types.Decimal{}
		if n <= 1 {
			res.V.SetInt64(1)
			return res, nil
		}
		res.V.MulRange(1, n)
		return res, nil
	}, i8)
}
