package builtin

import (
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// JSON and jsonb: the operators -> ->> #> #>> (both types), @> <@ ? ?|
// ?& (jsonb), and the functions that read a value (typeof, array
// length, extract_path, pretty, strip_nulls) or build one from SQL
// values (to_json[b], json[b]_build_object/array) for the argument
// types whose JSON form is settled here (text-like, integers, numeric,
// bool, json, jsonb); other argument types are refused (0A000) rather
// than printed another way than PostgreSQL prints them.
//
// A json datum is its input text; a jsonb datum is jsonb_out's text
// (types/jsonb.go), so a value inside a jsonb datum is itself the
// jsonb text of that value.

const (
	jsOID  = types.JSON
	jsbOID = types.JSONB
)

func (r *Registry) addJSON() {
	textArr := types.ArrayOf(tx)
	for _, t := range []OID{jsOID, jsbOID} {
		t := t
		r.def(fnName(t, "object_field"), t, jsonGet(t, false, byKey), t, tx)
		r.def(fnName(t, "array_element"), t, jsonGet(t, false, byIndex), t, i4)
		r.def(fnName(t, "object_field_text"), tx, jsonGet(t, true, byKey), t, tx)
		r.def(fnName(t, "array_element_text"), tx, jsonGet(t, true, byIndex), t, i4)
		r.def(fnName(t, "extract_path_op"), t, jsonPath(t, false, true), t, textArr)
		r.def(fnName(t, "extract_path_text_op"), tx, jsonPath(t, true, true), t, textArr)
		r.def(fnName(t, "extract_path"), t, jsonPath(t, false, false), t, tx).variadic()
		r.def(fnName(t, "extract_path_text"), tx, jsonPath(t, true, false), t, tx).variadic()
		r.def(fnName(t, "typeof"), tx, jsonUnary(func(n *jnode) (types.Value, error) { return n.typeName(), nil }), t)
		r.def(fnName(t, "array_length"), i4, jsonUnary(func(n *jnode) (types.Value, error) {
			switch n.kind {
			case jArray:
				return int64(len(n.vals)), nil
			case jObject:
				return nil, errorf(CodeInvalidParameter, "cannot get array length of a non-array")
			}
			return nil, errorf(CodeInvalidParameter, "cannot get array length of a scalar")
		}), t)
		r.def(fnName(t, "strip_nulls"), t, jsonUnary(func(n *jnode) (types.Value, error) {
			if t == jsOID {
				var b strings.Builder
				writeCompact(&b, stripNulls(n))
				return b.String(), nil
			}
			return jsonText(t, stripNulls(n)), nil
		}), t)
	}
	r.ops["->"] = []string{"json_object_field", "json_array_element", "jsonb_object_field", "jsonb_array_element"}
	r.ops["->>"] = []string{"json_object_field_text", "json_array_element_text", "jsonb_object_field_text", "jsonb_array_element_text"}
	r.ops["#>"] = []string{"json_extract_path_op", "jsonb_extract_path_op"}
	r.ops["#>>"] = []string{"json_extract_path_text_op", "jsonb_extract_path_text_op"}

	r.def("jsonb_contains", bo, jsonBinary(func(a, b *jnode) bool { return contains(a, b, true) }), jsbOID, jsbOID)
	r.def("jsonb_contained", bo, jsonBinary(func(a, b *jnode) bool { return contains(b, a, true) }), jsbOID, jsbOID)
	r.ops["@>"] = []string{"jsonb_contains"}
	r.ops["<@"] = []string{"jsonb_contained"}
	r.partialOps["@>"], r.partialOps["<@"] = true, true // arrays, ranges, geometry: not here
	r.def("jsonb_exists", bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n, err := parseJSON(str(a[0]))
		if err != nil {
			return nil, err
		}
		return exists(n, str(a[1])), nil
	}, jsbOID, tx)
	anyAll := func(all bool) Impl {
		return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			n, err := parseJSON(str(a[0]))
			if err != nil {
				return nil, err
			}
			for _, k := range a[1].(*types.Array).Elems {
				if k == nil {
					continue // jsonb_exists_any/all skip NULL keys
				}
				if exists(n, k.(string)) != all {
					return !all, nil
				}
			}
			return all, nil
		}
	}
	r.def("jsonb_exists_any", bo, anyAll(false), jsbOID, textArr)
	r.def("jsonb_exists_all", bo, anyAll(true), jsbOID, textArr)
	r.ops["?"] = []string{"jsonb_exists"}
	r.ops["?|"] = []string{"jsonb_exists_any"}
	r.ops["?&"] = []string{"jsonb_exists_all"}

	r.addJSONOps()    // jsonops.go
	r.addJSONSet()    // jsonset.go
	r.addJSONRecord() // jsonrecord.go
	r.addJSONPath()   // jsonpath.go
	r.def("jsonb_pretty", tx, jsonUnary(func(n *jnode) (types.Value, error) {
		var b strings.Builder
		writePretty(&b, n, 0)
		return b.String(), nil
	}), jsbOID)

	// Building values from SQL values.
	r.def("to_json", jsOID, func(c *Context, a []types.Value, p []OID) (types.Value, error) {
		return sqlToJSON(jsOID, a[0], p[0], zoneOf(c))
	}, AnyElement).stable()
	r.def("to_jsonb", jsbOID, func(c *Context, a []types.Value, p []OID) (types.Value, error) {
		return sqlToJSON(jsbOID, a[0], p[0], zoneOf(c))
	}, AnyElement).stable()
	for _, t := range []OID{jsOID, jsbOID} {
		t := t
		r.def(fnName(t, "build_object"), t, func(c *Context, a []types.Value, p []OID) (types.Value, error) {
			if err := r.jsonNullKey(t, a); err != nil {
				return nil, err // jsonnullkey.go
			}
			return buildObject(t, a, p, zoneOf(c))
		}, Any).variadic().nonStrict().stable()
		r.def(fnName(t, "build_object"), t, func(_ *Context, a []types.Value, p []OID) (types.Value, error) {
			return buildObject(t, nil, nil, nil)
		}).nonStrict().stable()
		r.def(fnName(t, "build_array"), t, func(c *Context, a []types.Value, p []OID) (types.Value, error) {
			return buildArray(t, a, p, zoneOf(c))
		}, Any).variadic().nonStrict().stable()
		r.def(fnName(t, "build_array"), t, func(_ *Context, a []types.Value, p []OID) (types.Value, error) {
			return buildArray(t, nil, nil, nil)
		}).nonStrict().stable()
	}
}

