package builtin

import (
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// JSONToRecordRows is the rows of json_to_record, jsonb_to_record (one)
// or json_to_recordset, jsonb_to_recordset (one per array element) over
// the datum v for the columns names of types ts (typmods mods), as
// jsonfuncs.c's populate_record and populate_scalar fill them: the
// object's key of the column's name (json: its last occurrence) read
// by the column type's input function — a string's text unquoted, any
// other value's text; for json and jsonb columns the value as JSON (a
// json string re-escaped as escape_json writes it); a missing key or
// JSON null is NULL. v NULL: to_record's one row of NULLs,
// to_recordset's no rows. A top-level value of another shape is
// refused (PostgreSQL's messages for it differ by major).
func JSONToRecordRows(name string, v types.Value, names []string, ts []types.OID, mods []int32) ([][]types.Value, error) {
	set := strings.HasSuffix(name, "set")
	if v == nil {
		if set {
			return nil, nil
		}
		return [][]types.Value{make([]types.Value, len(names))}, nil
	}
	isJSON := strings.HasPrefix(name, "json_")
	n, err := parseJSON(str(v))
	if err != nil {
		return nil, err
	}
	objs := []*jnode{n}
	if set {
		if n.kind != jArray {
			return nil, unsupported("%s of a value that is not an array", name)
		}
		objs = n.vals
	}
	rows := make([][]types.Value, 0, len(objs))
	for _, o := range objs {
		if o.kind != jObject {
			return nil, unsupported("%s of a value that is not an object", name)
		}
		row := make([]types.Value, len(names))
		for c, col := range names {
			var val *jnode
			for i, k := range o.keys {
				if k == col {
					val = o.vals[i] // the last of duplicate json keys
				}
			}
			if val == nil || val.kind == jNull {
				continue
			}
			s := jsonResult(jsOID, val, true).(string)
			if ts[c] == jsOID || ts[c] == jsbOID {
				s = val.raw
				if isJSON && val.kind == jString {
					s = types.QuoteJSON(val.str)
				}
			}
			x, err := types.In(ts[c], mods[c], s)
			if err != nil {
				return nil, err
			}
			row[c] = x
		}
		rows = append(rows, row)
	}
	return rows, nil
}
