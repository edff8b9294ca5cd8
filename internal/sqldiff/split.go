// Package sqldiff is the differential harness of issue 22 item 6: it runs
// SQL statements against PostgreSQL and against the sidecar's SQL port on
// the same data and classifies every answer (identical, refused with a
// SQLSTATE, different, error mismatch). It is black-box: it talks to the
// two servers over the wire protocol only, so it keeps working while the
// engine behind the SQL port is rewritten.
package sqldiff

import (
	"regexp"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Kind is what the harness does with a statement of a script.
type Kind int

const (
	// Setup statements (DDL, DML) run on PostgreSQL only, before the
	// sidecar follows the database.
	Setup Kind = iota
	// Query statements (SELECT, VALUES, WITH without data changes) run on
	// both servers and are compared.
	Query
	// Set statements (SET, RESET) run on both sessions, in order, before
	// the queries that follow them.
	Set
	// Skip statements are neither: transaction control, EXPLAIN, DROP
	// (the queries run after the whole setup, so the tables they read
	// must survive it), cursors, prepared statements.
	Skip
)

func (k Kind) String() string {
	return [...]string{"setup", "query", "set", "skip"}[k]
}

// Statement is one statement of a script.
type Statement struct {
	SQL  string
	Line int // 1-based line of its first character in the script
	Kind Kind
	// Ordered: the top level has ORDER BY, so rows compare in order
	// (ties may still be reordered; see Outcome OrderOnly).
	Ordered bool
	// Volatile: the statement calls a function whose answer changes
	// between calls (random(), now(), …); it is not compared.
	Volatile bool
}

// volatileCall names functions whose results differ between two runs.
var volatileCall = regexp.MustCompile(`(?i)\b(random|setseed|now|clock_timestamp|statement_timestamp|timeofday|txid_current|pg_backend_pid|nextval|setval|currval|gen_random_uuid|current_timestamp|localtimestamp|transaction_timestamp|pg_sleep)\b`)

// Split cuts a psql script into statements and classifies each. psql
// meta-commands (lines starting with a backslash) are dropped; so is a
// trailing meta-command on a statement's last line (`… \gset`).
func Split(script string) ([]Statement, error) {
	lines := strings.Split(script, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, `\`) {
			lines[i] = ""
			continue
		}
		if j := strings.Index(l, ` \g`); j >= 0 {
			lines[i] = l[:j] + ";"
		}
	}
	clean := strings.Join(lines, "\n")
	parts, err := pg_query.SplitWithScanner(clean, false)
	if err != nil {
		parts = splitByChunks(clean)
	}
	var out []Statement
	off := 0
	for _, p := range parts {
		start := strings.Index(clean[off:], p)
		pos := off
		if start >= 0 {
			pos = off + start
			off = pos + len(p)
		}
		lead := leadingComments(p)
		sql := strings.TrimSpace(p[lead:])
		if sql == "" {
			continue
		}
		st := Statement{SQL: sql, Line: 1 + strings.Count(clean[:pos+lead], "\n")}
		classify(&st)
		out = append(out, st)
	}
	return out, nil
}

// leadingComments is the length of p's leading blank space and whole-line
// "--" comments.
func leadingComments(p string) int {
	i := 0
	for i < len(p) {
		rest := p[i:]
		t := strings.TrimLeft(rest, " \t\r\n")
		i += len(rest) - len(t)
		if !strings.HasPrefix(t, "--") {
			return i
		}
		nl := strings.IndexByte(t, '\n')
		if nl < 0 {
			return len(p)
		}
		i += nl + 1
	}
	return i
}

// classify sets Kind, Ordered and Volatile from the parse tree. A
// statement PostgreSQL's parser rejects is a Setup statement: PostgreSQL
// answers it with its syntax error on the setup pass, which is all the
// script meant.
func classify(st *Statement) {
	tree, err := pg_query.Parse(st.SQL)
	if err != nil || len(tree.Stmts) != 1 {
		st.Kind = Setup
		return
	}
	n := tree.Stmts[0].Stmt
	switch {
	case n.GetSelectStmt() != nil:
		s := n.GetSelectStmt()
		if s.IntoClause != nil || len(s.LockingClause) > 0 || modifies(s.WithClause) {
			st.Kind = Setup
			st.SQL = persistent(st.SQL, tree)
			return
		}
		st.Kind = Query
		st.Ordered = len(s.SortClause) > 0
		st.Volatile = volatileCall.MatchString(st.SQL)
	case n.GetVariableSetStmt() != nil:
		st.Kind = Set
	case n.GetTransactionStmt() != nil, n.GetExplainStmt() != nil, n.GetDropStmt() != nil,
		n.GetDeclareCursorStmt() != nil, n.GetFetchStmt() != nil, n.GetClosePortalStmt() != nil,
		n.GetPrepareStmt() != nil, n.GetExecuteStmt() != nil, n.GetDeallocateStmt() != nil,
		n.GetVariableShowStmt() != nil, n.GetVacuumStmt() != nil, n.GetCopyStmt() != nil:
		st.Kind = Skip
	default:
		st.Kind = Setup
		st.SQL = persistent(st.SQL, tree)
	}
}

// modifies reports whether a WITH clause holds a data-changing statement.
func modifies(w *pg_query.WithClause) bool {
	if w == nil {
		return false
	}
	for _, c := range w.Ctes {
		cte := c.GetCommonTableExpr()
		if cte == nil {
			continue
		}
		q := cte.Ctequery
		if q.GetInsertStmt() != nil || q.GetUpdateStmt() != nil || q.GetDeleteStmt() != nil || q.GetMergeStmt() != nil {
			return true
		}
	}
	return false
}

// persistent rewrites CREATE TEMP TABLE (and CREATE TEMP TABLE AS) into a
// permanent table of the same name (and so for SELECT … INTO TEMP and
// temporary views): a temporary table disappears with
// the setup session and the sidecar cannot follow it, while the queries
// after it read it by its bare name either way.
func persistent(sql string, tree *pg_query.ParseResult) string {
	n := tree.Stmts[0].Stmt
	var rel *pg_query.RangeVar
	switch {
	case n.GetCreateStmt() != nil:
		rel = n.GetCreateStmt().Relation
	case n.GetCreateTableAsStmt() != nil && n.GetCreateTableAsStmt().Into != nil:
		rel = n.GetCreateTableAsStmt().Into.Rel
	case n.GetSelectStmt() != nil && n.GetSelectStmt().IntoClause != nil:
		rel = n.GetSelectStmt().IntoClause.Rel
	case n.GetViewStmt() != nil:
		rel = n.GetViewStmt().View
	}
	if rel == nil || rel.Relpersistence != "t" {
		return sql
	}
	rel.Relpersistence = "p"
	if rel.Schemaname == "pg_temp" {
		rel.Schemaname = ""
	}
	out, err := pg_query.Deparse(tree)
	if err != nil {
		return sql
	}
	return out
}

// splitByChunks is the fallback when the scanner rejects the whole script
// (strings.sql tests invalid Unicode escapes on purpose): the script is
// cut after every line ending in a semicolon, each chunk split by the
// scanner on its own, and a chunk the scanner rejects kept whole (it is a
// setup statement PostgreSQL will reject too).
func splitByChunks(script string) []string {
	var out []string
	var chunk strings.Builder
	flush := func() {
		c := chunk.String()
		chunk.Reset()
		if strings.TrimSpace(c) == "" {
			return
		}
		if parts, err := pg_query.SplitWithScanner(c, false); err == nil {
			out = append(out, parts...)
			return
		}
		out = append(out, strings.TrimSuffix(strings.TrimRight(c, " \t\n"), ";"))
	}
	for _, l := range strings.SplitAfter(script, "\n") {
		chunk.WriteString(l)
		if strings.HasSuffix(strings.TrimSpace(l), ";") {
			flush()
		}
	}
	flush()
	return out
}
