package builtin

import (
	"slices"

	"github.com/sidecar-dev/sidecar/types"
)

// A call with VARIADIC (f(…, VARIADIC arr)) passes an array as the
// variadic parameters: the function sees its elements as arguments. For
// the functions declared VARIADIC "any" PostgreSQL hands over the array
// and each function decides what a NULL array means (concat and
// concat_ws answer NULL, format takes no arguments, json[b]_build_array
// and json[b]_build_object answer NULL: extract_variadic_args); those are the
// functions a spread call is resolved for here (spreadNull), others are
// refused (0A000).

// spreadNull names the functions a call with VARIADIC may reach and
// what each answers for a NULL array: true, as if given no variadic
// arguments; false, NULL.
var spreadNull = map[string]bool{"concat": false, "concat_ws": false, "format": true,
	"json_build_array": false, "jsonb_build_array": false, "json_build_object": false, "jsonb_build_object": false}

// ResolveSpread resolves name(args…) called with VARIADIC: the last
// argument (an array of type args[len-1]) supplies the variadic
// arguments. The call's Params end with that array type; Eval spreads
// its elements.
func (r *Registry) ResolveSpread(name string, args []OID) (*Call, error) {
	if len(args) == 0 {
		return nil, errorf(CodeUndefinedFunction, "function %s does not exist", name)
	}
	last := args[len(args)-1]
	elem := types.ElemOf(last)
	if elem == 0 {
		if last == types.Unknown {
			return nil, unsupported("VARIADIC over an untyped literal")
		}
		return nil, &Error{Code: CodeDatatypeMismatch, Message: "VARIADIC argument must be an array"}
	}
	if _, ok := spreadNull[name]; !ok {
		if len(r.funcs[name]) == 0 && r.missing[name] {
			return nil, unsupported("the function %s", name)
		}
		return nil, unsupported("VARIADIC in a call of %s", name)
	}
	var f *Func
	for _, g := range r.funcs[name] {
		if g.Variadic && len(g.Args) == len(args) && g.Args[len(g.Args)-1] == Any {
			f = g
		}
	}
	if f == nil {
		return nil, &Error{Code: CodeUndefinedFunction, Message: "function " + name + " does not exist",
			Hint: "No function matches the given name and argument types. You might need to add explicit type casts."}
	}
	// The fixed arguments resolve as without VARIADIC: the same call
	// with one element in the array's place.
	one, err := resolveAmong([]*Func{f}, name, append(slices.Clone(args[:len(args)-1]), elem))
	if err != nil {
		return nil, err
	}
	one.Params[len(args)-1] = last
	one.Args = slices.Clone(args)
	one.Spread = true
	return one, nil
}

// spread is args with the last (the VARIADIC array) replaced by its
// elements, and params likewise; ok false when the call's answer is
// NULL (a NULL array where spreadNull says so).
func (c *Call) spread(args []types.Value, params []OID) ([]types.Value, []OID, bool, error) {
	n := len(args) - 1
	arr := args[n]
	elem := types.ElemOf(params[n])
	args, params = slices.Clone(args[:n]), slices.Clone(params[:n])
	if arr == nil {
		return args, params, spreadNull[c.Func.Name], nil
	}
	a, ok := arr.(*types.Array)
	if !ok {
		return nil, nil, false, unsupported("VARIADIC over this array value")
	}
	for _, v := range a.Elems {
		if _, nested := v.(*types.Array); nested {
			return nil, nil, false, unsupported("VARIADIC over a multidimensional array")
		}
		args, params = append(args, v), append(params, elem)
	}
	return args, params, true, nil
}
