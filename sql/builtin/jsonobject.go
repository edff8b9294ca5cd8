package builtin

import "github.com/sidecar-dev/sidecar/types"

// codeArraySubscript is array_subscript_error (2202E).
const codeArraySubscript = "2202E"

// addJSONObject registers json_object and jsonb_object of text arrays
// as PostgreSQL's json.c/jsonb.c json_object, json_object_two_arg and
// their jsonb twins: one array of alternating keys and values, or a
// keys array and a values array; values are strings (NULL: null), a
// NULL key is 22004, an empty array '{}'. json keeps the pairs as given
// (`{"a" : "1", "b" : null}`), jsonb as a jsonb object (duplicate keys:
// the last wins; keys ordered by length, then bytes). The engine's
// arrays are one-dimensional (PostgreSQL's two-column form
// '{{a,1},{b,2}}' is refused where the array is read): its errors for
// arrays of more dimensions are not reached here.
func (r *Registry) addJSONObject() {
	textArr := types.ArrayOf(tx)
	for _, t := range []OID{jsOID, jsbOID} {
		t := t
		r.def(fnName(t, "object"), t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			elems := a[0].(*types.Array).Elems
			if len(elems)%2 != 0 {
				return nil, &Error{Code: codeArraySubscript, Message: "array must have even number of elements"}
			}
			var keys, vals []types.Value
			for i := 0; i < len(elems); i += 2 {
				keys, vals = append(keys, elems[i]), append(vals, elems[i+1])
			}
			return jsonObjectOf(t, keys, vals)
		}, textArr)
		r.def(fnName(t, "object"), t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			keys, vals := a[0].(*types.Array).Elems, a[1].(*types.Array).Elems
			if len(keys) == 0 && len(vals) == 0 {
				return jsonObjectOf(t, nil, nil)
			}
			if len(keys) == 0 || len(vals) == 0 {
				// One empty (no dimensions), the other not: PostgreSQL
				// compares the numbers of dimensions first.
				return nil, &Error{Code: codeArraySubscript, Message: "wrong number of array subscripts"}
			}
			if len(keys) != len(vals) {
				return nil, &Error{Code: codeArraySubscript, Message: "mismatched array dimensions"}
			}
			return jsonObjectOf(t, keys, vals)
		}, textArr, textArr)
	}
}

// jsonObjectOf is the json or jsonb object of the keys and values
// (strings; a NULL value is null, a NULL key 22004).
func jsonObjectOf(t OID, keys, vals []types.Value) (types.Value, error) {
	obj := &jnode{kind: jObject, keys: []string{}, vals: []*jnode{}}
	for i, k := range keys {
		if k == nil {
			return nil, &Error{Code: CodeNullNotAllowed, Message: "null value not allowed for object key"}
		}
		v := &jnode{kind: jNull}
		if vals[i] != nil {
			v = &jnode{kind: jString, str: str(vals[i])}
		}
		obj.keys, obj.vals = append(obj.keys, str(k)), append(obj.vals, v)
	}
	if t == jsOID {
		return jsonBuiltText(obj), nil
	}
	return jsonText(t, obj), nil
}
