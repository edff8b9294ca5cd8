package replication

import (
	"fmt"
	"regexp"
	"strings"
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

// TableName is a schema-qualified table name, unquoted.
type TableName struct {
	Schema, Name string
}

// String is "schema.name" as written in configuration.
func (t TableName) String() string { return t.Schema + "." + t.Name }

// Quoted is the name as an SQL identifier, each part double-quoted.
func (t TableName) Quoted() string { return QuoteIdent(t.Schema) + "." + QuoteIdent(t.Name) }

// ParseTableName parses "schema.table" as TableName.String prints it: the
// mirror's table key, not SQL. Both parts are required and taken literally
// (case-sensitive, no quoting syntax); a part may not be empty or contain a
// dot or a NUL, since the key could not be split back. Quoted() makes any
// other character safe in SQL. Names as users write them (quoting, case
// folding) are read by config.ParseTable (internal/pgident) instead; a
// table whose name holds a dot can be configured there but has no key here.
func ParseTableName(s string) (TableName, error) {
	schema, name, ok := strings.Cut(s, ".")
	if !ok {
		return TableName{}, fmt.Errorf("invalid table %q: want schema.table", s)
	}
	for _, p := range []string{schema, name} {
		if p == "" || len(p) > 63 || strings.ContainsAny(p, ".\x00") {
			return TableName{}, fmt.Errorf("invalid table %q: want schema.table, each part 1-63 bytes without '.' or NUL", s)
		}
	}
	return TableName{Schema: schema, Name: name}, nil
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