// fnName is PostgreSQL's name of the json or jsonb function.
func fnName(t OID, suffix string) string {
	if t == jsbOID {
		return "jsonb_" + suffix
	}
	return "json_" + suffix
}

type jsonStep int

const (
	byKey jsonStep = iota
	byIndex
)

// jsonGet is -> / ->> with a key or an index: NULL when the value has
// no such field or element (or is not an object/array).
func jsonGet(t OID, asText bool, step jsonStep) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n, err := parseJSON(str(a[0]))
		if err != nil {
			return nil, err
		}
		var v *jnode
		switch {
		case step == byKey && n.kind == jObject:
			v = n.field(str(a[1]))
		case step == byIndex && n.kind == jArray:
			v = n.elem(i64(a[1]))
		case step == byIndex && t == jsbOID && n.isScalar():
			// jsonb stores a top-level scalar as a one-element array.
			v = (&jnode{kind: jArray, vals: []*jnode{n}}).elem(i64(a[1]))
		}
		return jsonResult(t, v, asText), nil
	}
}

// jsonPath is #> / #>> and json[b]_extract_path[_text]: the path's keys
// (or array indexes written as integers) followed from the top; NULL
// when a step is missing or NULL. An empty path gives the value itself.
func jsonPath(t OID, asText, array bool) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n, err := parseJSON(str(a[0]))
		if err != nil {
			return nil, err
		}
		steps := a[1:] // VARIADIC: one argument per step
		if array {
			steps = a[1].(*types.Array).Elems
		}
		for _, step := range steps {
			if step == nil {
				return nil, nil
			}
			key := step.(string)
			switch n.kind {
			case jObject:
				n = n.field(key)
			case jArray:
				i, ok := pathIndex(key)
				if !ok {
					return nil, nil
				}
				n = n.elem(i)
			default:
				return nil, nil
			}
			if n == nil {
				return nil, nil
			}
		}
		return jsonResult(t, n, asText), nil
	}
}

