package sqlfront

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sidecar-dev/sidecar/internal/pgast"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/wal"
)

// psql writes its name patterns as `relname OPERATOR(pg_catalog.~)
// '^(things)$' COLLATE pg_catalog.default` (\d s.things, \dt s.*).
// sql/plan binds COLLATE pg_catalog.default as its argument; the
// answer is PostgreSQL's when the database default is byte order (as
// sidecar compares), and, under any other deterministic default, for a
// case-sensitive regular expression match whose pattern is a constant
// without bracket expressions or escapes (literal characters, anchors,
// groups, alternation, quantifiers and `.` match the same under every
// locale; classes and case folding are the locale's). Anything else
// naming it is refused with 0A000.

// defaultCollateCheck refuses stmt where COLLATE pg_catalog.default
// could change the answer under the database's default collation.
func (pl *planner) defaultCollateCheck(stmt *pg.Node, tables map[*lplan.TableDef]*Table) error {
	def := pl.vecDefaultCollation(tables)
	if def.Order == wal.CollBytes {
		return nil
	}
	safe := map[*pg.CollateClause]bool{}
	var named *pg.CollateClause
	pgast.Walk(stmt.ProtoReflect(), func(m protoreflect.Message) bool {
		switch x := m.Interface().(type) {
		case *pg.A_Expr:
			if cc := x.GetRexpr().GetCollateClause(); cc != nil && x.Kind == pg.A_Expr_Kind_AEXPR_OP && literalRegexMatch(x.Name) && literalPattern(cc.Arg) {
				safe[cc] = true
			}
		case *pg.CollateClause:
			if lplan.IsDefaultCollation(x) && !safe[x] && named == nil {
				named = x
			}
		}
		return true
	})
	if named == nil {
		return nil
	}
	return unsupported(int(named.Location), fmt.Sprintf("COLLATE pg_catalog.default other than on a literal regular expression pattern under the database's collation (%s)",
		strings.TrimSpace(def.Locale)))
}

// literalRegexMatch says whether an operator name is ~ or !~ (possibly
// OPERATOR(pg_catalog.…)).
func literalRegexMatch(name []*pg.Node) bool {
	if len(name) == 0 {
		return false
	}
	if len(name) == 2 && name[0].GetString_().GetSval() != "pg_catalog" {
		return false
	}
	op := name[len(name)-1].GetString_().GetSval()
	return op == "~" || op == "!~"
}

// literalPattern says whether n is a string constant holding no bracket
// expression and no escape.
func literalPattern(n *pg.Node) bool {
	c := n.GetAConst()
	if c == nil || c.GetSval() == nil {
		return false
	}
	return !strings.ContainsAny(c.GetSval().GetSval(), `\[`)
}
