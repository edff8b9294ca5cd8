// How a patch quotes: table and type names, values as cast literals, and
// names inside its comments.

package history

import (
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgident"
)

// ErrNUL is wrapped by errors about a value holding a NUL byte, which no
// PostgreSQL text value can hold and no literal can carry.
var ErrNUL = errors.New("value holds a NUL byte")

// QuoteTable quotes a table's canonical name (the mirror's key, as
// wal.TableName.String prints it: public.accounts,
// public."Accounts", "a.b".c) as SQL, every part double-quoted. A name not
// in canonical form is a key written before keys were quoted ("schema.name"
// taken literally): it is split at its first dot as it was written then,
// so a patch from such a mirror still names the right table.
func QuoteTable(name string) string {
	if t, err := pgident.ParseTable(name); err == nil && t.String() == name {
		return pgx.Identifier{t.Schema, t.Name}.Sanitize()
	}
	schema, rest, ok := strings.Cut(name, ".")
	if !ok {
		return pgx.Identifier{name}.Sanitize()
	}
	return pgx.Identifier{schema, rest}.Sanitize()
}

// quoteType quotes a Column.Type: a catalog type name, schema-qualified
// unless in pg_catalog. bit is cast as varbit: a bare ::bit means bit(1),
// and varbit assigns to any bit(n) column.
func quoteType(t string) string {
	switch t {
	case "bit":
		t = "varbit"
	case "_bit":
		t = "_varbit"
	}
	if schema, name, ok := strings.Cut(t, "."); ok {
		return pgx.Identifier{schema, name}.Sanitize()
	}
	return pgx.Identifier{t}.Sanitize()
}

// Literal renders v as a SQL literal cast to typ; nil is NULL.
func Literal(v *string, typ string) (string, error) {
	if v == nil {
		return "NULL", nil
	}
	s := *v
	if strings.IndexByte(s, 0) >= 0 {
		return "", ErrNUL
	}
	q := strings.ReplaceAll(s, "'", "''")
	if strings.Contains(s, `\`) {
		q = "E'" + strings.ReplaceAll(q, `\`, `\\`) + "'"
	} else {
		q = "'" + q + "'"
	}
	return q + "::" + quoteType(typ), nil
}

// commentSafe escapes control characters (a newline would end a "--"
// comment) as Go escapes.
func commentSafe(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
