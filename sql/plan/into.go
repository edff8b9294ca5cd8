package plan

import pg "github.com/pganalyze/pg_query_go/v6"

// CodeReadOnly is PostgreSQL's read_only_sql_transaction: a statement
// that would write (SELECT … INTO creates a table).
const CodeReadOnly = "25006"

// checkInto raises what PostgreSQL's parse analysis raises for an INTO
// clause of sel. Only the statement's own SELECT (or the leftmost SELECT
// of its set operation) may carry INTO: it makes the statement a CREATE
// TABLE AS, which the read-only mirror refuses as a read-only standby
// does (25006). Anywhere else — a subquery, a CTE, a branch of a set
// operation — PostgreSQL fails 42601 before running anything
// (transformSelectStmt, transformSetOperationStmt/Tree), so the binder
// must too instead of silently dropping the clause.
func (b *binder) checkInto(sel *pg.SelectStmt, root bool) error {
	if sel == nil {
		return nil
	}
	if sel.Op == pg.SetOperation_SETOP_NONE || sel.Op == pg.SetOperation_SET_OPERATION_UNDEFINED {
		if sel.IntoClause == nil {
			return nil
		}
		if root {
			return errorf(CodeReadOnly, "cannot execute SELECT INTO in a read-only transaction")
		}
		return errorf(CodeSyntax, "SELECT ... INTO is not allowed here").at(intoLoc(sel.IntoClause))
	}
	left := sel.Larg
	for left != nil && left.Op != pg.SetOperation_SETOP_NONE && left.Op != pg.SetOperation_SET_OPERATION_UNDEFINED {
		left = left.Larg
	}
	if left != nil && left.IntoClause != nil && !root {
		return errorf(CodeSyntax, "SELECT ... INTO is not allowed here").at(intoLoc(left.IntoClause))
	}
	if err := laterInto(sel, left); err != nil {
		return err
	}
	if left != nil && left.IntoClause != nil {
		return errorf(CodeReadOnly, "cannot execute SELECT INTO in a read-only transaction")
	}
	return nil
}

// laterInto finds an INTO on a SELECT of a set operation other than its
// leftmost one (left), in PostgreSQL's order (left branch first).
func laterInto(sel, left *pg.SelectStmt) error {
	if sel == nil {
		return nil
	}
	if sel != left && sel.IntoClause != nil {
		return errorf(CodeSyntax, "INTO is only allowed on first SELECT of UNION/INTERSECT/EXCEPT").at(intoLoc(sel.IntoClause))
	}
	if err := laterInto(sel.Larg, left); err != nil {
		return err
	}
	return laterInto(sel.Rarg, left)
}

// intoLoc is PostgreSQL's exprLocation of an IntoClause: its table's.
func intoLoc(in *pg.IntoClause) int32 {
	if in.Rel == nil {
		return -1
	}
	return in.Rel.Location
}
