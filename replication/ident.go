package replication

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sidecar-dev/sidecar/internal/pgident"
)

// slotNameRE is what PostgreSQL accepts for replication slot names
// (ReplicationSlotValidateName), capped at NAMEDATALEN-1. The replication
// protocol takes slot names unquoted, so nothing else may get through.
var slotNameRE = regexp.MustCompile(`^[a-z0-9_]{1,63}$`)

// ValidateSlotName checks a replication slot name.
func ValidateSlotName(name string) error {
	if !slotNameRE.MatchString(name) {
		return fmt.Errorf("invalid slot name %q: use 1-63 characters of a-z, 0-9 and _", name)
	}
	return nil
}

// ValidatePublicationName checks a publication name. It is quoted wherever
// it is used, but kept to the same safe alphabet as slot names so that it
// can be passed in START_REPLICATION options without escaping surprises.
func ValidatePublicationName(name string) error {
	if !slotNameRE.MatchString(name) {
		return fmt.Errorf("invalid publication name %q: use 1-63 characters of a-z, 0-9 and _", name)
	}
	return nil
}

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

// quoteLiteral quotes an SQL string literal (standard_conforming_strings on,
// which is the only setting PostgreSQL 15 allows to be relied on here).
func quoteLiteral(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}
