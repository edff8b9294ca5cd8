package builtin

import (
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// Records as JSON (composite_to_json): an object of the record's fields,
// keyed by their names (f1, f2, … for an anonymous ROW(…)), each value
// converted by its own type; json prints it without blanks
// ({"a":1,"b":"x"}), with ",\n " between fields for row_to_json's
// pretty form.

// addJSONRecord registers row_to_json(record [, bool]).
func (r *Registry) addJSONRecord() {
	r.def("row_to_json", jsOID, func(c *Context, a []types.Value, p []OID) (types.Value, error) {
		n, err := recordNode(a[0].(*types.Record), zoneOf(c), false)
		if err != nil {
			return nil, err
		}
		return n.raw, nil
	}, types.RecordOID).stable()
	r.def("row_to_json", jsOID, func(c *Context, a []types.Value, p []OID) (types.Value, error) {
		n, err := recordNode(a[0].(*types.Record), zoneOf(c), a[1].(bool))
		if err != nil {
			return nil, err
		}
		return n.raw, nil
	}, types.RecordOID, bo).stable()
}

// recordNode is r as a JSON object; pretty puts each field after the
// first on a line of its own (row_to_json's pretty_bool).
func recordNode(r *types.Record, z *types.Zone, pretty bool) (*jnode, error) {
	obj := &jnode{kind: jObject}
	var raw strings.Builder
	raw.WriteByte('{')
	for i, fv := range r.Fields {
		name := "f" + strconv.Itoa(i+1)
		if i < len(r.Names) && r.Names[i] != "" {
			name = r.Names[i]
		}
		n, err := sqlNode(fv, r.Types[i], z)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			raw.WriteByte(',')
			if pretty {
				raw.WriteString("\n ")
			}
		}
		escapeJSON(&raw, name)
		raw.WriteByte(':')
		raw.WriteString(builtValue(n))
		obj.keys = append(obj.keys, name)
		obj.vals = append(obj.vals, n)
	}
	raw.WriteByte('}')
	obj.raw = raw.String()
	return obj, nil
}
