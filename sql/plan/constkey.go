package plan

import pg "github.com/pganalyze/pg_query_go/v6"

// boolKeyIsExpr says whether the constant c, written as a key of ORDER
// BY, GROUP BY or DISTINCT ON, is an expression there rather than a
// position or a 42601 "non-integer constant": TRUE and FALSE before
// PostgreSQL 15, whose grammar made them a cast of a string ('t'::bool,
// makeBoolAConst), which findTargetlistEntrySQL92 does not take for a
// constant. From 15 they are constants (42601), as they are when the
// followed major is not known (the newest's behaviour).
func (b *binder) boolKeyIsExpr(c *pg.A_Const) bool {
	return c.GetBoolval() != nil && b.before15()
}

// before15 says whether the followed major is known and older than 15.
func (b *binder) before15() bool {
	v := b.functions().Version()
	return v > 0 && v < 150000
}

// targetName is the column name of select-list expression n: colName's,
// "bool" for TRUE or FALSE before 15 (a cast to bool there,
// FigureColname's type name; from 15 a constant, "?column?"), at the top
// or as a subquery's column: (SELECT true) is bool on 14.
func (b *binder) targetName(n *pg.Node) string {
	return colName(n, b.before15())
}
