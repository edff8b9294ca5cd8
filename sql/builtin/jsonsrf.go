package builtin

import (
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// JSONRows is the rows of the json set-returning function name over the
// non-NULL datum v: jsonb_each[_text] and json_each[_text] give (key,
// value) pairs, the others one value per row. jsonb objects come in
// jsonb's key order, json objects in the text's order with duplicate
// keys kept; the _text forms give strings unquoted and JSON null as
// NULL. Errors are PostgreSQL's (22023) for a value of the wrong shape.
func JSONRows(name string, v types.Value) ([][]types.Value, error) {
	t := jsbOID
	if strings.HasPrefix(name, "json_") {
		t = jsOID
	}
	n, err := parseJSON(str(v))
	if err != nil {
		return nil, err
	}
	asText := strings.HasSuffix(name, "_text")
	fn := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(name, "jsonb_"), "json_"), "_text")
	var rows [][]types.Value
	switch fn {
	case "each":
		if n.kind != jObject {
			if t == jsbOID {
				return nil, errorf(CodeInvalidParameter, "cannot call %s on a non-object", name)
			}
			return nil, errorf(CodeInvalidParameter, "cannot deconstruct %s as an object", shapeName(n))
		}
		for i, k := range n.keys {
			rows = append(rows, []types.Value{k, jsonResult(t, n.vals[i], asText)})
		}
	case "object_keys":
		if n.kind != jObject {
			return nil, errorf(CodeInvalidParameter, "cannot call %s on %s", name, shapeName(n))
		}
		for _, k := range n.keys {
			rows = append(rows, []types.Value{k})
		}
	case "array_elements":
		switch {
		case n.kind == jObject:
			return nil, errorf(CodeInvalidParameter, "cannot extract elements from an object")
		case n.kind != jArray:
			return nil, errorf(CodeInvalidParameter, "cannot extract elements from a scalar")
		}
		for _, e := range n.vals {
			rows = append(rows, []types.Value{jsonResult(t, e, asText)})
		}
	default:
		return nil, errorf("XX000", "no json set-returning function %s", name)
	}
	return rows, nil
}

// shapeName is "an array" or "a scalar", as the errors name a value.
func shapeName(n *jnode) string {
	if n.kind == jArray {
		return "an array"
	}
	return "a scalar"
}
