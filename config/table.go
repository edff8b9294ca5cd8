package config

import (
	"fmt"
	"strings"
)

// Table is a schema-qualified table name, each part as PostgreSQL stores it
// (unquoted identifiers folded to lower case, as PostgreSQL folds them).
type Table struct {
	Schema string
	Name   string
}

// String renders the name the way PostgreSQL would print it: parts quoted
// only when they need to be.
func (t Table) String() string {
	return quoteIdent(t.Schema) + "." + quoteIdent(t.Name)
}

// ParseTable reads `table`, `schema.table`, or either part double-quoted
// (`"My Schema"."Order"`). A name without a schema is in public.
func ParseTable(s string) (Table, error) {
	parts, err := splitIdents(strings.TrimSpace(s))
	if err != nil {
		return Table{}, fmt.Errorf("table %q: %v", s, err)
	}
	switch len(parts) {
	case 1:
		return Table{Schema: "public", Name: parts[0]}, nil
	case 2:
		return Table{Schema: parts[0], Name: parts[1]}, nil
	default:
		return Table{}, fmt.Errorf("table %q: want schema.table, got %d dotted parts", s, len(parts))
	}
}

func splitIdents(s string) ([]string, error) {
	if s == "" {
		return nil, fmt.Errorf("empty name")
	}
	var parts []string
	for {
		var part string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			i := 1
			closed := false
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					closed = true
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			if !closed {
				return nil, fmt.Errorf("unterminated quoted identifier")
			}
			part, s = b.String(), s[i:]
			if part == "" {
				return nil, fmt.Errorf("empty quoted identifier")
			}
		} else {
			end := strings.IndexByte(s, '.')
			if end < 0 {
				end = len(s)
			}
			part, s = s[:end], s[end:]
			if !plainIdent(part) {
				return nil, fmt.Errorf("%q is not a valid identifier (letters, digits, _ and $, not starting with a digit; double-quote other names)", part)
			}
			part = strings.ToLower(part)
		}
		if len(part) > 63 {
			return nil, fmt.Errorf("identifier %q is longer than 63 bytes", part)
		}
		parts = append(parts, part)
		if s == "" {
			return parts, nil
		}
		if s[0] != '.' {
			return nil, fmt.Errorf("unexpected %q after identifier", s)
		}
		s = s[1:]
		if s == "" {
			return nil, fmt.Errorf("name ends with a dot")
		}
	}
}

func plainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r >= 0x80:
		case (r >= '0' && r <= '9') || r == '$':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// quoteIdent double-quotes s unless PostgreSQL would print it bare.
func quoteIdent(s string) string {
	bare := s != ""
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && (r >= '0' && r <= '9' || r == '$'))) {
			bare = false
			break
		}
	}
	if bare {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
