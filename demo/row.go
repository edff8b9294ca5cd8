package demo

import (
	"strings"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// rowText renders a stored row for the narrative: (a, b, NULL).
func rowText(row []byte) string {
	vals, err := rowenc.Decode(row)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		if v == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = string(v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
