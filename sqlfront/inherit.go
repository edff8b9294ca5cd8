package sqlfront

import (
	"context"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/wal"
)

// Inheritance (issue 21 item 4). PostgreSQL's `FROM parent` reads the
// parent's rows and those of every table inheriting from it, directly or
// not, unless ONLY is written; each descendant's columns are matched to
// the parent's by name (a child may have more). The copy reads a
// followed table's descendants (replication/relmeta.go, refreshed by the
// daemon's catalog poll); a FROM item over a table with descendants reads
// them too when every one holding rows is followed, and is refused with
// 0A000 naming those that are not otherwise. Such an item is read row by
// row (no key pushdown, no query engine: the descendants' keys are their
// own). A partitioned table followed as its root holds its partitions'
// rows already: its Facts list no descendants.

// inheritParts lists the followed tables whose rows `FROM parent` adds to
// the parent's own, and the descendants holding rows that are not
// followed. A followed partitioned descendant (followed as its root)
// stands for its partitions; an unfollowed one is looked through to its
// partitions.
func inheritParts(parent string, f *wal.Facts, followed func(string) bool) (parts, missing []string) {
	if f == nil {
		return nil, nil
	}
	children := map[string][]wal.Descendant{}
	for _, d := range f.Descendants {
		children[d.Parent] = append(children[d.Parent], d)
	}
	seen := map[string]bool{parent: true}
	queue := []string{parent}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range children[cur] {
			if seen[d.Name] {
				continue // inherited twice: read once
			}
			seen[d.Name] = true
			switch {
			case followed(d.Name):
				parts = append(parts, d.Name)
				if d.Kind != 'p' {
					queue = append(queue, d.Name)
				}
			case d.Kind == 'p':
				queue = append(queue, d.Name)
			default:
				missing = append(missing, d.Name)
				queue = append(queue, d.Name) // name its descendants too
			}
		}
	}
	slices.Sort(parts)
	slices.Sort(missing)
	return parts, missing
}

// inheritance marks it as reading t's descendants when rv (not ONLY) names
// a table that has some, or refuses when some are not followed.
func (pl *planner) inheritance(it *fromItem, rv *pg.RangeVar, t *Table) error {
	if t.part != nil { // a partitioned root: row by row, its leaves or nothing (partroot.go)
		it.inherit, it.partOnly = true, !rv.Inh
		return nil
	}
	if !rv.Inh || t.Facts == nil || len(t.Facts.Descendants) == 0 {
		return nil
	}
	if _, missing := inheritParts(t.Name, t.Facts, pl.followed()); len(missing) > 0 {
		return missingDescendants(int(rv.Location), t.Name, missing)
	}
	it.inherit = true
	return nil
}

func missingDescendants(pos int, parent string, missing []string) *Error {
	return unsupported(pos, fmt.Sprintf("reading %s with its descendants (not followed: %s)", parent, strings.Join(missing, ", "))).
		hint(fmt.Sprintf("write FROM ONLY %s for its own rows, or follow %s too", parent, strings.Join(missing, ", ")))
}

// followed reports whether sidecar follows a table (by canonical name).
func (pl *planner) followed() func(string) bool {
	names := map[string]bool{}
	for _, t := range pl.src.Tables() {
		names[t.Name] = true
	}
	return func(n string) bool { return names[n] }
}

// inherits reports whether any FROM item reads descendants: the plan is
// then run row by row (scanItem).
func (p *plan) inherits() bool {
	for _, it := range p.from {
		if it.inherit {
			return true
		}
	}
	return false
}

// sameFacts says whether two descriptions of a table carry the same
// catalog facts (descendants, column collations): a cached plan made
// before an ALTER TABLE … INHERIT or … COLLATE is planned again.
func sameFacts(a, b *Table) bool {
	var da, db []wal.Descendant
	if a.Facts != nil {
		da = a.Facts.Descendants
	}
	if b.Facts != nil {
		db = b.Facts.Descendants
	}
	if !slices.Equal(da, db) || len(a.Columns) != len(b.Columns) || !sameColumnTypes(a, b) {
		return false // unknowntypes.go: a plan refusing or casting by a type's facts
	}
	for i := range a.Columns {
		if a.Columns[i].Collation != b.Columns[i].Collation {
			return false
		}
	}
	return true
}

