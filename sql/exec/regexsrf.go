package exec

import (
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// srfElems is the set an element-listing function returns for its
// non-NULL arguments: unnest's array elements, regexp_matches' text[]
// per match, regexp_split_to_table's pieces (sql/builtin).
func srfElems(c *builtin.Context, name string, vals []types.Value) ([]types.Value, error) {
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
