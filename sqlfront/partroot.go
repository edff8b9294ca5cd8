package sqlfront

import (
	"context"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/sidecar-dev/sidecar/wal"
)

// Partitioned roots (issue 21 item 4). A partitioned table followed as
// its leaf partitions is not a table of the mirror; the mirror records
// its columns and leaf set per version (mirror/partroot.go, refreshed by
// the daemon's catalog poll). `FROM root` reads, as PostgreSQL does, the
// rows of every leaf (at every level) mapped by column name to the
// root's column order — a leaf may order its columns differently or
// have dropped some in PostgreSQL — and `FROM ONLY root` reads none (a
// partitioned table holds no rows of its own). When a leaf is not
// followed (a foreign table, a partition not copied yet) the statement
// is refused with 0A000 naming it; when the mirror has no record of the
// root at the version read (a data directory written before, AS OF an
// older version), as before, naming the partitions.
//
// Such an item is read row by row like an inheritance parent (no key
// pushdown, no query engine). On the sql/exec path the root is a
// relation of its own whose scan is the same union (vexec.go's
// catalog and source).

// partRootSource is implemented by sources that know partitioned roots.
type partRootSource interface {
	// PartRoot returns the record of the partitioned root name at v
	// (nil when none).
	PartRoot(ctx context.Context, v Version, name string) (*wal.PartRoot, error)
}

// PartRoot implements partRootSource: the mirror's record as of the
// version read. A branch is read from the commit it came from.
func (s *HistorySource) PartRoot(ctx context.Context, v Version, name string) (*wal.PartRoot, error) {
	lsn := v.at
	if lsn == 0 {
		var err error
		if lsn, err = wal.ParseLSN(v.LSN); err != nil {
			return nil, nil
		}
	}
	return s.M.PartRootAt(name, lsn)
}

// partRootTable describes the partitioned root rv names at the version
// it is read as a Table (its part set), or returns nil when the source
// has no record of one there.
func (pl *planner) partRootTable(rv *pg.RangeVar, schema, asOf string) (*Table, error) {
	prs, ok := pl.src.(partRootSource)
	if !ok {
		return nil, nil
	}
	v, err := pl.sess.versionFor(pl.ctx, asOf)
	if err != nil {
		return nil, withPos(err, int(rv.Location))
	}
	name := wal.TableName{Schema: schema, Name: rv.Relname}.String()
	pr, err := prs.PartRoot(pl.ctx, v, name)
	if err != nil || pr == nil {
		return nil, err
	}
	if _, err := partLeavesOf(pr, pl.src.Tables(), int(rv.Location)); err != nil {
		return nil, err
	}
	return partRootAsTable(pr, pl.src.Tables()), nil
}

// partRootAsTable is the Table a root reads as: the root's columns, no
// key, the facts of a partitioned table (the database default collation
// as a followed table's facts record it).
func partRootAsTable(pr *wal.PartRoot, followed []Table) *Table {
	tn, _ := wal.ParseTableName(pr.Name)
	f := &wal.Facts{Kind: 'p'}
	for _, t := range followed {
		if t.Facts != nil {
			f.Default = t.Facts.Default
			break
		}
	}
	rel := &wal.Relation{Schema: tn.Schema, Name: tn.Name, Columns: pr.Columns, Facts: f}
	t := tableOf(rel)
	t.part = pr
	return &t
}

// partLeavesOf returns the root's leaves, refusing with 0A000 when one
// is not a table the mirror follows.
func partLeavesOf(pr *wal.PartRoot, followed []Table, pos int) ([]string, error) {
	have := map[string]bool{}
	for _, t := range followed {
		have[t.Name] = true
	}
	var missing []string
	for i, l := range pr.Leaves {
		if pr.LeafKinds[i] != 'r' || !have[l] {
			missing = append(missing, l)
		}
	}
	if len(missing) > 0 {
		return nil, unsupported(pos, fmt.Sprintf("reading the partitioned table %s (its partitions %s are not followed or not copied yet)", pr.Name, strings.Join(missing, ", "))).
			hint("read its other partitions by name, or follow these and wait for their copy")
	}
	return pr.Leaves, nil
}

// scanPartRoot reads a partitioned root's item at v: nothing for FROM
// ONLY, else every leaf's rows mapped to the root's columns.
func (p *plan) scanPartRoot(ex *execCtx, it *fromItem, v Version, fn func([]Value) error) error {
	if it.partOnly {
		return nil
	}
	prs, ok := ex.src.(partRootSource)
	if !ok {
		return errReplan
	}
	pr, err := prs.PartRoot(ex.ctx, v, it.table.Name)
	if err != nil {
		return err
	}
	if pr == nil {
		return errReplan
	}
	cur := partRootAsTable(pr, ex.src.Tables())
	if !sameColumns(cur, it.table) {
		return errReplan
	}
	leaves, err := partLeavesOf(pr, ex.src.Tables(), -1)
	if err != nil {
		return err
	}
	return p.scanMapped(ex, it, v, it.table, leaves, fn)
}
