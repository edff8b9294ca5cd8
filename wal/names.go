package wal

import (
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/internal/pgident"
)

// TableName is a schema-qualified table name, each part as PostgreSQL
// stores it in its catalog (unquoted, case preserved).
type TableName struct {
	Schema, Name string
}

// String is the table's canonical name: pgident.Table's form, each part
// double-quoted only where PostgreSQL needs it (public.accounts,
// public."Accounts", "a.b".c). It is the one spelling of a table
// everywhere a name is a string: the mirror's table key, status, the API's
// table= parameter, the CLI. ParseTableName reads it back, so a key can
// always be split into schema and name, even when a part holds a dot.
func (t TableName) String() string { return pgident.Table{Schema: t.Schema, Name: t.Name}.String() }

// Quoted is the name as an SQL identifier, each part double-quoted.
func (t TableName) Quoted() string { return QuoteIdent(t.Schema) + "." + QuoteIdent(t.Name) }

// ParseTableName reads a table name as a user writes it and as String
// prints it, with PostgreSQL's rules (internal/pgident, the grammar the
// configuration uses): unquoted parts fold A-Z to lower case, quoted parts
// are literal, a dot inside quotes belongs to the name, and a bare name is
// in public. ParseTableName(t.String()) == t for every valid t.
func ParseTableName(s string) (TableName, error) {
	t, err := pgident.ParseTable(s)
	if err != nil {
		return TableName{}, fmt.Errorf("invalid %w", err)
	}
	return TableName{Schema: t.Schema, Name: t.Name}, nil
}

// QuoteIdent quotes an SQL identifier.
func QuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
