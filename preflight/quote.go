package preflight

import (
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// quoteLiteral makes s a SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
