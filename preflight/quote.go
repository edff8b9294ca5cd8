package preflight

import (
	"fmt"
	"strconv"
	"strings"
)

func itoa(n int) string { return strconv.Itoa(n) }

// quoteIdent double-quotes s unless PostgreSQL would accept it bare, so that
// the SQL in a Fix can be pasted as is.
func quoteIdent(s string) string {
	bare := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '$')) {
			bare = false
			break
		}
	}
	if bare {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral makes s a SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// tableName is a configured table, each part as PostgreSQL stores it.
type tableName struct {
	schema, name string
}

// String is the name as PostgreSQL prints it, quoted where needed.
func (t tableName) String() string { return quoteIdent(t.schema) + "." + quoteIdent(t.name) }

// parseTable reads "table", "schema.table", with either part optionally
// double-quoted ("" inside quotes is a quote). Unquoted parts are folded to
// lower case, as PostgreSQL folds them; a name without a schema is in public
// (not resolved through search_path: the sidecar's meaning must not depend
// on session settings).
func parseTable(s string) (tableName, error) {
	var parts []string
	rest := strings.TrimSpace(s)
	for {
		var part string
		if strings.HasPrefix(rest, `"`) {
			var b strings.Builder
			i, closed := 1, false
			for i < len(rest) {
				if rest[i] == '"' {
					if i+1 < len(rest) && rest[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					closed = true
					i++
					break
				}
				b.WriteByte(rest[i])
				i++
			}
			if !closed || b.Len() == 0 {
				return tableName{}, fmt.Errorf("table %q: unterminated or empty quoted identifier", s)
			}
			part, rest = b.String(), rest[i:]
		} else {
			end := strings.IndexByte(rest, '.')
			if end < 0 {
				end = len(rest)
			}
			part, rest = rest[:end], rest[end:]
			if !plainIdent(part) {
				return tableName{}, fmt.Errorf("table %q: %q is not a plain identifier (double-quote names with other characters)", s, part)
			}
			part = strings.ToLower(part)
		}
		parts = append(parts, part)
		if rest == "" {
			break
		}
		if rest[0] != '.' || len(rest) == 1 {
			return tableName{}, fmt.Errorf("table %q: want schema.table", s)
		}
		rest = rest[1:]
	}
	switch len(parts) {
	case 1:
		return tableName{"public", parts[0]}, nil
	case 2:
		return tableName{parts[0], parts[1]}, nil
	}
	return tableName{}, fmt.Errorf("table %q: want schema.table, got %d dotted parts", s, len(parts))
}

func plainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80:
		case r >= '0' && r <= '9' || r == '$':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
