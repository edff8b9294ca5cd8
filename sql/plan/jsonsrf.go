package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/types"
)

// The json set-returning functions: jsonb_each[_text], json_each[_text]
// (two columns, key and value), jsonb_array_elements[_text],
// json_array_elements[_text] (one column named value) and
// jsonb_object_keys, json_object_keys (one column named by the
// function). Their rows are the library's (builtin.JSONRows).

// jsonSRFs are the functions, with their argument type.
var jsonSRFs = map[string]OID{
	"jsonb_each": JSONB, "jsonb_each_text": JSONB, "json_each": JSON, "json_each_text": JSON,
	"jsonb_array_elements": JSONB, "jsonb_array_elements_text": JSONB, "json_array_elements": JSON, "json_array_elements_text": JSON,
	"jsonb_object_keys": JSONB, "json_object_keys": JSON,
}

func init() {
	for n := range jsonSRFs {
		srfNames[n] = true
	}
	srfNames["jsonb_path_query"] = true
}

// jsonPathQueryArgs are jsonb_path_query's parameters: target, path,
// vars, silent (the last two optional).
var jsonPathQueryArgs = []OID{JSONB, types.JSONPath, JSONB, Bool}

// jsonSRFType types fs when it is a json set-returning function (found):
// its argument coerced to the function's type, its columns' names (nil:
// the one column is named by the function or the alias) and types.
func jsonSRFType(fs *FuncScan, loc int32) (names []string, ts []Type, found bool, err error) {
	if fs.Name == "jsonb_path_query" { // one jsonb column, named by the function
		if len(fs.Args) < 2 || len(fs.Args) > 4 {
			return nil, nil, true, errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", fs.Name, len(fs.Args)).at(loc)
		}
		for i := range fs.Args {
			want := jsonPathQueryArgs[i]
			fs.Args[i] = coerce(fs.Args[i], T(want))
			if t := fs.Args[i].Type(); t.OID != want {
				return nil, nil, true, errorf(CodeUndefinedFunction, "function %s(…, %s, …) does not exist", fs.Name, t).at(loc)
			}
		}
		return nil, []Type{T(JSONB)}, true, nil
	}
	arg, ok := jsonSRFs[fs.Name]
	if !ok {
		return nil, nil, false, nil
	}
	if len(fs.Args) != 1 {
		return nil, nil, true, errorf(CodeUndefinedFunction, "function %s with %d arguments does not exist", fs.Name, len(fs.Args)).at(loc)
	}
	fs.Args[0] = coerce(fs.Args[0], T(arg))
	if t := fs.Args[0].Type(); t.OID != arg {
		return nil, nil, true, errorf(CodeUndefinedFunction, "function %s(%s) does not exist", fs.Name, t).at(loc)
	}
	val := T(arg)
	if len(fs.Name) > 5 && fs.Name[len(fs.Name)-5:] == "_text" {
		val = T(Text)
	}
	switch fs.Name {
	case "jsonb_each", "jsonb_each_text", "json_each", "json_each_text":
		return []string{"key", "value"}, []Type{T(Text), val}, true, nil
	case "jsonb_object_keys", "json_object_keys":
		return nil, []Type{T(Text)}, true, nil
	}
	return []string{"value"}, []Type{val}, true, nil
}

// JSONSRFFields are the field names and types of the records a json
// set-returning function of several columns gives in a select list
// (jsonb_each(j) is a record (key, value)); nil for the others.
func JSONSRFFields(name string) ([]string, []OID) {
	arg, ok := jsonSRFs[name]
	if !ok {
		return nil, nil
	}
	fs := &FuncScan{Name: name, Args: []Scalar{&Const{T: T(arg), Null: true}}}
	names, ts, _, err := jsonSRFType(fs, -1)
	if err != nil || len(ts) < 2 {
		return nil, nil
	}
	oids := make([]OID, len(ts))
	for i, t := range ts {
		oids[i] = t.OID
	}
	return names, oids
}

// srfField binds (f(args)).field for a json set-returning function f
// of several columns in a select list: the record's field (found false:
// in is not such a selection).
func (b *binder) srfField(in *pg.A_Indirection, sc *scope, ctx *exprCtx) (Scalar, bool, error) {
	fc := in.Arg.GetFuncCall()
	if fc == nil || len(in.Indirection) != 1 || in.Indirection[0].GetString_() == nil || len(fc.Funcname) > 2 {
		return nil, false, nil
	}
	name := strings.ToLower(opName(fc.Funcname))
	names, oids := JSONSRFFields(name)
	if names == nil {
		return nil, false, nil
	}
	field := in.Indirection[0].GetString_().Sval
	rec, err := b.expr(in.Arg, sc, ctx)
	if err != nil {
		return nil, true, err
	}
	for i, n := range names {
		if n == field {
			return &FieldSelect{Arg: rec, Index: i, T: T(oids[i])}, true, nil
		}
	}
	return nil, true, errorf(CodeUndefinedColumn, "column \"%s\" not found in data type record", field).at(fc.Location)
}
