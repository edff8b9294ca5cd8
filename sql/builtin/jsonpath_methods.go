package builtin

import (
	"math"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// jsonpath's .** accessor and the item methods beyond the numeric ones
// (jsonpath_exec.c): .keyvalue(), .double(), and PostgreSQL 17's
// .bigint() .boolean() .decimal() .integer() .number() .string().

// anyItem is executeAnyItem: the items below v at levels level…
// it.Last (each container's values in jsonb order, an item before its
// children), those at it.First or deeper — or, for {last}, the scalars
// at any depth — given to it.Next with structural errors ignored.
func (c *jpCtx) anyItem(it *types.JPItem, v, cur *jnode, level uint32, out *[]*jnode) error {
	if level > it.Last {
		return nil
	}
	children := v.vals
	if v.kind == jObject {
		_, children = jsonbOrder(v.keys, v.vals)
	}
	for _, ch := range children {
		if level >= it.First || it.First == types.JPLastLevel && it.Last == types.JPLastLevel && ch.isScalar() {
			if it.Next == nil {
				*out = append(*out, ch)
			} else {
				saved := c.ignore
				c.ignore = true
				r, err := c.exec(it.Next, ch, cur, !c.strict)
				c.ignore = saved
				*out = append(*out, r...)
				if err != nil {
					return err
				}
			}
		}
		if level < it.Last && !ch.isScalar() {
			if err := c.anyItem(it, ch, cur, level+1, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// execAny is the jpiAny case: v itself when the levels start at 0 (an
// error there is dropped when errors are not thrown and v is a
// container: PostgreSQL overwrites that result with the levels below),
// then the levels below.
func (c *jpCtx) execAny(it *types.JPItem, v, cur *jnode) ([]*jnode, error) {
	var out []*jnode
	if it.First == 0 {
		saved := c.ignore
		c.ignore = true
		var err error
		if it.Next == nil {
			out = append(out, v)
		} else {
			var r []*jnode
			r, err = c.exec(it.Next, v, cur, !c.strict)
			out = append(out, r...)
		}
		c.ignore = saved
		if err != nil && (c.throw || !soft(err) || v.kind != jObject && v.kind != jArray) {
			return out, err
		}
	}
	if v.kind == jObject || v.kind == jArray {
		err := c.anyItem(it, v, cur, 1, &out)
		return out, err
	}
	return out, nil
}

// jpMethod17 says whether name is a method PostgreSQL 17 added; those
// run only for a registry of a known major from 17 on (the jsonpath
// input of older majors rejects them).
func (c *jpCtx) check17(name string) error {
	switch name {
	case "bigint", "boolean", "decimal", "integer", "number", "string":
	default:
		return nil
	}
	if c.r != nil {
		if yes, known := c.r.atLeast(170000); yes && known {
			return nil
		}
	}
	return unsupported("the jsonpath item method .%s() when the server's major is not known to be 17 or later", name)
}

// method runs the item methods other than size, type, abs, floor and
// ceiling on v (not an array to unwrap): the node given to the next
// item, or found=false when the method is not one of these.
func (c *jpCtx) method(name string, v *jnode) (n *jnode, found bool, err error) {
	if err := c.check17(name); err != nil {
		return nil, true, err
	}
	nonNumeric := func(format string) error {
		return jpSoft("22036", format, name)
	}
	switch name {
	case "keyvalue":
		if v.kind != jObject {
			return nil, true, jpSoft("2203C", "jsonpath item method .%s() can only be applied to an object", name)
		}
		return nil, true, nil // keyvalue gives several items: execKeyValue
	case "double":
		switch v.kind {
		case jNumber:
			f, err := types.In(types.Float8, -1, v.str)
			if err != nil || math.IsInf(f.(float64), 0) {
				return nil, true, nonNumeric("numeric argument of jsonpath item method .%s() is out of range for type double precision")
			}
			return v, true, nil
		case jString:
			f, err := types.In(types.Float8, -1, v.str)
			if err != nil || math.IsInf(f.(float64), 0) || math.IsNaN(f.(float64)) {
				// 22036 on every major; 17 on words it otherwise.
				return nil, true, nonNumeric("string argument of jsonpath item method .%s() is not a valid representation of a double precision number")
			}
			d, err := types.Convert(f, types.Float8, types.Numeric, -1)
			if err != nil {
				return nil, true, err
			}
			return jpNum(d.(*types.Decimal)), true, nil
		}
		return nil, true, nonNumeric("jsonpath item method .%s() can only be applied to a string or numeric value")
	case "bigint", "integer":
		t, typ, repr := types.Int8, "bigint", "a big integer"
		if name == "integer" {
			t, typ, repr = types.Int4, "integer", "an integer"
		}
		switch v.kind {
		case jNumber:
			d, err := jpDecimal(v)
			if err != nil {
				return nil, true, err
			}
			i, err := types.Convert(d, types.Numeric, t, -1)
			if err != nil {
				return nil, true, nonNumeric("numeric argument of jsonpath item method .%s() is out of range for type " + typ)
			}
			return jpNum(types.DecimalFromInt(i.(int64))), true, nil
		case jString:
			i, err := types.In(t, -1, v.str)
			if err != nil {
				return nil, true, nonNumeric("string argument of jsonpath item method .%s() is not a valid representation of " + repr)
			}
			return jpNum(types.DecimalFromInt(i.(int64))), true, nil
		}
		return nil, true, nonNumeric("jsonpath item method .%s() can only be applied to a string or numeric value")
	case "boolean":
		b := false
		switch v.kind {
		case jTrue, jFalse:
			b = v.kind == jTrue
		case jNumber:
			i, err := types.In(types.Int4, -1, v.str)
			if err != nil {
				return nil, true, nonNumeric("numeric argument of jsonpath item method .%s() is out of range for type boolean")
			}
			b = i.(int64) != 0
		case jString:
			// parse_bool: boolin's words without its trimming of blanks.
			x, err := types.In(types.Bool, -1, v.str)
			if err != nil || strings.TrimSpace(v.str) != v.str || v.str == "" {
				return nil, true, nonNumeric("string argument of jsonpath item method .%s() is not a valid representation of a boolean")
			}
			b = x.(bool)
		default:
			return nil, true, nonNumeric("jsonpath item method .%s() can only be applied to a boolean, string, or numeric value")
		}
		if b {
			return &jnode{kind: jTrue, raw: "true"}, true, nil
		}
		return &jnode{kind: jFalse, raw: "false"}, true, nil
	case "number", "decimal":
		switch v.kind {
		case jNumber:
			return v, true, nil
		case jString:
			d, err := types.In(types.Numeric, -1, v.str)
			if err != nil || d.(*types.Decimal).NaN || d.(*types.Decimal).Inf != 0 {
				return nil, true, nonNumeric("string argument of jsonpath item method .%s() is not a valid representation of a decimal or number")
			}
			return jpNum(d.(*types.Decimal)), true, nil
		}
		return nil, true, nonNumeric("jsonpath item method .%s() can only be applied to a string or numeric value")
	case "string":
		var s string
		switch v.kind {
		case jString:
			s = v.str
		case jNumber:
			d, err := jpDecimal(v)
			if err != nil {
				return nil, true, err
			}
			s = jsonbNumText(d)
		case jTrue:
			s = "true"
		case jFalse:
			s = "false"
		default:
			return nil, true, nonNumeric("jsonpath item method .%s() can only be applied to a boolean, string, numeric, or datetime value")
		}
		return &jnode{kind: jString, str: s, raw: jsonText(jsbOID, &jnode{kind: jString, str: s})}, true, nil
	}
	return nil, false, nil
}

// keyValues is executeKeyValueMethod over the object v: one object
// {"id": …, "key": k, "value": v} per pair in jsonb's key order. The id
// is the object's byte offset inside the jsonb datum plus its base
// object's number times 10^10; sidecar computes it for the document's
// root object only (id 0) and refuses the others.
func (c *jpCtx) keyValues(v *jnode) ([]*jnode, error) {
	if v != c.root {
		return nil, unsupported("jsonpath .keyvalue() of an object other than the document's root (its id is the object's offset in jsonb's binary form)")
	}
	keys, vals := jsonbOrder(v.keys, v.vals)
	out := make([]*jnode, len(keys))
	for i, k := range keys {
		out[i] = &jnode{kind: jObject, keys: []string{"key", "value", "id"},
			vals: []*jnode{{kind: jString, str: k, raw: jsonText(jsbOID, &jnode{kind: jString, str: k})}, vals[i], jpNum(types.DecimalFromInt(0))}}
	}
	return out, nil
}
