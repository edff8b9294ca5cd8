package sqlfront

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sidecar-dev/sidecar/internal/pgast"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// Result columns' origins on the engine path (RowDescription's table
// OID and attribute number). PostgreSQL sets them when it analyses the
// target list (markTargetListOrigins), before the rewriter expands
// views: a target that is a plain column of a table gives the table and
// the column's attnum, of a view the view and its column's position, of
// a subquery or join in FROM the origin of the column it passes; any
// other target 0/0. pgjdbc's getTableName, getColumnName, isNullable and
// isAutoIncrement read them. The engine path said 0/0 for every column.
//
// Here: a result column that is a scan's column of a followed table
// (the binder's column IDs pass unchanged through projections, joins,
// subqueries in FROM, grouping and sorting) has that table and attnum;
// one that is a view's output column (the binder reports each view's
// columns as it expands it, innermost first, so the outermost view
// referenced wins) has the view's OID and position. Columns the binder
// numbers anew (expressions, aggregates, set operations, CTE
// references, VALUES) keep 0/0; where PostgreSQL still names an origin
// for one (a CTE's column) the answer stays 0/0 as before. A system
// catalog's column has its table OID and attnum (catalogOrigin; the
// catalog views' stay 0/0). The binder reads a unary plus and a
// COLLATE clause as their operand, where PostgreSQL has an operator and
// a CollateExpr (no origin): a statement holding one keeps 0/0 for
// every column, as before, rather than name an origin PostgreSQL does
// not.

// colOrigin is a result column's table OID and attnum.
type colOrigin struct {
	table  uint32
	attnum int16
}

// viewColumns records, for each column ID a view's expansion outputs,
// the view's OID and the column's position (lplan.ViewDef.Bound). An ID
// a view outputs at two positions (CREATE VIEW v AS SELECT a, a AS b)
// has no single origin: conflict.
type viewColumns struct {
	of       map[lplan.ColumnID]colOrigin
	conflict map[lplan.ColumnID]bool
}

// bound notes view viewOID's output columns cols.
func (v *viewColumns) bound(viewOID uint32, cols []lplan.ColumnID) {
	if v.of == nil {
		v.of, v.conflict = map[lplan.ColumnID]colOrigin{}, map[lplan.ColumnID]bool{}
	}
	count := map[lplan.ColumnID]int{}
	for _, id := range cols {
		count[id]++
	}
	for i, id := range cols {
		if count[id] > 1 {
			v.conflict[id] = true
			continue
		}
		delete(v.conflict, id) // an outer view's one position replaces an inner view's two
		v.of[id] = colOrigin{viewOID, int16(i + 1)}
	}
}

// resultOrigins are the origins of q's result columns (bound from stmt,
// not yet optimized); an error when one is a view column of no single
// position.
func (c *vecCatalog) resultOrigins(stmt *pg.Node, q *lplan.Query) ([]colOrigin, error) {
	cols := q.Plan.Columns()
	out := make([]colOrigin, len(cols))
	if readsAsOperand(stmt) {
		return out, nil
	}
	scanCols := map[lplan.ColumnID]colOrigin{}
	var walk func(r lplan.Rel)
	walk = func(r lplan.Rel) {
		if s, ok := r.(*lplan.Scan); ok {
			if t := c.tables[s.Table]; t != nil {
				for i, id := range s.Cols {
					scanCols[id] = colOrigin{t.OID, wireAttnum(t, int16(s.Ords[i]+1))} // catalog_columns.go
				}
			}
			if v := c.virt[s.Table]; v != nil {
				for i, id := range s.Cols {
					scanCols[id] = c.catalogOrigin(v.rel, s.Ords[i])
				}
			}
			return
		}
		for _, in := range r.Inputs() {
			walk(in)
		}
	}
	walk(q.Plan)
	for i, id := range cols {
		if c.viewCols.conflict[id] {
			return nil, unsupported(-1, "the result column "+q.Names[i]+" (a view's column at two positions of the view: PostgreSQL describes each by its own)")
		}
		if o, ok := c.viewCols.of[id]; ok {
			out[i] = o
		} else {
			out[i] = scanCols[id]
		}
	}
	return out, nil
}

// readsAsOperand says whether stmt holds a unary plus or a COLLATE
// clause, which the binder reads as their operand.
func readsAsOperand(stmt *pg.Node) bool {
	found := false
	pgast.Walk(stmt.ProtoReflect(), func(m protoreflect.Message) bool {
		switch x := m.Interface().(type) {
		case *pg.CollateClause:
			found = true
		case *pg.A_Expr:
			if x.Kind == pg.A_Expr_Kind_AEXPR_OP && x.Lexpr == nil && len(x.Name) == 1 && x.Name[0].GetString_().GetSval() == "+" {
				found = true
			}
		}
		return !found
	})
	return found
}

// catalogOrigin is the origin of column ord of the catalog relation r
// as the binder scans it (its layout for the followed major): a system
// catalog's table OID and the column's attnum, as PostgreSQL names them
// (pgjdbc's getTableName of psql's and the BI tools' catalog queries);
// 0/0 for a system column, for a view (pg_tables, pg_roles,
// information_schema's: their OIDs are initdb's, not read) and when the
// major was not read for a relation whose columns differ by major.
func (c *vecCatalog) catalogOrigin(r *pgRel, ord int) colOrigin {
	oid, ok := catalogTableOIDs[r.name]
	if !ok || r.schema != "pg_catalog" || ord < 0 || ord >= len(r.cols) || r.cols[ord].system {
		return colOrigin{}
	}
	if len(majorLayouts[r.name]) > 0 && serverVersion(c.pl.src.Tables()) == 0 {
		return colOrigin{}
	}
	return colOrigin{oid, int16(ord + 1)}
}
