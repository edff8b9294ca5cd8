package builtin

import (
	"math/big"
	"slices"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// jnode is one JSON value of a json or jsonb datum, parsed from its
// text. raw is the value's own text inside the datum: for jsonb (stored
// as jsonb_out prints it) that is the value's jsonb text too; for json
// it is the input's bytes as written, which is what json's -> and #>
// give back.
type jnode struct {
	kind byte // jObject, jArray, jString, jNumber, jTrue, jFalse, jNull
	raw  string
	str  string   // a string's decoded text; a number's text
	keys []string // an object's keys, in the datum's order (json keeps duplicates)
	vals []*jnode // an object's values (paired with keys) or an array's elements
}

// The kinds of jnode.
const (
	jObject = 'o'
	jArray  = 'a'
	jString = 's'
	jNumber = 'n'
	jTrue   = 't'
	jFalse  = 'f'
	jNull   = 'z'
)

// parseJSON parses a datum the type's input function has accepted.
// Input it cannot read (which the input function would have refused)
// is an internal error, never a guess.
func parseJSON(s string) (*jnode, error) {
	p := jparser{s: s}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(s) {
		return nil, p.bad()
	}
	return n, nil
}

type jparser struct {
	s string
	i int
}

func (p *jparser) bad() error {
	return errorf("XX000", "malformed json datum at byte %d", p.i)
}

func (p *jparser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) value() (*jnode, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.bad()
	}
	start := p.i
	var n *jnode
	switch c := p.s[p.i]; {
	case c == '{':
		n = &jnode{kind: jObject}
		p.i++
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			break
		}
		for {
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, p.bad()
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.bad()
			}
			p.i++
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.keys, n.vals = append(n.keys, k), append(n.vals, v)
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				break
			}
			return nil, p.bad()
		}
	case c == '[':
		n = &jnode{kind: jArray}
		p.i++
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			break
		}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				break
			}
			return nil, p.bad()
		}
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n = &jnode{kind: jString, str: s}
	case c == '-' || c >= '0' && c <= '9':
		for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
			p.i++
		}
		n = &jnode{kind: jNumber, str: p.s[start:p.i]}
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		n = &jnode{kind: jTrue}
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		n = &jnode{kind: jFalse}
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		n = &jnode{kind: jNull}
	default:
		return nil, p.bad()
	}
	n.raw = p.s[start:p.i]
	return n, nil
}

// str reads a string token (p at its opening quote) and decodes its
// escapes (types.UnescapeJSONString: surrogate pairs combined as
// json_lex_string does; a lone surrogate cannot be in a stored datum).
func (p *jparser) str() (string, error) {
	v, n, ok := types.UnescapeJSONString(p.s[p.i:])
	if !ok {
		return "", p.bad()
	}
	p.i += n
	return v, nil
}

// field is an object's value under key: for jsonb the only one (keys
// are unique); for json the last one, as json_object_field does.
func (n *jnode) field(key string) *jnode {
	var out *jnode
	for i, k := range n.keys {
		if k == key {
			out = n.vals[i]
		}
	}
	return out
}

// elem is an array's element i, counted from the end when negative.
func (n *jnode) elem(i int64) *jnode {
	if i < 0 {
		i += int64(len(n.vals))
	}
	if i < 0 || i >= int64(len(n.vals)) {
		return nil
	}
	return n.vals[i]
}

// typeName is jsonb_typeof's answer.
func (n *jnode) typeName() string {
	switch n.kind {
	case jObject:
		return "object"
	case jArray:
		return "array"
	case jString:
		return "string"
	case jNumber:
		return "number"
	case jTrue, jFalse:
		return "boolean"
	}
	return "null"
}

// isScalar says whether n is neither object nor array.
func (n *jnode) isScalar() bool { return n.kind != jObject && n.kind != jArray }

// scalarEqual is equalsJsonbScalarValue: the same kind, numbers equal as
// numerics (1.0 = 1), strings byte for byte.
func scalarEqual(a, b *jnode) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case jString:
		return a.str == b.str
	case jNumber:
		return numEqual(a.str, b.str)
	}
	return true
}

// numEqual compares two JSON numbers by value.
func numEqual(a, b string) bool {
	if a == b {
		return true
	}
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	return ok1 && ok2 && x.Cmp(y) == 0
}

// contains is jsonb's @> (JsonbDeepContains): every key of an object in
// b is in a with a contained value, every element of an array in b is
// contained by some element of a; an array contains a scalar at the top
// level (rawScalar), a scalar never contains an array.
func contains(a, b *jnode, top bool) bool {
	if top {
		// PostgreSQL stores a top-level scalar as a one-element array
		// flagged raw: [1,2] @> 1, 1 @> 1, but not 1 @> [1].
		if a.isScalar() && b.isScalar() {
			return scalarEqual(a, b)
		}
		if a.kind == jArray && b.isScalar() {
			b = &jnode{kind: jArray, vals: []*jnode{b}}
		}
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case jObject:
		for i, k := range b.keys {
			av := a.field(k)
			if av == nil {
				return false
			}
			bv := b.vals[i]
			if av.isScalar() || bv.isScalar() {
				if !scalarEqual(av, bv) {
					return false
				}
				continue
			}
			if !contains(av, bv, false) {
				return false
			}
		}
		return true
	case jArray:
		for _, bv := range b.vals {
			if bv.isScalar() {
				if !slices.ContainsFunc(a.vals, func(av *jnode) bool { return av.isScalar() && scalarEqual(av, bv) }) {
					return false
				}
				continue
			}
			if !slices.ContainsFunc(a.vals, func(av *jnode) bool { return av.kind == bv.kind && contains(av, bv, false) }) {
				return false
			}
		}
		return true
	}
	return scalarEqual(a, b)
}

// exists is jsonb's ? : key is a top-level object key, or a string
// element of a top-level array (or the top-level string itself).
func exists(n *jnode, key string) bool {
	switch n.kind {
	case jObject:
		return n.field(key) != nil
	case jArray:
		return slices.ContainsFunc(n.vals, func(v *jnode) bool { return v.kind == jString && v.str == key })
	case jString:
		return n.str == key
	}
	return false
}