// pathIndex reads a path step as an array index the way PostgreSQL's
// get_path_all does (strtol over the whole string, leading blanks and a
// sign allowed, nothing after the digits).
func pathIndex(s string) (int64, bool) {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	if s == "" {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '+':
		s = s[1:]
	case '-':
		neg, s = true, s[1:]
	}
	if s == "" || len(s) > 9 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// jsonResult is a looked-up value as the operator gives it: the value
// itself (json: its text as written; jsonb: its jsonb text), or for the
// text forms a string's contents, NULL for JSON null, the text of
// anything else.
func jsonResult(t OID, v *jnode, asText bool) types.Value {
	if v == nil {
		return nil
	}
	if !asText {
		return v.raw
	}
	switch v.kind {
	case jString:
		return v.str
	case jNull:
		return nil
	}
	return v.raw
}

func jsonUnary(f func(*jnode) (types.Value, error)) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		n, err := parseJSON(str(a[0]))
		if err != nil {
			return nil, err
		}
		return f(n)
	}
}

func jsonBinary(f func(a, b *jnode) bool) Impl {
	return func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x, y, err := parseJSONPair(a)
		if err != nil {
			return nil, err
		}
		return f(x, y), nil
	}
}

// parseJSONPair parses a binary operator's two json/jsonb operands.
func parseJSONPair(a []types.Value) (x, y *jnode, err error) {
	if x, err = parseJSON(str(a[0])); err != nil {
		return nil, nil, err
	}
	if y, err = parseJSON(str(a[1])); err != nil {
		return nil, nil, err
	}
	return x, y, nil
}

// stripNulls drops object fields whose value is null, at every depth
// (array elements that are null stay, as in PostgreSQL).
func stripNulls(n *jnode) *jnode {
	switch n.kind {
	case jObject:
		out := &jnode{kind: jObject}
		for i, k := range n.keys {
			if n.vals[i].kind == jNull {
				continue
			}
			out.keys, out.vals = append(out.keys, k), append(out.vals, stripNulls(n.vals[i]))
		}
		return out
	case jArray:
		out := &jnode{kind: jArray}
		for _, v := range n.vals {
			out.vals = append(out.vals, stripNulls(v))
		}
		return out
	}
	return n
}

// jsonText prints a node: as jsonb_out does for jsonb (", " and ": ",
// keys unique and ordered by length then bytes), compactly as json's
// functions print what they build (", " and ": " too, keys in order).
func jsonText(t OID, n *jnode) string {
	var b strings.Builder
	writeJSONNode(&b, t, n)
	return b.String()
}

func writeJSONNode(b *strings.Builder, t OID, n *jnode) {
	switch n.kind {
	case jObject:
		keys, vals := n.keys, n.vals
		if t == jsbOID {
			keys, vals = jsonbOrder(keys, vals)
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			escapeJSON(b, k)
			b.WriteString(": ")
			writeJSONNode(b, t, vals[i])
		}
		b.WriteByte('}')
	case jArray:
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONNode(b, t, v)
		}
		b.WriteByte(']')
	case jString:
		escapeJSON(b, n.str)
	case jNumber:
		if t == jsbOID {
			if d, err := jpDecimal(n); err == nil {
				b.WriteString(jsonbNumText(d))
				break
			}
		}
		b.WriteString(n.str)
	case jTrue:
		b.WriteString("true")
	case jFalse:
		b.WriteString("false")
	default:
		b.WriteString("null")
	}
}

