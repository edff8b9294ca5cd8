package history

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
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
// mergeTable calls it before the table's first event: without it a
// merge across ADD or DROP COLUMN would mix rows of both layouts in its
// result and name their values by the wrong columns.
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

// nameMatch compares stored rows of two layouts of a table by the diff
// rule (see Service.Diff) without building Rows: a diff across a schema
// change meets every row of the table, almost all of them equal by name.
// Not safe for concurrent use (it reuses its buffers).
type nameMatch struct {
	from, to *wal.Relation
	fromPos  []int // per column of to: the same-named column of from, -1 if added
	f, t     []value
}

type value struct {
	b    []byte
	null bool
}

func newNameMatch(from, to *wal.Relation) *nameMatch {
	m := &nameMatch{from: from, to: to, fromPos: make([]int, len(to.Columns))}
	for j, c := range to.Columns {
		m.fromPos[j] = -1
		for i, fc := range from.Columns {
			if fc.Name == c.Name {
				m.fromPos[j] = i
				break
			}
		}
	}
	return m
}

func splitRow(dst []value, rel *wal.Relation, row []byte) ([]value, error) {
	dst = dst[:0]
	it := rowenc.NewIter(row)
	for it.Next() {
		dst = append(dst, value{b: it.Value(), null: it.Null()})
	}
	if err := it.Err(); err != nil {
		return dst, fmt.Errorf("decode row of %s: %w", rel.QualifiedName(), err)
	}
	if len(dst) > len(rel.Columns) {
		return dst, widthError(rel, len(dst))
	}
	return dst, nil
}

// equal reports whether f (stored under from's columns) and t (under
// to's) have no difference by name: every column t has equals from's
// same-named one, or is NULL where from has no such column.
func (m *nameMatch) equal(f, t []byte) (bool, error) {
	var err error
	if m.f, err = splitRow(m.f, m.from, f); err != nil {
		return false, err
	}
	if m.t, err = splitRow(m.t, m.to, t); err != nil {
		return false, err
	}
	for j, tv := range m.t {
		p := m.fromPos[j]
		if p < 0 || p >= len(m.f) {
			if !tv.null {
				return false, nil
			}
			continue
		}
		fv := m.f[p]
		if fv.null != tv.null || !bytes.Equal(fv.b, tv.b) {
			return false, nil
		}
	}
	return true, nil
}