// scanDescendants reads, after the parent's own rows, the rows of every
// followed descendant of t at v, each mapped to t's columns by name.
func (p *plan) scanDescendants(ex *execCtx, it *fromItem, v Version, t *Table, fn func([]Value) error) error {
	tables := map[string]bool{}
	for _, x := range ex.src.Tables() {
		tables[x.Name] = true
	}
	parts, missing := inheritParts(t.Name, t.Facts, func(n string) bool { return tables[n] })
	if len(missing) > 0 {
		return missingDescendants(-1, t.Name, missing)
	}
	return p.scanMapped(ex, it, v, t, parts, fn)
}

// scanMapped reads the rows of the followed tables names at v, each
// mapped by column name to t's columns: an inheritance parent's
// descendants, a partitioned root's leaves (partroot.go).
func (p *plan) scanMapped(ex *execCtx, it *fromItem, v Version, t *Table, names []string, fn func([]Value) error) error {
	need, raw := p.neededOf(it), p.rawOf(it)
	return mappedRows(ex.ctx, ex.src, v, t, names, func(row []*string) error {
		vals, err := convertRow(t.Columns, row, need, raw)
		if err != nil {
			return err
		}
		return fn(vals)
	})
}

// mappedRows calls fn with each row of the tables names at v, as texts
// in t's column order (matched by name). The row passed is reused.
func mappedRows(ctx context.Context, src Source, v Version, t *Table, names []string, fn func([]*string) error) error {
	for _, name := range names {
		ct, err := src.Table(ctx, v, name)
		if err != nil {
			return fmt.Errorf("%s of %s: %w", name, t.Name, err)
		}
		idx, err := columnMap(t, &ct)
		if err != nil {
			return err
		}
		mapped := make([]*string, len(idx))
		err = src.Scan(ctx, v, &ct, "", "", func(row []*string) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			for i, j := range idx {
				mapped[i] = nil
				if j < len(row) {
					mapped[i] = row[j]
				}
			}
			return fn(mapped)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// columnMap finds each of the parent's columns in a descendant by name
// (PostgreSQL requires the same type there).
func columnMap(parent, child *Table) ([]int, error) {
	idx := make([]int, len(parent.Columns))
	for i, c := range parent.Columns {
		idx[i] = -1
		for j, cc := range child.Columns {
			if cc.Name == c.Name {
				if cc.TypeOID != c.TypeOID {
					return nil, unsupported(-1, fmt.Sprintf("reading %s with its descendant %s, whose column %s has type %s (not %s)", parent.Name, child.Name, c.Name, typeName(cc.TypeOID), typeName(c.TypeOID)))
				}
				idx[i] = j
			}
		}
		if idx[i] < 0 {
			return nil, unsupported(-1, fmt.Sprintf("reading %s with its descendant %s, which has no column %s as sidecar follows it", parent.Name, child.Name, c.Name))
		}
	}
	return idx, nil
}

// partitionedRoot refuses, naming its followed partitions, a partitioned
// table followed as its partitions (it is not a table of the mirror):
// PostgreSQL would answer with all of them, and a partition created since
// may not be followed yet.
func (pl *planner) partitionedRoot(rv *pg.RangeVar, schema string) error {
	name := wal.TableName{Schema: schema, Name: rv.Relname}.String()
	var parts []string
	for _, t := range pl.src.Tables() {
		if t.Facts != nil && t.Facts.PartitionOf == name {
			parts = append(parts, t.Name)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return unsupported(int(rv.Location), fmt.Sprintf("reading the partitioned table %s whole (sidecar follows it as its partitions %s)", name, strings.Join(parts, ", "))).
		hint("read its partitions, e.g. FROM " + parts[0])
}
