package builtin

import (
	"math"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// jsonb_set, jsonb_insert and #- (jsonb_delete_path): PostgreSQL's
// setPath (jsonfuncs.c) over the parsed tree: a path step is an object
// key or, in an array, an integer index (negative from the end); only
// the last step creates, inserts or deletes, earlier steps must exist.

type pathOp int

const (
	pathCreate pathOp = 1 << iota
	pathDelete
	pathReplace
	pathInsertBefore
	pathInsertAfter

	pathCreateOrInsert = pathCreate | pathInsertBefore | pathInsertAfter
)

func (r *Registry) addJSONSet() {
	textArr := types.ArrayOf(tx)
	set := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		create := true
		if len(a) > 3 {
			create = a[3].(bool)
		}
		op := pathReplace
		if create {
			op = pathCreate
		}
		return jsonbSetPath(a[0], a[1], a[2], op, "set", !create)
	}
	r.def("jsonb_set", jsbOID, set, jsbOID, textArr, jsbOID)
	r.def("jsonb_set", jsbOID, set, jsbOID, textArr, jsbOID, bo)
	insert := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		op := pathInsertBefore
		if len(a) > 3 && a[3].(bool) {
			op = pathInsertAfter
		}
		return jsonbSetPath(a[0], a[1], a[2], op, "set", false)
	}
	r.def("jsonb_insert", jsbOID, insert, jsbOID, textArr, jsbOID)
	r.def("jsonb_insert", jsbOID, insert, jsbOID, textArr, jsbOID, bo)
	r.def("jsonb_delete_path", jsbOID, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return jsonbSetPath(a[0], a[1], nil, pathDelete, "delete", true)
	}, jsbOID, textArr)
	r.ops["#-"] = []string{"jsonb_delete_path"}
}

// jsonbSetPath applies op at path to target (newval: the jsonb to put
// there; nil for a delete). emptyKeeps: an empty top-level container is
// returned as it is (jsonb_set without create, #-).
func jsonbSetPath(target, path, newval types.Value, op pathOp, verb string, emptyKeeps bool) (types.Value, error) {
	n, err := parseJSON(str(target))
	if err != nil {
		return nil, err
	}
	if n.isScalar() {
		return nil, errorf(CodeInvalidParameter, "cannot %s path in scalar", verb)
	}
	if emptyKeeps && len(n.vals) == 0 {
		return target, nil
	}
	steps := path.(*types.Array).Elems
	if len(steps) == 0 {
		return target, nil
	}
	var nv *jnode
	if newval != nil {
		if nv, err = parseJSON(str(newval)); err != nil {
			return nil, err
		}
	}
	out, err := setPath(n, steps, 0, nv, op)
	if err != nil {
		return nil, err
	}
	return jsonText(jsbOID, out), nil
}

// setPath is setPath: n rebuilt with op done at steps[level:].
func setPath(n *jnode, steps []types.Value, level int, nv *jnode, op pathOp) (*jnode, error) {
	if steps[level] == nil {
		return nil, errorf(CodeNullNotAllowed, "path element at position %d is null", level+1)
	}
	switch n.kind {
	case jObject:
		return setPathObject(n, steps, level, nv, op)
	case jArray:
		return setPathArray(n, steps, level, nv, op)
	}
	return n, nil
}

func setPathObject(n *jnode, steps []types.Value, level int, nv *jnode, op pathOp) (*jnode, error) {
	key := steps[level].(string)
	last := level == len(steps)-1
	out := &jnode{kind: jObject}
	if len(n.keys) == 0 && op&pathCreateOrInsert != 0 && last {
		out.keys, out.vals = append(out.keys, key), append(out.vals, nv)
	}
	done := false
	for i, k := range n.keys {
		if !done && k == key {
			done = true
			if last {
				if op&(pathInsertBefore|pathInsertAfter) != 0 {
					return nil, &Error{Code: CodeInvalidParameter, Message: "cannot replace existing key",
						Hint: "Try using the function jsonb_set to replace key value."}
				}
				if op&pathDelete == 0 {
					out.keys, out.vals = append(out.keys, k), append(out.vals, nv)
				}
				continue
			}
			v, err := setPath(n.vals[i], steps, level+1, nv, op)
			if err != nil {
				return nil, err
			}
			out.keys, out.vals = append(out.keys, k), append(out.vals, v)
			continue
		}
		if op&pathCreateOrInsert != 0 && !done && last && i == len(n.keys)-1 {
			out.keys, out.vals = append(out.keys, key), append(out.vals, nv)
		}
		out.keys, out.vals = append(out.keys, k), append(out.vals, n.vals[i])
	}
	return out, nil
}

func setPathArray(n *jnode, steps []types.Value, level int, nv *jnode, op pathOp) (*jnode, error) {
	nelems := int64(len(n.vals))
	s := steps[level].(string)
	idx, err := strtoint(s)
	if err != nil {
		return nil, errorf(types.CodeInvalidText, "path element at position %d is not an integer: \"%s\"", level+1, s)
	}
	if idx < 0 {
		if -idx > nelems {
			idx = math.MinInt32
		} else {
			idx += nelems
		}
	}
	if idx > 0 && idx > nelems {
		idx = nelems
	}
	last := level == len(steps)-1
	out := &jnode{kind: jArray}
	done := false
	if (idx == math.MinInt32 || nelems == 0) && last && op&pathCreateOrInsert != 0 {
		out.vals = append(out.vals, nv)
		done = true
	}
	for i, v := range n.vals {
		if int64(i) != idx {
			out.vals = append(out.vals, v)
			continue
		}
		done = true
		if !last {
			w, err := setPath(v, steps, level+1, nv, op)
			if err != nil {
				return nil, err
			}
			out.vals = append(out.vals, w)
			continue
		}
		if op&(pathInsertBefore|pathCreate) != 0 {
			out.vals = append(out.vals, nv)
		}
		if op&(pathInsertAfter|pathInsertBefore) != 0 {
			out.vals = append(out.vals, v)
		}
		if op&(pathInsertAfter|pathReplace) != 0 {
			out.vals = append(out.vals, nv)
		}
	}
	if op&pathCreateOrInsert != 0 && !done && last {
		out.vals = append(out.vals, nv)
	}
	return out, nil
}

// strtoint is PostgreSQL's strtoint over a whole string (base 10):
// leading blanks and a sign allowed, nothing after the digits, int32.
func strtoint(s string) (int64, error) {
	t := strings.TrimLeft(s, " \t\n\r\v\f")
	if t == "" {
		return 0, strconv.ErrSyntax
	}
	if t[0] == '+' {
		t = t[1:]
		if t == "" || t[0] == '-' || t[0] == '+' {
			return 0, strconv.ErrSyntax
		}
	}
	v, err := strconv.ParseInt(t, 10, 32)
	if err != nil {
		return 0, err
	}
	return v, nil
}
