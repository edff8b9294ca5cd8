// Package pgident reads and prints PostgreSQL identifiers and
// schema-qualified table names the way PostgreSQL's SQL parser does:
// unquoted identifiers fold A-Z to lower case, double-quoted ones are taken
// literally ("" inside quotes is one quote), and a dot separates schema and
// table only outside quotes. Configuration, preflight and every other place
// that reads a table name a user wrote share this one grammar, so that a
// name means the same table everywhere.
package pgident

import (
	"fmt"
	"strings"
)

// MaxLen is the longest identifier PostgreSQL keeps (NAMEDATALEN-1 bytes).
// PostgreSQL silently truncates longer ones, so a longer name would refer to
// a table other than the one written; it is rejected instead.
const MaxLen = 63

// Table is a schema-qualified table name, each part as PostgreSQL stores it
// in its catalog (unquoted identifiers already folded to lower case).
type Table struct {
	Schema string
	Name   string
}

// String renders the name the way PostgreSQL would print it: each part
// quoted only when it needs to be. It is the sidecar's canonical spelling
// of a table (the mirror's key, status, API and CLI names; see
// wal.TableName): ParseTable(t.String()) gives t back for every t
// with non-empty parts of at most MaxLen bytes and no NUL, and two
// different tables never print alike.
func (t Table) String() string {
	return Quote(t.Schema) + "." + Quote(t.Name)
}

// ParseTable reads `table`, `schema.table`, or either part double-quoted
// (`"My Schema"."Order"`), with surrounding white space ignored. A name
// without a schema is in public: it is not resolved through search_path,
// because what the sidecar follows must not depend on session settings.
func ParseTable(s string) (Table, error) {
	parts, err := splitIdents(strings.TrimSpace(s))
	if err != nil {
		return Table{}, fmt.Errorf("table %q: %w", s, err)
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

// splitIdents splits a dotted name into its identifiers, unquoting quoted
// ones and folding unquoted ones to lower case.
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
			if strings.IndexByte(part, 0) >= 0 {
				// PostgreSQL names are C strings: no quoting can carry a NUL.
				return nil, fmt.Errorf("quoted identifier holds a NUL byte")
			}
		} else {
			end := strings.IndexByte(s, '.')
			if end < 0 {
				end = len(s)
			}
			part, s = s[:end], s[end:]
			if !plain(part) {
				return nil, fmt.Errorf("%q is not a valid identifier: one that is not a plain identifier (letters, digits, _ and $, not starting with a digit) must be double-quoted", part)
			}
			part = foldASCII(part)
		}
		if len(part) > MaxLen {
			return nil, fmt.Errorf("identifier %q is longer than %d bytes", part, MaxLen)
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

// foldASCII lowers A-Z only. PostgreSQL's downcase_identifier folds
// non-ASCII letters only in single-byte encodings; in UTF-8 databases an
// unquoted Été names the table "Été", and strings.ToLower would name "été".
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// plain reports whether s may be written without quotes: a letter (any
// case, or any non-ASCII character) or _ first, then letters, digits, _ or $.
func plain(s string) bool {
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

// Quote double-quotes s unless PostgreSQL would read it back unchanged
// without quotes (lower-case letters, digits, _ and $, not starting with a
// digit), so that names print as PostgreSQL prints them and SQL built with
// it can be pasted as is. Reserved words (order, user) are not recognised
// and print bare: SQL that the sidecar executes quotes every identifier.
func Quote(s string) string {
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
