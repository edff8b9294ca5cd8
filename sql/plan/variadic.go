package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// VARIADIC in a call: f(a, VARIADIC arr) passes arr's elements as the
// variadic arguments. The binder expands it into the call with those
// elements as arguments, which is the same call for the functions of
// variadicExpand when the array's elements are known at bind time: an
// ARRAY[…] constructor (cast to another array type or not: each element
// cast), '{}' (no argument) or NULL (variadicNull says what the call
// is). Other arrays (a column, a literal with elements) and other
// functions (a VARIADIC array's NULL or empty array mean something else
// to them) are refused.

// variadicExpand are the functions whose VARIADIC array's elements can
// be passed as arguments, by the number of arguments before the array
// (PostgreSQL resolves no other number: concat('x', VARIADIC a) does
// not exist): their variadic parameter is "any", so an element is an
// argument of the array's element type.
var variadicExpand = map[string]int{"concat": 0, "concat_ws": 1, "format": 1}

// variadicArgs binds f's arguments with its VARIADIC array expanded;
// value is the call's value when the array decides it (concat of NULL
// is NULL, of '{}' the empty string).
func (b *binder) variadicArgs(name string, f *pg.FuncCall, sc *scope, ctx *exprCtx) (args []Scalar, value Scalar, err error) {
	fixed, ok := variadicExpand[name]
	if !ok {
		return nil, nil, unsupported("VARIADIC in a call of "+name, f.Location)
	}
	if len(f.Args) != fixed+1 {
		return nil, nil, errorf(CodeUndefinedFunction, "function %s with VARIADIC after %d arguments does not exist", name, len(f.Args)-1).at(f.Location)
	}
	for _, a := range f.Args {
		e, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, e)
	}
	last := args[len(args)-1]
	args = args[:len(args)-1]
	if !IsArray(last.Type()) {
		return nil, nil, errorf(CodeDatatypeMismatch, "VARIADIC argument must be an array").at(f.Location)
	}
	switch x := last.(type) {
	case *Func:
		if x.Name == "array" {
			return append(args, x.Args...), nil, nil
		}
	case *Cast:
		if arr, ok := x.Arg.(*Func); ok && arr.Name == "array" && IsArray(arr.T) {
			elem := ElemType(x.T)
			for _, e := range arr.Args {
				args = append(args, cast(e, elem))
			}
			return args, nil, nil
		}
	case *Const:
		switch {
		case x.Null && name != "format":
			return nil, &Const{T: T(Text), Null: true}, nil
		case x.Null, x.Text == "{}" && name != "concat":
			return args, nil, nil // format(f, VARIADIC NULL) formats no argument
		case x.Text == "{}":
			return nil, &Const{T: T(Text), Text: ""}, nil
		}
	}
	return nil, nil, unsupported("VARIADIC with an array other than ARRAY[…], '{}' or NULL", f.Location)
}
