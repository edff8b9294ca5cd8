package builtin

import "github.com/sidecar-dev/sidecar/types"

// num_nulls and num_nonnulls (VARIADIC "any"): how many arguments are
// NULL or not. A call with VARIADIC array is refused (variadic.go).
func (r *Registry) addNumNulls() {
	count := func(nulls bool) Impl {
		return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			n := int64(0)
			for _, v := range a {
				if (v == nil) == nulls {
					n++
				}
			}
			return n, nil
		}
	}
	r.def("num_nulls", types.Int4, count(true), Any).variadic().nonStrict()
	r.def("num_nonnulls", types.Int4, count(false), Any).variadic().nonStrict()
}
