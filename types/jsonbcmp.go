package types

import (
	"encoding/json"
	"hash/maphash"
	"strings"
)

// jsonb's btree order and hashing, as PostgreSQL's compareJsonbContainers
// (jsonb_util.c) defines them. A jsonb datum here is jsonb_out's text
// (jsonb.go); it is read back into a tree and walked the way
// PostgreSQL's iterator walks the binary form:
//
//   - a top-level scalar is a one-element array flagged raw;
//   - a container is compared at its opening: an object with more pairs
//     is greater, an array with more elements is greater; for two arrays
//     a raw scalar is less than a real array, but a difference in size
//     overrides that (so the empty top-level array sorts below every
//     scalar, PostgreSQL's documented anomaly);
//   - then element by element (objects: key, value, key, value … in
//     jsonb's key order, shorter keys first);
//   - values of different kinds order object > array > boolean > number
//     > string > null; strings compare under the database's default
//     collation (byte order here: sqlfront refuses jsonb ordering under
//     another), numbers by value (1.0 = 1), false < true.
//
// Equality is Compare = 0, so two values are equal exactly when they
// have the same shape, equal strings and numerically equal numbers;
// Hash agrees with it by hashing numbers by their normalized value.

// The kinds of a jsonb value, valued as PostgreSQL's enum jbvType so
// that comparing kinds is comparing these.
const (
	jbNull   = 0x0
	jbString = 0x1
	jbNumber = 0x2
	jbBool   = 0x3
	jbArray  = 0x10
	jbObject = 0x11
)

// jbValue is one value of a jsonb datum.
type jbValue struct {
	kind int
	s    string    // a string's text
	num  *Decimal  // a number
	b    bool      // a boolean
	keys []string  // an object's keys, in jsonb's order
	vals []jbValue // an object's values or an array's elements
	raw  bool      // a top-level scalar's pseudo array
}

// readJSONB reads a stored jsonb datum into its tree; the top-level
// scalar comes back wrapped as PostgreSQL stores it. A datum that does
// not read (it cannot: jsonb_in made it) is an empty raw array, which
// still compares consistently.
func readJSONB(s string) jbValue {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, ok := readJBValue(dec)
	if !ok {
		return jbValue{kind: jbArray, raw: true}
	}
	if v.kind != jbArray && v.kind != jbObject {
		return jbValue{kind: jbArray, raw: true, vals: []jbValue{v}}
	}
	return v
}

func readJBValue(dec *json.Decoder) (jbValue, bool) {
	tok, err := dec.Token()
	if err != nil {
		return jbValue{}, false
	}
	switch x := tok.(type) {
	case nil:
		return jbValue{kind: jbNull}, true
	case bool:
		return jbValue{kind: jbBool, b: x}, true
	case string:
		return jbValue{kind: jbString, s: x}, true
	case json.Number:
		d, err := parseDecimal(string(x))
		if err != nil {
			return jbValue{}, false
		}
		return jbValue{kind: jbNumber, num: d}, true
	case json.Delim:
		out := jbValue{kind: jbArray}
		if x == '{' {
			out.kind = jbObject
		}
		for dec.More() {
			if out.kind == jbObject {
				k, err := dec.Token()
				ks, isStr := k.(string)
				if err != nil || !isStr {
					return jbValue{}, false
				}
				out.keys = append(out.keys, ks)
			}
			v, ok := readJBValue(dec)
			if !ok {
				return jbValue{}, false
			}
			out.vals = append(out.vals, v)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return jbValue{}, false
		}
		return out, true
	}
	return jbValue{}, false
}

// CompareJSONB orders two stored jsonb datums as jsonb's btree opclass
// (jsonb_cmp) does.
func CompareJSONB(a, b string) int {
	if a == b {
		return 0
	}
	x, y := readJSONB(a), readJSONB(b)
	return compareJB(&x, &y)
}

func compareJB(a, b *jbValue) int {
	if a.kind != b.kind {
		return cmpInt(int64(a.kind), int64(b.kind))
	}
	switch a.kind {
	case jbNull:
		return 0
	case jbString:
		return strings.Compare(a.s, b.s)
	case jbNumber:
		return CompareDecimal(a.num, b.num)
	case jbBool:
		switch {
		case a.b == b.b:
			return 0
		case b.b:
			return -1
		}
		return 1
	}
	// Two containers of one kind: the size first (for arrays after the
	// raw-scalar flag, which the size overrides), then the contents.
	res := 0
	if a.raw != b.raw {
		res = 1
		if a.raw {
			res = -1
		}
	}
	if len(a.vals) != len(b.vals) {
		return cmpInt(int64(len(a.vals)), int64(len(b.vals)))
	}
	if res != 0 {
		return res
	}
	for i := range a.vals {
		if a.kind == jbObject {
			if c := strings.Compare(a.keys[i], b.keys[i]); c != 0 {
				return c
			}
		}
		if c := compareJB(&a.vals[i], &b.vals[i]); c != 0 {
			return c
		}
	}
	return 0
}

// hashJSONB hashes a stored jsonb datum consistently with CompareJSONB's
// equality: the shape, the strings and the numbers' normalized values.
func hashJSONB(h *maphash.Hash, s string) {
	v := readJSONB(s)
	writeJBKey(h, &v)
}

func writeJBKey(h *maphash.Hash, v *jbValue) {
	h.WriteByte(byte(v.kind))
	switch v.kind {
	case jbString:
		h.WriteString(v.s)
		h.WriteByte(0)
	case jbNumber:
		h.WriteString(v.num.normalizedKey())
		h.WriteByte(0)
	case jbBool:
		if v.b {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	case jbArray, jbObject:
		if v.raw {
			h.WriteByte(1)
		}
		for i := range v.vals {
			if v.kind == jbObject {
				h.WriteString(v.keys[i])
				h.WriteByte(0)
			}
			writeJBKey(h, &v.vals[i])
		}
		h.WriteByte(0xff)
	}
}