// jsonbOrder is jsonb's key order: unique keys (the last duplicate
// wins), shorter keys first, then by bytes.
func jsonbOrder(keys []string, vals []*jnode) ([]string, []*jnode) {
	last := map[string]int{}
	for i, k := range keys {
		last[k] = i
	}
	idx := make([]int, 0, len(last))
	for i, k := range keys {
		if last[k] == i {
			idx = append(idx, i)
		}
	}
	sortIdx(idx, func(x, y int) bool {
		a, b := keys[x], keys[y]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	ks, vs := make([]string, len(idx)), make([]*jnode, len(idx))
	for i, j := range idx {
		ks[i], vs[i] = keys[j], vals[j]
	}
	return ks, vs
}

func sortIdx(idx []int, less func(a, b int) bool) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// escapeJSON is PostgreSQL's escape_json (types.QuoteJSON).
func escapeJSON(b *strings.Builder, s string) {
	b.WriteString(types.QuoteJSON(s))
}

// writeCompact prints a json value with no blanks between tokens, as
// json_strip_nulls rebuilds its input.
func writeCompact(b *strings.Builder, n *jnode) {
	switch n.kind {
	case jObject, jArray:
		open, close := byte('{'), byte('}')
		if n.kind == jArray {
			open, close = '[', ']'
		}
		b.WriteByte(open)
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			if n.kind == jObject {
				escapeJSON(b, n.keys[i])
				b.WriteByte(':')
			}
			writeCompact(b, v)
		}
		b.WriteByte(close)
	case jString:
		escapeJSON(b, n.str)
	default:
		b.WriteString(n.raw)
	}
}

// writePretty is jsonb_pretty: four spaces per level, one element or
// field per line, empty containers as {} and [].
func writePretty(b *strings.Builder, n *jnode, depth int) {
	indent := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString("    ")
		}
	}
	switch n.kind {
	case jObject, jArray:
		open, close := byte('{'), byte('}')
		if n.kind == jArray {
			open, close = '[', ']'
		}
		b.WriteByte(open)
		if len(n.vals) == 0 {
			b.WriteByte('\n')
			for range depth {
				b.WriteString("    ")
			}
			b.WriteByte(close)
			return
		}
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			if n.kind == jObject {
				escapeJSON(b, n.keys[i])
				b.WriteString(": ")
			}
			writePretty(b, v, depth+1)
		}
		indent(depth)
		b.WriteByte(close)
	default:
		b.WriteString(n.raw)
	}
}

// sqlNode is an SQL value as a JSON value (datum_to_json[b]), for the
// types whose form is settled here; others refuse. z is the session's
// zone (a timestamptz's offset).
func sqlNode(v types.Value, t OID, z *types.Zone) (*jnode, error) {
	if v == nil {
		return &jnode{kind: jNull, raw: "null"}, nil
	}
	switch t {
	case types.Date, types.Time, types.Timetz, types.Interval, types.UUID, types.Bytea:
		// A date in XSD form is its ISO text; the others are their
		// output text (IntervalStyle postgres, the only one served).
		return &jnode{kind: jString, str: types.Out(t, v)}, nil
	case types.Timestamp, types.Timestamptz:
		return &jnode{kind: jString, str: xsdTimestamp(types.OutIn(t, v, z))}, nil
	case types.Float4, types.Float8:
		s := types.Out(t, v)
		switch s {
		case "NaN", "Infinity", "-Infinity":
			return &jnode{kind: jString, str: s}, nil
		}
		return &jnode{kind: jNumber, str: s, raw: s}, nil
	case types.Bpchar:
		return &jnode{kind: jString, str: types.Out(t, v)}, nil // blanks kept, as bpcharout
	case tx, types.Varchar, types.Name, types.Unknown, types.Char:
		s, err := castText(v, t)
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, str: s}, nil
	case types.Int2, i4, i8:
		s := types.Out(t, v)
		return &jnode{kind: jNumber, str: s, raw: s}, nil
	case types.Numeric:
		s := types.Out(t, v)
		switch s {
		case "NaN", "Infinity", "-Infinity":
			return &jnode{kind: jString, str: s}, nil
		}
		return &jnode{kind: jNumber, str: s, raw: s}, nil
	case bo:
		if v.(bool) {
			return &jnode{kind: jTrue, raw: "true"}, nil
		}
		return &jnode{kind: jFalse, raw: "false"}, nil
	case jsOID, jsbOID:
		return parseJSON(str(v))
	}
	if e := types.ElemOf(t); e != 0 && types.ElemOf(e) == 0 {
		// array_to_json: the elements in a JSON array; json prints it
		// without blanks ([1,2]).
		arr := &jnode{kind: jArray}
		var raw strings.Builder
		raw.WriteByte('[')
		for i, ev := range v.(*types.Array).Elems {
			n, err := sqlNode(ev, e, z)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				raw.WriteByte(',')
			}
			raw.WriteString(builtValue(n))
			arr.vals = append(arr.vals, n)
		}
		raw.WriteByte(']')
		arr.raw = raw.String()
		return arr, nil
	}
	if t == types.RecordOID {
		return recordNode(v.(*types.Record), z, false) // jsonrecord.go
	}
	return nil, unsupported("a value of type %s as json", types.NameOf(t))
}

