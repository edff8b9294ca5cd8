package exec

import (
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// srfRow is one row of a set-returning function of several columns
// (jsonb_each: key, value), as its iterator yields it.
type srfRow []types.Value

// jsonSeries is the iterator of a json set-returning function (ok false
// for other functions): the library's rows (the datum is in memory
// already, and its rows are no larger).
func jsonSeries(name string, vals []types.Value) (func() (types.Value, bool, error), bool, error) {
	if name == "jsonb_path_query" {
		rows, err := builtin.JSONPathRows(vals)
		if err != nil {
			return nil, true, libraryErr(err)
		}
		return func() (types.Value, bool, error) {
			if len(rows) == 0 {
				return nil, false, nil
			}
			v := rows[0]
			rows = rows[1:]
			return v, true, nil
		}, true, nil
	}
	switch name {
	case "jsonb_each", "jsonb_each_text", "json_each", "json_each_text",
		"jsonb_array_elements", "jsonb_array_elements_text", "json_array_elements", "json_array_elements_text",
		"jsonb_object_keys", "json_object_keys":
	default:
		return nil, false, nil
	}
	rows, err := builtin.JSONRows(name, vals[0])
	if err != nil {
		return nil, true, libraryErr(err)
	}
	return rowsSeries(rows), true, nil
}

// rowsSeries iterates over rows computed already: a row of several
// columns as an srfRow, of one as its value.
func rowsSeries(rows [][]types.Value) func() (types.Value, bool, error) {
	i := 0
	return func() (types.Value, bool, error) {
		if i == len(rows) {
			return nil, false, nil
		}
		i++
		if r := rows[i-1]; len(r) > 1 {
			return srfRow(r), true, nil
		}
		return rows[i-1][0], true, nil
	}
}
