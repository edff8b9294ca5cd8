package sqlfront

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sidecar-dev/sidecar/internal/pgast"
)

// Partitioned roots on the sql/exec path (partroot.go): the catalog
// (vecCatalog.Table → planner.table) describes a root as a relation with
// the root's columns and no key; vecSource scans it as the union of its
// leaves, as texts mapped to the root's columns. sql/plan's binder does
// not tell FROM ONLY from FROM, so a statement naming a root with ONLY
// is refused here (the flat planner answers it alone: no rows).

// onlyPartRoot refuses stmt when it reads a partitioned root with ONLY.
func (pl *planner) onlyPartRoot(stmt *pg.Node) error {
	return eachRangeVar(stmt, func(rv *pg.RangeVar) error {
		if !rv.Inh {
			schema := rv.Schemaname
			if schema == "" {
				schema = pl.unqualifiedSchema(rv.Relname) // searchpath.go
			}
			if t, _ := pl.partRootTable(rv, schema, ""); t != nil {
				return unsupported(int(rv.Location), "FROM ONLY "+t.Name+" (a partitioned table) with joins, subqueries, CTEs or set operations").
					hint("FROM ONLY over a partitioned table reads no rows")
			}
		}
		return nil
	})
}

// eachRangeVar calls fn for every table reference of stmt until one
// returns an error, which it returns.
func eachRangeVar(stmt *pg.Node, fn func(rv *pg.RangeVar) error) error {
	var err error
	pgast.Walk(stmt.ProtoReflect(), func(m protoreflect.Message) bool {
		if err != nil {
			return false
		}
		rv, ok := m.Interface().(*pg.RangeVar)
		if !ok {
			return true
		}
		err = fn(rv)
		return false
	})
	return err
}

// scanPartRoot reads a partitioned root planned as t for sql/exec at the
// statement's version, or at ref when the reference was written with
// AS OF ref (vexec_asof.go): its leaves' rows in t's column order.
func (s *vecSource) scanPartRoot(ctx context.Context, t *Table, ref string, fn func(row []*string) error) error {
	v, err := s.ex.sess.versionFor(ctx, ref)
	if err != nil {
		return err
	}
	prs, ok := s.ex.src.(partRootSource)
	if !ok {
		return errReplan
	}
	pr, err := prs.PartRoot(ctx, v, t.Name)
	if err != nil {
		return err
	}
	if pr == nil || !sameColumns(partRootAsTable(pr, s.ex.src.Tables()), t) {
		return errReplan
	}
	leaves, err := partLeavesOf(pr, s.ex.src.Tables(), -1)
	if err != nil {
		return err
	}
	return mappedRows(ctx, s.ex.src, v, t, leaves, fn)
}