// xsdTimestamp is timestamp or timestamptz ISO output text as
// JsonEncodeDateTime prints it (XSD): "T" between date and time, the
// offset with minutes (+00:00); infinities as they are.
func xsdTimestamp(iso string) string {
	sp := strings.IndexByte(iso, ' ')
	if sp < 0 {
		return iso // infinity, -infinity
	}
	s := iso[:sp] + "T" + iso[sp+1:]
	bc := strings.HasSuffix(s, " BC")
	s = strings.TrimSuffix(s, " BC")
	if i := strings.LastIndexAny(s, "+-"); i > sp && !strings.Contains(s[i:], ":") {
		s += ":00"
	}
	if bc {
		s += " BC"
	}
	return s
}

// sqlToJSON is to_json / to_jsonb.
func sqlToJSON(t OID, v types.Value, from OID, z *types.Zone) (types.Value, error) {
	if from == jsOID && t == jsOID {
		return v, nil // to_json(json) is the value as written
	}
	n, err := sqlNode(v, from, z)
	if err != nil {
		return nil, err
	}
	if t == jsOID {
		return builtValue(n), nil
	}
	return jsonText(t, n), nil
}

// buildObject is json[b]_build_object: pairs of key and value; a NULL
// key is an error, keys are printed as text.
func buildObject(t OID, a []types.Value, p []OID, z *types.Zone) (types.Value, error) {
	if len(a)%2 != 0 {
		return nil, &Error{Code: CodeInvalidParameter, Message: "argument list must have even number of elements",
			Hint: "The arguments of " + fnName(t, "build_object") + "() must consist of alternating keys and values."}
	}
	obj := &jnode{kind: jObject}
	for i := 0; i < len(a); i += 2 {
		if a[i] == nil {
			return nil, errorf(CodeInvalidParameter, "argument %d: key must not be null", i+1)
		}
		k, err := sqlNode(a[i], p[i], z)
		if err != nil {
			return nil, err
		}
		switch k.kind {
		case jNumber:
			k = &jnode{kind: jString, str: k.str}
		case jTrue, jFalse:
			k = &jnode{kind: jString, str: k.raw}
		case jObject, jArray, jNull:
			return nil, unsupported("a json or jsonb object key of type %s", types.NameOf(p[i]))
		}
		v, err := sqlNode(a[i+1], p[i+1], z)
		if err != nil {
			return nil, err
		}
		obj.keys, obj.vals = append(obj.keys, k.str), append(obj.vals, v)
	}
	if t == jsOID {
		return jsonBuiltText(obj), nil
	}
	return jsonText(t, obj), nil
}

// buildArray is json[b]_build_array.
func buildArray(t OID, a []types.Value, p []OID, z *types.Zone) (types.Value, error) {
	arr := &jnode{kind: jArray}
	for i := range a {
		v, err := sqlNode(a[i], p[i], z)
		if err != nil {
			return nil, err
		}
		arr.vals = append(arr.vals, v)
	}
	if t == jsOID {
		return jsonBuiltText(arr), nil
	}
	return jsonText(t, arr), nil
}

// jsonBuiltText prints what json_build_object/array build: keys and
// values separated by " : ", elements by ", ", json arguments as
// written.
func jsonBuiltText(n *jnode) string {
	var b strings.Builder
	switch n.kind {
	case jObject:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			escapeJSON(&b, k)
			b.WriteString(" : ")
			b.WriteString(builtValue(n.vals[i]))
		}
		b.WriteByte('}')
	case jArray:
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(builtValue(v))
		}
		b.WriteByte(']')
	}
	return b.String()
}

// builtValue is an argument's text inside a built json value: a json or
// jsonb argument as its own text, a scalar as printed.
func builtValue(v *jnode) string {
	if v.raw != "" {
		return v.raw
	}
	var b strings.Builder
	writeJSONNode(&b, jsOID, v)
	return b.String()
}
