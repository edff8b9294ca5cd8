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

// quoteLiteral quotes an SQL string literal (standard_conforming_strings on,
// which is the only setting PostgreSQL 15 allows to be relied on here).
func quoteLiteral(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}
