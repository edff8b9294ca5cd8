package exec

import (
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// srfElems is the set an element-listing function returns for its
// non-NULL arguments: unnest's array elements, regexp_matches' text[]
// per match, regexp_split_to_table's pieces, string_to_table's
// elements (sql/builtin).
func srfElems(c *builtin.Context, name string, vals []types.Value) ([]types.Value, error) {
	if name == "string_to_table" {
		var null types.Value
		if len(vals) > 2 {
			null = vals[2]
		}
		return builtin.StringToTable(vals[0].(string), vals[1], null), nil
	}
	flags := ""
	if len(vals) > 2 {
		flags = vals[2].(string)
	}
	switch name {
	case "regexp_matches":
		out, err := builtin.RegexpMatches(c, vals[0].(string), vals[1].(string), flags)
		return out, libraryErr(err)
	case "regexp_split_to_table":
		out, err := builtin.RegexpSplit(c, vals[0].(string), vals[1].(string), flags, "regexp_split_to_table()")
		return out, libraryErr(err)
	}
	return vals[0].(*types.Array).Elems, nil
}

// srfNoRows reports whether a set-returning function returns no rows
// for these argument values: a strict one when any is NULL;
// string_to_table (not strict, as string_to_array) only when its string
// is NULL — a NULL separator splits into characters, a NULL third
// argument makes no element NULL.
func srfNoRows(name string, vals []types.Value) bool {
	if name == "string_to_table" {
		return vals[0] == nil
	}
	for _, v := range vals {
		if v == nil {
			return true
		}
	}
	return false
}
