package config

import "github.com/sidecar-dev/sidecar/internal/pgident"

// Table is a schema-qualified table name, each part as PostgreSQL stores it
// (unquoted identifiers folded to lower case, as PostgreSQL folds them).
// String prints it as PostgreSQL would, parts quoted only where needed.
type Table = pgident.Table

// ParseTable reads `table`, `schema.table`, or either part double-quoted
// (`"My Schema"."Order"`). A name without a schema is in public. The
// grammar is internal/pgident's, shared with preflight, so that `sidecar
// check` and the config loader accept the same names and mean the same tables.
func ParseTable(s string) (Table, error) { return pgident.ParseTable(s) }
