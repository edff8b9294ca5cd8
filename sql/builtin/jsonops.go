package builtin

import (
	"github.com/sidecar-dev/sidecar/types"
)

// jsonb's || and - (jsonb_concat, jsonb_delete), as PostgreSQL's
// jsonfuncs.c: the binder (sql/plan jsonops.go) calls them by name.

func (r *Registry) addJSONOps() {
	r.def("jsonb_concat", jsbOID, jsonbPair(jsonbConcat), jsbOID, jsbOID)
	r.def("jsonb_delete", jsbOID, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n, err := deletable(a[0])
		if err != nil || n == nil {
			return a[0], err
		}
		return jsonText(jsbOID, deleteKeys(n, []string{str(a[1])})), nil
	}, jsbOID, tx)
	r.def("jsonb_delete", jsbOID, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		// jsonb_delete_idx: an object fails before an empty container is
		// returned as it is ('{}'::jsonb - 1 is an error).
		if n, err := parseJSON(str(a[0])); err == nil && n.kind == jObject {
			return nil, errorf(CodeInvalidParameter, "cannot delete from object using integer index")
		}
		n, err := deletable(a[0])
		if err != nil || n == nil {
			return a[0], err
		}
		i := i64(a[1])
		if i < 0 {
			i += int64(len(n.vals))
		}
		if i < 0 || i >= int64(len(n.vals)) {
			return a[0], nil
		}
		out := &jnode{kind: jArray, vals: append(append([]*jnode(nil), n.vals[:i]...), n.vals[i+1:]...)}
		return jsonText(jsbOID, out), nil
	}, jsbOID, i4)
	r.def("jsonb_delete", jsbOID, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n, err := deletable(a[0])
		if err != nil || n == nil {
			return a[0], err
		}
		var keys []string
		for _, k := range a[1].(*types.Array).Elems {
			if k != nil {
				keys = append(keys, k.(string)) // NULL keys are skipped
			}
		}
		if len(keys) == 0 {
			return a[0], nil
		}
		return jsonText(jsbOID, deleteKeys(n, keys)), nil
	}, jsbOID, types.ArrayOf(tx))
}

// deletable is the container jsonb - deletes from: PostgreSQL's error
// for a scalar, nil (the value unchanged) for an empty container.
func deletable(v types.Value) (*jnode, error) {
	n, err := parseJSON(str(v))
	if err != nil {
		return nil, err
	}
	if n.isScalar() {
		return nil, errorf(CodeInvalidParameter, "cannot delete from scalar")
	}
	if len(n.vals) == 0 {
		return nil, nil
	}
	return n, nil
}

// deleteKeys drops an object's fields named in keys, or an array's
// string elements equal to one of them.
func deleteKeys(n *jnode, keys []string) *jnode {
	drop := map[string]bool{}
	for _, k := range keys {
		drop[k] = true
	}
	out := &jnode{kind: n.kind}
	for i, v := range n.vals {
		switch {
		case n.kind == jObject && drop[n.keys[i]]:
			continue
		case n.kind == jArray && v.kind == jString && drop[v.str]:
			continue
		}
		if n.kind == jObject {
			out.keys = append(out.keys, n.keys[i])
		}
		out.vals = append(out.vals, v)
	}
	return out
}

// jsonbConcat is jsonb || jsonb: two objects merge (the right's value
// winning a shared key); otherwise both sides are taken as arrays (a
// scalar or an object as a one-element array) and concatenated.
func jsonbConcat(a, b *jnode) *jnode {
	if a.kind == jObject && b.kind == jObject {
		return &jnode{kind: jObject, keys: append(append([]string(nil), a.keys...), b.keys...), vals: append(append([]*jnode(nil), a.vals...), b.vals...)}
	}
	elems := func(n *jnode) []*jnode {
		if n.kind == jArray {
			return n.vals
		}
		return []*jnode{n}
	}
	return &jnode{kind: jArray, vals: append(append([]*jnode(nil), elems(a)...), elems(b)...)}
}

func jsonbPair(f func(a, b *jnode) *jnode) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x, y, err := parseJSONPair(a) // json.go
		if err != nil {
			return nil, err
		}
		return jsonText(jsbOID, f(x, y)), nil
	}
}
