package config

import (
	"errors"

	"github.com/sidecar-dev/sidecar/internal/pgident"
)

// Table is a schema-qualified table name, each part as PostgreSQL stores it
// (unquoted identifiers folded to lower case, as PostgreSQL folds them).
// String prints it as PostgreSQL would, parts quoted only where needed.
type Table = pgident.Table

// ErrBadTableName is in the chain of every ParseTable error, so that a
// caller serving a request can tell the client's malformed name (400)
// from its own failure.
var ErrBadTableName = errors.New("malformed table name")

// badTableName keeps pgident's message and adds ErrBadTableName.
type badTableName struct{ err error }

func (e badTableName) Error() string        { return e.err.Error() }
func (e badTableName) Unwrap() error        { return e.err }
func (e badTableName) Is(target error) bool { return target == ErrBadTableName }

// ParseTable reads `table`, `schema.table`, or either part double-quoted
// (`"My Schema"."Order"`). A name without a schema is in public. The
// grammar is internal/pgident's, shared with preflight, so that `sidecar
// check` and the config loader accept the same names and mean the same tables.
func ParseTable(s string) (Table, error) {
	t, err := pgident.ParseTable(s)
	if err != nil {
		return t, badTableName{err}
	}
	return t, nil
}
