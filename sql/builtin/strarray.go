package builtin

import (
	"strings"
	"unicode/utf8"

	"github.com/sidecar-dev/sidecar/types"
)

// addStringArray registers string_to_array(text, text [, text]) → text[]
// as PostgreSQL's text_to_array (varlena.c split_text), not strict: a
// NULL string is NULL; an empty string is '{}'; a NULL separator splits
// into characters; an empty separator gives the whole string as the one
// element; elements equal to the third argument (when not NULL) become
// NULL.
func (r *Registry) addStringArray() {
	textArr := types.ArrayOf(tx)
	split := func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		if a[0] == nil {
			return nil, nil
		}
		var null *string
		if len(a) > 2 && a[2] != nil {
			s := str(a[2])
			null = &s
		}
		return &types.Array{Elem: tx, Elems: stringToArray(str(a[0]), a[1], null)}, nil
	}
	r.def("string_to_array", textArr, split, tx, tx).nonStrict()
	r.def("string_to_array", textArr, split, tx, tx, tx).nonStrict()
}

// stringToArray is string_to_array's elements of s split at sep (nil:
// at every character; "": not split), those equal to *null NULL.
func stringToArray(s string, sep types.Value, null *string) []types.Value {
	out := []types.Value{}
	if s == "" {
		return out
	}
	elem := func(p string) types.Value {
		if null != nil && p == *null {
			return nil
		}
		return p
	}
	if sep == nil {
		for len(s) > 0 {
			_, n := utf8.DecodeRuneInString(s)
			out = append(out, elem(s[:n]))
			s = s[n:]
		}
		return out
	}
	d := str(sep)
	if d == "" {
		return append(out, elem(s))
	}
	for {
		i := strings.Index(s, d)
		if i < 0 {
			return append(out, elem(s))
		}
		out = append(out, elem(s[:i]))
		s = s[i+len(d):]
	}
}

// StringToTable is string_to_table(s, sep [, null]): string_to_array's
// elements, which sql/exec returns as rows (PostgreSQL's text_to_table
// shares split_text with text_to_array). sep and null may be NULL
// (types.Value nil), as in string_to_array.
func StringToTable(s string, sep, null types.Value) []types.Value {
	var n *string
	if null != nil {
		x := str(null)
		n = &x
	}
	return stringToArray(s, sep, n)
}
