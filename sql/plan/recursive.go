package plan

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/sidecar-dev/sidecar/internal/pgast"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// This file binds WITH RECURSIVE: a CTE that reads itself is
// `non-recursive term UNION [ALL] recursive term`, evaluated as
// PostgreSQL's RecursiveUnion does — the non-recursive term's rows form
// the first working table; the recursive term runs over the working
// table and its rows (under UNION: those not seen before) are added to
// the result and become the next working table, until it is empty.
//
// The shapes PostgreSQL rejects (a reference in the non-recursive term,
// in a subquery, an outer join or twice; aggregates, ORDER BY, LIMIT in
// the recursive term) and the ones not built here (SEARCH, CYCLE, a
// recursive term that is itself a set operation, DISTINCT in it, mutual
// recursion) are refused with 0A000: never answered otherwise.

// RecursiveUnion is a recursive CTE's plan: Init (the non-recursive
// term) then Rec (the recursive term, reading Work) until a round adds no
// row. InitCols and RecCols are the terms' output columns in the order of
// Cols.
type RecursiveUnion struct {
	Name              string
	Init, Rec         Rel
	InitCols, RecCols []ColumnID
	Cols              []ColumnID
	All               bool
	// Work is the working table: CTERefs to it in Rec read the rows the
	// previous round added.
	Work *CTE
}

// Columns implements Rel.
func (r *RecursiveUnion) Columns() []ColumnID { return r.Cols }

// Inputs implements Rel.
func (r *RecursiveUnion) Inputs() []Rel { return []Rel{r.Init, r.Rec} }

// CodeInvalidRecursion is 42P19 (invalid_recursion).
const CodeInvalidRecursion = "42P19"

