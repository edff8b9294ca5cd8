package plan

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// SEARCH and CYCLE of WITH RECURSIVE (PostgreSQL 14+), bound as
// PostgreSQL's rewriteSearchAndCycle rewrites them: columns added to
// the recursive query, computed by each term.
//
//   - SEARCH DEPTH FIRST BY c… SET seq: seq is ARRAY[ROW(c…)] in the
//     non-recursive term, the working row's seq || ROW(c…) in the
//     recursive one (record[]).
//   - SEARCH BREADTH FIRST BY c… SET seq: seq is ROW(0::int8, c…), then
//     ROW(working seq's first field + 1, c…) (record).
//   - CYCLE c… SET mark [TO v DEFAULT d] USING path: mark is d and path
//     ARRAY[ROW(c…)], then mark is CASE WHEN ROW(c…) = ANY (working
//     path) THEN v ELSE d END and path the working path || ROW(c…); the
//     recursive term skips working rows whose mark is v.
//
// The recursive term carries the working row's added columns: they are
// appended to its select list (alias.seq …) before it is bound.

// searchCycle is a CTE's SEARCH/CYCLE clauses, resolved.
type searchCycle struct {
	search     *pg.CTESearchClause
	cycle      *pg.CTECycleClause
	searchIdx  []int // the BY columns' positions
	cycleIdx   []int
	mark, dflt Scalar // the cycle mark's values
	nOrig      int    // the query's own columns
}

// newSearchCycle resolves c's clauses against the query's column names
// (nil: it has none).
func (b *binder) newSearchCycle(c *pg.CommonTableExpr, names []string) (*searchCycle, error) {
	if c.SearchClause == nil && c.CycleClause == nil {
		return nil, nil
	}
	s := &searchCycle{search: c.SearchClause, cycle: c.CycleClause, nOrig: len(names)}
	find := func(list []*pg.Node, what string) ([]int, error) {
		var out []int
		for _, n := range list {
			name := n.GetString_().Sval
			i := -1
			for k, nm := range names {
				if nm == name {
					i = k
				}
			}
			if i < 0 {
				return nil, errorf(CodeSyntax, "%s column %q not in WITH query column list", what, name).at(c.Location)
			}
			if slices.Contains(out, i) {
				return nil, errorf(codeDuplicateColumn, "%s column %q specified more than once", what, name).at(c.Location)
			}
			out = append(out, i)
		}
		return out, nil
	}
	if err := s.checkNames(c.Location); err != nil {
		return nil, err
	}
	var err error
	if s.search != nil {
		if s.searchIdx, err = find(s.search.SearchColList, "search"); err != nil {
			return nil, err
		}
	}
	if s.cycle != nil {
		if s.cycleIdx, err = find(s.cycle.CycleColList, "cycle"); err != nil {
			return nil, err
		}
		mark, dflt := s.cycle.CycleMarkValue, s.cycle.CycleMarkDefault
		if mark == nil || dflt == nil {
			s.mark, s.dflt = &Const{T: T(Bool), Text: "true"}, &Const{T: T(Bool), Text: "false"}
		} else {
			if s.mark, err = b.expr(mark, &scope{}, nil); err != nil {
				return nil, err
			}
			if s.dflt, err = b.expr(dflt, &scope{}, nil); err != nil {
				return nil, err
			}
			t, err := commonType([]Type{s.mark.Type(), s.dflt.Type()})
			if err != nil {
				return nil, err.(*Error).at(c.Location)
			}
			if t.OID == Unknown {
				t = T(Text)
			}
			s.mark, s.dflt = coerce(s.mark, t), coerce(s.dflt, t)
		}
	}
	return s, nil
}

// PostgreSQL's SQLSTATEs for the clauses' errors.
const (
	codeDuplicateColumn = "42701"
)

// checkShape refuses the query shapes PostgreSQL refuses with SEARCH or
// CYCLE: both sides of the UNION must be plain SELECTs.
func checkShape(c *pg.CommonTableExpr, q *pg.SelectStmt) error {
	if c.SearchClause == nil && c.CycleClause == nil {
		return nil
	}
	if q.Larg == nil || q.Larg.Op != pg.SetOperation_SETOP_NONE {
		return errorf(CodeFeatureNotSupported, "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT").at(c.Location)
	}
	if q.Rarg == nil || q.Rarg.Op != pg.SetOperation_SETOP_NONE {
		return errorf(CodeFeatureNotSupported, "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT").at(c.Location)
	}
	return nil
}

// checkNames is parse_cte.c's checks of the added columns' names.
func (s *searchCycle) checkNames(loc int32) error {
	if s.cycle != nil {
		if s.cycle.CycleMarkColumn == s.cycle.CyclePathColumn {
			return errorf(CodeSyntax, "cycle mark column name and cycle path column name are the same").at(loc)
		}
	}
	if s.search != nil && s.cycle != nil {
		if s.search.SearchSeqColumn == s.cycle.CycleMarkColumn {
			return errorf(CodeSyntax, "search sequence column name and cycle mark column name are the same").at(loc)
		}
		if s.search.SearchSeqColumn == s.cycle.CyclePathColumn {
			return errorf(CodeSyntax, "search sequence column name and cycle path column name are the same").at(loc)
		}
	}
	return nil
}

// added is the names of the added columns, in PostgreSQL's order.
func (s *searchCycle) added() []string {
	var out []string
	if s.search != nil {
		out = append(out, s.search.SearchSeqColumn)
	}
	if s.cycle != nil {
		out = append(out, s.cycle.CycleMarkColumn, s.cycle.CyclePathColumn)
	}
	return out
}

