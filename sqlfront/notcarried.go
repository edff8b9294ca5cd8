package sqlfront

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sidecar-dev/sidecar/internal/pgast"
	"github.com/sidecar-dev/sidecar/internal/pgident"
)

// Columns the stream does not carry (wal.Facts.NotCarried): a table's
// generated columns. pgoutput never sends them (before PostgreSQL 18, and
// by default from 18) and COPY TO leaves them out, so the mirror has the
// table without them. A statement that would show one — by name, through
// `*` or a whole-row reference, or by joining on it (NATURAL, USING) — is
// refused with 0A000 naming the column: answering it without the column
// (SELECT * one column short) or failing 42703 "does not exist" would
// not be PostgreSQL's answer. A statement that names only other columns
// is answered.

// notCarriedTable is a table a statement reads that has columns the
// stream does not carry.
type notCarriedTable struct {
	table   string   // canonical name
	missing []string // wal.Facts.NotCarried
}

// notCarriedRefusal refuses stmt when it reads a table with columns the
// stream does not carry in a way that could show them. The check is on
// the statement's text (names, not bindings), so it may refuse a
// statement whose `*` or name belongs to another relation: a refusal,
// never a different answer.
func (pl *planner) notCarriedRefusal(stmt *pg.Node) error {
	byAlias := map[string]notCarriedTable{}
	var tables []notCarriedTable
	_ = eachRangeVar(stmt, func(rv *pg.RangeVar) error { // partroot_vec.go
		t, err := pl.table(rv, pl.asOf[int(rv.Location)])
		if err != nil || t == nil || t.Facts == nil || len(t.Facts.NotCarried) == 0 {
			return nil // a CTE's name, or a table the planners report
		}
		r := notCarriedTable{table: t.Name, missing: t.Facts.NotCarried}
		alias := rv.Relname
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		byAlias[alias] = r
		tables = append(tables, r)
		return nil
	})
	if len(tables) == 0 {
		return nil
	}
	var refusal error
	pgast.Walk(stmt.ProtoReflect(), func(m protoreflect.Message) bool {
		if refusal != nil {
			return false
		}
		switch n := m.Interface().(type) {
		case *pg.ColumnRef:
			refusal = notCarriedRef(n, byAlias, tables)
		case *pg.JoinExpr:
			if n.IsNatural {
				refusal = notCarriedError(int(n.Rarg.GetRangeVar().GetLocation()), tables[0], "NATURAL JOIN with")
				break
			}
			for _, u := range n.UsingClause {
				for _, r := range tables {
					if slices.Contains(r.missing, u.GetString_().GetSval()) {
						refusal = notCarriedColumn(-1, r, u.GetString_().GetSval())
					}
				}
			}
		}
		return refusal == nil
	})
	return refusal
}

// notCarriedRef refuses a column reference that could show a column the
// stream does not carry: its name, `*` (unqualified, or qualified by such
// a table), or the table's whole row.
func notCarriedRef(c *pg.ColumnRef, byAlias map[string]notCarriedTable, tables []notCarriedTable) error {
	f := c.Fields
	if len(f) == 0 {
		return nil
	}
	pos := int(c.Location)
	last := f[len(f)-1]
	if last.GetAStar() != nil {
		if len(f) == 1 {
			return notCarriedError(pos, tables[0], "* over")
		}
		if r, ok := byAlias[f[len(f)-2].GetString_().GetSval()]; ok {
			return notCarriedError(pos, r, "* over")
		}
		return nil
	}
	name := last.GetString_().GetSval()
	for _, r := range tables {
		if slices.Contains(r.missing, name) {
			return notCarriedColumn(pos, r, name)
		}
	}
	if r, ok := byAlias[name]; ok && len(f) == 1 {
		return notCarriedError(pos, r, "the whole row of")
	}
	return nil
}

// notCarriedColumn refuses a reference to the column name of r.
func notCarriedColumn(pos int, r notCarriedTable, name string) error {
	return unsupported(pos, fmt.Sprintf("column %s of %s, a generated column: logical replication does not carry generated columns, so the mirror has no values for it", pgident.Quote(name), r.table)).
		hint("select the table's other columns by name")
}

// notCarriedError refuses a construct (`*`, a whole-row reference, a
// NATURAL JOIN) that would show r's columns the stream does not carry.
func notCarriedError(pos int, r notCarriedTable, construct string) error {
	return unsupported(pos, fmt.Sprintf("%s %s, whose generated column%s %s logical replication does not carry (the mirror has no values for %s)",
		construct, r.table, suffixS(len(r.missing)), strings.Join(r.missing, ", "), itThem(len(r.missing)))).
		hint("name the columns you need instead of " + strings.TrimSuffix(strings.TrimSuffix(construct, " over"), " with"))
}

func suffixS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
