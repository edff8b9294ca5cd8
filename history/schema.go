package history

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSchemaChanged is wrapped by errors about versions of a table whose
// columns differ where an operation needs them equal: a three-way merge
// (and so revert) compares stored rows column by column in position, so
// it cannot combine versions from both sides of an ALTER TABLE that
// added or dropped columns. A diff can (it compares rows by name).
var ErrSchemaChanged = errors.New("schema changed between the versions")

// mergeSide is one input of a three-way merge, for mergeSchemaError.
type mergeSide struct {
	role string // "base", "ours", "theirs"
	ref  string
	t    *tree
}

// mergeSchemaError returns nil when every side of a merge of table that
// exists there has the same columns in the same order, and otherwise an
// error (wrapping ErrBadRequest and ErrSchemaChanged) that names the two
// refs and the columns added and dropped between them. Sides where the
// table did not exist (read as empty) do not count. Types may differ:
// values are compared as text, so a retyped column merges.
//
// Merge and revert call it before merging a table: without it a merge
// across ADD or DROP COLUMN would mix rows of both layouts in its result
// and name their values by the wrong columns.
func mergeSchemaError(table string, sides ...mergeSide) error {
	var first *mergeSide
	for i := range sides {
		s := &sides[i]
		if !s.t.exists {
			continue
		}
		if first == nil {
			first = s
			continue
		}
		if sameLayout(first.t.rel, s.t.rel) {
			continue
		}
		var parts []string
		if sc := schemaChange(first.t.rel, s.t.rel); sc != nil {
			if len(sc.Added) > 0 {
				parts = append(parts, "columns added "+strings.Join(sc.Added, ", "))
			}
			if len(sc.Dropped) > 0 {
				parts = append(parts, "dropped "+strings.Join(sc.Dropped, ", "))
			}
		}
		if len(parts) == 0 {
			parts = append(parts, "columns reordered")
		}
		return fmt.Errorf("merge %s: %w: %w from %s %s to %s %s (%s); a merge or revert needs versions on one side of the ALTER TABLE (sidecar diff compares across it)",
			table, ErrBadRequest, ErrSchemaChanged, first.role, first.ref, s.role, s.ref, strings.Join(parts, "; "))
	}
	return nil
}