// recursiveCTE binds CTE c of a WITH RECURSIVE that refers to itself and
// adds it to level.
func (b *binder) recursiveCTE(c *pg.CommonTableExpr, q *pg.SelectStmt, parent *scope, level map[string]*CTE) (*CTE, error) {
	name := c.Ctename
	if q.Op == pg.SetOperation_SETOP_UNION {
		if err := checkShape(c, q); err != nil {
			return nil, err // searchcycle.go
		}
	}
	if q.Op != pg.SetOperation_SETOP_UNION || q.WithClause != nil && refsTo(q.WithClause, name) > 0 || len(q.SortClause) > 0 || q.LimitCount != nil ||
		q.LimitOffset != nil || len(q.LockingClause) > 0 {
		return nil, unsupported("this form of recursive query (write non-recursive term UNION [ALL] recursive term)", c.Location)
	}
	if refsTo(q.Larg, name) > 0 {
		return nil, unsupported("a recursive reference in the non-recursive term", c.Location)
	}
	if refsTo(q.Rarg, name) != 1 || !recursiveTermReads(q.Rarg, name) {
		return nil, unsupported("this recursive term (sidecar runs a SELECT reading the recursive query once in FROM or inner joins, without aggregates, DISTINCT, ORDER BY or LIMIT, under UNION, INTERSECT, the left side of EXCEPT or a WITH query)", c.Location)
	}
	// A WITH of the recursive query itself (not reading it) is seen by
	// both terms and computed once.
	var inner *With
	if q.WithClause != nil {
		var err error
		if inner, err = b.bindWith(q.WithClause, parent); err != nil {
			return nil, err
		}
		defer func() { b.ctes = b.ctes[:len(b.ctes)-1] }()
	}
	init, initCols, names, err := b.bindSelect(q.Larg, parent)
	if err != nil {
		return nil, err
	}
	if names, err = aliasNames(names, c.Aliascolnames, name, c.Location); err != nil {
		return nil, err
	}
	// An untyped literal of the non-recursive term is text.
	var ix []Scalar
	cast := false
	for _, id := range initCols {
		t := b.md.Column(id).Type
		if t.OID == Unknown {
			t = T(Text)
		}
		ix = append(ix, b.coerceCol(id, t, &cast))
	}
	init, initCols = b.castProject(init, initCols, ix, cast)
	rarg := q.Rarg
	scc, err := b.newSearchCycle(c, names) // searchcycle.go
	if err != nil {
		return nil, err
	}
	if scc != nil {
		init, initCols = scc.initTerm(b, init, initCols)
		names = append(append([]string(nil), names...), scc.added()...)
		if rarg, err = scc.recAST(q.Rarg, name); err != nil {
			return nil, err
		}
	}
	b.nCTE++
	work := &CTE{ID: b.nCTE, Name: name}
	for i, id := range initCols {
		work.Cols = append(work.Cols, b.md.Add(ColumnMeta{Name: names[i], Type: b.md.Column(id).Type}))
	}
	work.Names = names
	if scc != nil {
		work.Hidden = len(scc.added())
	}
	level[name] = work // the recursive term reads the working table
	rec, recCols, _, err := b.bindSelect(rarg, parent)
	delete(level, name)
	if err != nil {
		return nil, err
	}
	if scc != nil {
		if len(recCols) != len(initCols) {
			return nil, errorf(CodeSyntax, "each UNION query must have the same number of columns").at(c.Location)
		}
		rec, recCols = scc.recTerm(b, rec, recCols)
	}
	if work.Refs != 1 || hasAggregate(rec) {
		return nil, unsupported("this recursive term", c.Location)
	}
	if len(recCols) != len(initCols) {
		return nil, errorf(CodeSyntax, "each UNION query must have the same number of columns").at(c.Location)
	}
	out := &RecursiveUnion{Name: name, Init: init, InitCols: initCols, All: q.All, Work: work}
	if !q.All {
		if err := recursiveUnionHashable(b.md, initCols); err != nil {
			return nil, err // recursive_hash.go
		}
	}
	var rx []Scalar
	cast = false
	for i, id := range recCols {
		it, rt := b.md.Column(initCols[i]).Type, b.md.Column(id).Type
		if rt.OID != Unknown {
			ct, err := commonType([]Type{it, rt})
			if err != nil {
				return nil, errorf(CodeDatatypeMismatch, "UNION types %s and %s cannot be matched", it, rt).at(c.Location)
			}
			if ct.OID != it.OID || rt.Mod != it.Mod && it.Mod != -1 {
				overall := ct
				if rt.Mod != it.Mod {
					overall.Mod = -1
				}
				return nil, errorf(CodeDatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall", name, i+1, it, overall).at(c.Location)
			}
		}
		rx = append(rx, b.coerceCol(id, it, &cast))
		out.Cols = append(out.Cols, b.md.Add(ColumnMeta{Name: names[i], Type: it}))
	}
	out.Rec, out.RecCols = b.castProject(rec, recCols, rx, cast)
	b.nCTE++
	cte := &CTE{ID: b.nCTE, Name: name, Plan: out, Cols: out.Cols, Names: names}
	if inner != nil {
		inner.Body = out
		cte.Plan = inner
	}
	level[name] = cte
	return cte, nil
}

// Recursive is the RecursiveUnion a recursive CTE's plan runs (under the
// WITH of the recursive query itself), nil for another plan.
func Recursive(r Rel) *RecursiveUnion {
	if w, ok := r.(*With); ok {
		r = w.Body
	}
	ru, _ := r.(*RecursiveUnion)
	return ru
}

// recursiveTermReads says whether the recursive term n (which reads the
// query named name once) reads it where PostgreSQL allows and the
// executor runs it: in a plain SELECT (plainRecursiveTerm) reached
// through the branches of UNION [ALL], of INTERSECT, the left side of
// EXCEPT (PostgreSQL's checkWellFormedSelectStmt) and the queries of a
// non-recursive WITH inside the term. The executor runs such a term
// afresh each round (sql/exec recursive.go): its WITH queries and
// subqueries read that round's working table.
func recursiveTermReads(n *pg.SelectStmt, name string) bool {
	if n == nil || len(n.SortClause) > 0 || n.LimitCount != nil || n.LimitOffset != nil || len(n.LockingClause) > 0 || n.IntoClause != nil {
		return false
	}
	if w := n.WithClause; w != nil {
		if w.Recursive {
			return false
		}
		for _, c := range w.Ctes {
			cte := c.GetCommonTableExpr()
			if cte.GetCtename() == name {
				return false // shadowed: too rare to be worth following
			}
			if refsTo(cte.GetCtequery(), name) > 0 {
				return recursiveTermReads(cte.GetCtequery().GetSelectStmt(), name)
			}
		}
	}
	switch n.Op {
	case pg.SetOperation_SETOP_NONE:
		return plainRecursiveTerm(n, name)
	case pg.SetOperation_SETOP_UNION:
	case pg.SetOperation_SETOP_INTERSECT:
		if n.All {
			return false
		}
	case pg.SetOperation_SETOP_EXCEPT:
		if n.All || refsTo(n.Rarg, name) > 0 {
			return false
		}
	default:
		return false
	}
	if refsTo(n.Larg, name) > 0 {
		return recursiveTermReads(n.Larg, name)
	}
	return recursiveTermReads(n.Rarg, name)
}

// plainRecursiveTerm says whether n is a plain SELECT (its own WITH
// aside: recursiveTermReads looked at it) that reads the query named
// name exactly once, as a FROM item or a side of inner joins (not in a
// subquery or an outer join), or not at all.
func plainRecursiveTerm(n *pg.SelectStmt, name string) bool {
	if n == nil || n.Op != pg.SetOperation_SETOP_NONE || len(n.ValuesLists) > 0 || len(n.GroupClause) > 0 || n.HavingClause != nil ||
		len(n.WindowClause) > 0 || len(n.SortClause) > 0 || n.LimitCount != nil || n.LimitOffset != nil || len(n.DistinctClause) > 0 ||
		len(n.LockingClause) > 0 || n.IntoClause != nil {
		return false
	}
	if n.WithClause != nil {
		n = proto.Clone(n).(*pg.SelectStmt)
		n.WithClause = nil
	}
	switch refsTo(n, name) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	direct := 0
	var visit func(x *pg.Node)
	visit = func(x *pg.Node) {
		switch {
		case x.GetRangeVar() != nil:
			if rv := x.GetRangeVar(); rv.Schemaname == "" && rv.Relname == name {
				direct++
			}
		case x.GetJoinExpr() != nil:
			if j := x.GetJoinExpr(); j.Jointype == pg.JoinType_JOIN_INNER {
				visit(j.Larg)
				visit(j.Rarg)
			}
		}
	}
	for _, f := range n.FromClause {
		visit(f)
	}
	return direct == 1
}

// refsTo counts the unqualified table references named name anywhere
// in the parse tree m (subqueries included) that are not to a WITH query
// of that name inside m shadowing it: a SELECT whose WITH defines name
// reads it there, except in the WITH queries written before that one
// (all of them under WITH RECURSIVE), which still see the outer name.
func refsTo(m proto.Message, name string) int {
	if m == nil {
		return 0
	}
	n := 0
	pgast.Walk(m.ProtoReflect(), func(x protoreflect.Message) bool {
		switch v := x.Interface().(type) {
		case *pg.RangeVar:
			if v.Schemaname == "" && v.Relname == name {
				n++
			}
		case *pg.SelectStmt:
			if v.WithClause == nil || v.WithClause == m {
				return true
			}
			def := -1
			for i, c := range v.WithClause.Ctes {
				if c.GetCommonTableExpr().GetCtename() == name {
					def = i
				}
			}
			if def < 0 {
				return true
			}
			if !v.WithClause.Recursive {
				for _, c := range v.WithClause.Ctes[:def+1] {
					n += refsTo(c.GetCommonTableExpr().GetCtequery(), name)
				}
			}
			return false // the rest reads the inner query of that name
		}
		return true
	})
	return n
}

// hasAggregate says whether rel computes an aggregate anywhere (outside
// subqueries, which the recursive term cannot read the CTE in).
func hasAggregate(rel Rel) bool {
	if _, ok := rel.(*Aggregate); ok {
		return true
	}
	for _, in := range rel.Inputs() {
		if hasAggregate(in) {
			return true
		}
	}
	return false
}

// recursiveOrder is the order to bind the queries of a WITH RECURSIVE
// in: every name of the clause is visible to all of its queries, so one
// reading a query defined after it is bound after that one (the binder
// binds in order). Queries reading each other (mutual recursion) are
// refused. Among the queries ready, the first written goes first.
func recursiveOrder(w *pg.WithClause) ([]*pg.Node, error) {
	n := len(w.Ctes)
	deps := make([][]bool, n)
	for i, a := range w.Ctes {
		deps[i] = make([]bool, n)
		for j, c := range w.Ctes {
			if i != j && refsTo(a.GetCommonTableExpr().Ctequery, c.GetCommonTableExpr().Ctename) > 0 {
				deps[i][j] = true
			}
		}
	}
	done := make([]bool, n)
	var out []*pg.Node
	for len(out) < n {
		next := -1
		for i := 0; i < n && next < 0; i++ {
			if done[i] {
				continue
			}
			ready := true
			for j := range deps[i] {
				ready = ready && (!deps[i][j] || done[j])
			}
			if ready {
				next = i
			}
		}
		if next < 0 {
			for i := range done {
				if !done[i] {
					return nil, unsupported("WITH RECURSIVE queries reading each other", w.Ctes[i].GetCommonTableExpr().Location)
				}
			}
		}
		done[next] = true
		out = append(out, w.Ctes[next])
	}
	return out, nil
}