func rowOf(cols []ColumnID, idx []int, md *Metadata, first ...Scalar) *Row {
	r := &Row{Args: first}
	for _, i := range idx {
		r.Args = append(r.Args, &ColRef{ID: cols[i], T: md.Column(cols[i]).Type})
	}
	return r
}

// initTerm adds the columns to the non-recursive term.
func (s *searchCycle) initTerm(b *binder, rel Rel, cols []ColumnID) (Rel, []ColumnID) {
	var exprs []Scalar
	for _, id := range cols {
		exprs = append(exprs, &ColRef{ID: id, T: b.md.Column(id).Type})
	}
	if s.search != nil {
		if s.search.SearchBreadthFirst {
			exprs = append(exprs, rowOf(cols, s.searchIdx, b.md, &Const{T: T(Int8), Text: "0"}))
		} else {
			exprs = append(exprs, &Func{Name: "array", Args: []Scalar{rowOf(cols, s.searchIdx, b.md)}, T: T(RecordArray)})
		}
	}
	if s.cycle != nil {
		exprs = append(exprs, s.dflt, &Func{Name: "array", Args: []Scalar{rowOf(cols, s.cycleIdx, b.md)}, T: T(RecordArray)})
	}
	return b.addProject(rel, cols, exprs, s.added())
}

// recTerm computes the added columns of the recursive term from its own
// columns and the working row's carried ones (after them in cols).
func (s *searchCycle) recTerm(b *binder, rel Rel, cols []ColumnID) (Rel, []ColumnID) {
	own := cols[:s.nOrig]
	carried := cols[s.nOrig:]
	ref := func(k int) Scalar { return &ColRef{ID: carried[k], T: b.md.Column(carried[k]).Type} }
	var exprs []Scalar
	for _, id := range own {
		exprs = append(exprs, &ColRef{ID: id, T: b.md.Column(id).Type})
	}
	k := 0
	if s.search != nil {
		if s.search.SearchBreadthFirst {
			depth := &Op{Op: "+", Args: []Scalar{&FieldSelect{Arg: ref(0), Index: 0, T: T(Int8)}, &Const{T: T(Int8), Text: "1"}}, T: T(Int8)}
			exprs = append(exprs, rowOf(own, s.searchIdx, b.md, depth))
		} else {
			exprs = append(exprs, &Func{Name: "array_append", Args: []Scalar{ref(0), rowOf(own, s.searchIdx, b.md)}, T: T(RecordArray)})
		}
		k++
	}
	if s.cycle != nil {
		seen := &Func{Name: "= ANY", Args: []Scalar{rowOf(own, s.cycleIdx, b.md), ref(k + 1)}, T: T(Bool)}
		exprs = append(exprs, &Case{Whens: []When{{Cond: seen, Result: s.mark}}, Else: s.dflt, T: s.mark.Type()},
			&Func{Name: "array_append", Args: []Scalar{ref(k + 1), rowOf(own, s.cycleIdx, b.md)}, T: T(RecordArray)})
	}
	return b.addProject(rel, cols[:s.nOrig], exprs, s.added())
}

// addProject is a Project of exprs over rel: the first len(cols) keep
// their columns' names, the rest are named names.
func (b *binder) addProject(rel Rel, cols []ColumnID, exprs []Scalar, names []string) (Rel, []ColumnID) {
	out := make([]ColumnID, len(exprs))
	for i, e := range exprs {
		name := ""
		if i < len(cols) {
			name = b.md.Column(cols[i]).Name
		} else {
			name = names[i-len(cols)]
		}
		out[i] = b.md.Add(ColumnMeta{Name: name, Type: e.Type()})
	}
	return &Project{Input: rel, Cols: out, Exprs: exprs}, out
}

// recAST is the recursive term with the working row's added columns
// appended to its select list and, under CYCLE, the rows already marked
// skipped (a copy: the statement's tree is not changed).
func (s *searchCycle) recAST(q *pg.SelectStmt, name string) (*pg.SelectStmt, error) {
	alias := ""
	var visit func(x *pg.Node)
	visit = func(x *pg.Node) {
		switch {
		case x.GetRangeVar() != nil:
			if rv := x.GetRangeVar(); rv.Schemaname == "" && rv.Relname == name {
				alias = rv.Relname
				if rv.Alias != nil {
					alias = rv.Alias.Aliasname
				}
			}
		case x.GetJoinExpr() != nil:
			visit(x.GetJoinExpr().Larg)
			visit(x.GetJoinExpr().Rarg)
		}
	}
	for _, f := range q.FromClause {
		visit(f)
	}
	if alias == "" {
		return nil, unsupported("SEARCH/CYCLE with this recursive term", -1)
	}
	out := proto.Clone(q).(*pg.SelectStmt)
	colRef := func(col string) *pg.Node {
		return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{pg.MakeStrNode(alias), pg.MakeStrNode(col)}, Location: -1}}}
	}
	for _, col := range s.added() {
		out.TargetList = append(out.TargetList, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: colRef(col), Location: -1}}})
	}
	if s.cycle != nil {
		mark := s.cycle.CycleMarkValue
		if mark == nil {
			mark = &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: true}}, Location: -1}}}
		}
		skip := pg.MakeAExprNode(pg.A_Expr_Kind_AEXPR_OP, []*pg.Node{pg.MakeStrNode("<>")}, colRef(s.cycle.CycleMarkColumn), proto.Clone(mark).(*pg.Node), -1)
		if out.WhereClause == nil {
			out.WhereClause = skip
		} else {
			out.WhereClause = pg.MakeBoolExprNode(pg.BoolExprType_AND_EXPR, []*pg.Node{out.WhereClause, skip}, -1)
		}
	}
	return out, nil
}
