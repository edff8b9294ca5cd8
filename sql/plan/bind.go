package plan

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Bind binds one parsed statement (a SELECT, VALUES or set operation)
// against cat into a logical plan.
func Bind(stmt *pg.Node, cat Catalog) (*Query, error) {
	return BindParams(stmt, cat, nil)
}

// BindParams is Bind with the types of $1… the client declared
// (Unknown: to infer from their use).
func BindParams(stmt *pg.Node, cat Catalog, params []Type) (*Query, error) {
	sel := stmt.GetSelectStmt()
	if sel == nil {
		return nil, errorf(CodeFeatureNotSupported, "only SELECT statements are planned here")
	}
	b := &binder{cat: cat, md: &Metadata{}, params: append([]Type(nil), params...), root: sel}
	rel, _, names, err := b.bindSelect(sel, nil)
	if err != nil {
		return nil, err
	}
	return &Query{Plan: rel, MD: b.md, Names: names, Params: b.params}, nil
}

// binder holds the state of binding one statement.
type binder struct {
	cat    Catalog
	md     *Metadata
	ctes   []map[string]*CTE // WITH levels, innermost last
	nCTE   int
	params []Type
	// lat is what a LATERAL item of the FROM list being bound may read
	// (lateral.go).
	lat latState
	// untypedLeaf is the set operation's branch being bound whose
	// untyped literals stay unknown until the operation resolves its
	// column types (PostgreSQL resolves them across all branches).
	untypedLeaf *pg.SelectStmt
	// viewDepth counts the view definitions being bound (view.go).
	viewDepth int
	// rowArgs are the column references that are a direct argument of
	// a function whose result does not show its argument's type: there a
	// table's name is its whole row (record.go, tableRowConsumers).
	rowArgs map[*pg.ColumnRef]bool
	// root is the statement bound: only it may carry INTO (into.go).
	root *pg.SelectStmt
}

// bindSelect binds a SELECT (or VALUES, or set operation) at a new query
// level under parent (nil: top level). It returns the plan, its output
// columns and their names.
func (b *binder) bindSelect(sel *pg.SelectStmt, parent *scope) (Rel, []ColumnID, []string, error) {
	if err := b.checkInto(sel, sel == b.root); err != nil {
		return nil, nil, nil, err
	}
	var with *With
	if w := sel.WithClause; w != nil {
		var err error
		if with, err = b.bindWith(w, parent); err != nil {
			return nil, nil, nil, err
		}
		defer func() { b.ctes = b.ctes[:len(b.ctes)-1] }()
	}
	var rel Rel
	var cols []ColumnID
	var names []string
	var err error
	switch {
	case sel.Op != pg.SetOperation_SETOP_NONE:
		rel, cols, names, err = b.bindSetOp(sel, parent)
	case len(sel.ValuesLists) > 0:
		rel, cols, names, err = b.bindValues(sel, parent)
	default:
		rel, cols, names, err = b.bindSimple(sel, parent)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if sel.Op != pg.SetOperation_SETOP_NONE || len(sel.ValuesLists) > 0 {
		// ORDER BY / LIMIT of a set operation or VALUES: over its output.
		if rel, err = b.orderOutput(rel, cols, names, sel.SortClause); err != nil {
			return nil, nil, nil, err
		}
		if rel, err = b.bindLimit(rel, sel, parent); err != nil {
			return nil, nil, nil, err
		}
	}
	if with != nil {
		with.Body = rel
		rel = with
	}
	return rel, cols, names, nil
}

// bindWith binds the CTEs of a WITH clause, each seeing the ones before
// it, and pushes them as a new level of names.
func (b *binder) bindWith(w *pg.WithClause, parent *scope) (*With, error) {
	ctes := w.Ctes
	if w.Recursive {
		var err error
		if ctes, err = recursiveOrder(w); err != nil { // recursive.go
			return nil, err
		}
	}
	level := map[string]*CTE{}
	b.ctes = append(b.ctes, level)
	out := &With{}
	for _, n := range ctes {
		c := n.GetCommonTableExpr()
		if _, dup := level[c.Ctename]; dup {
			b.ctes = b.ctes[:len(b.ctes)-1]
			return nil, errorf(CodeDuplicateAlias, "WITH query name %q specified more than once", c.Ctename).at(c.Location)
		}
		q := c.Ctequery.GetSelectStmt()
		if q == nil {
			b.ctes = b.ctes[:len(b.ctes)-1]
			return nil, unsupported("a data-modifying statement in WITH", c.Location)
		}
		if w.Recursive && refsTo(q, c.Ctename) > 0 {
			cte, err := b.recursiveCTE(c, q, parent, level) // recursive.go
			if err != nil {
				b.ctes = b.ctes[:len(b.ctes)-1]
				return nil, err
			}
			out.CTEs = append(out.CTEs, cte)
			continue
		}
		if c.SearchClause != nil || c.CycleClause != nil {
			b.ctes = b.ctes[:len(b.ctes)-1]
			return nil, errorf(CodeSyntax, "WITH query is not recursive").at(c.Location) // searchcycle.go
		}
		rel, cols, names, err := b.bindSelect(q, parent)
		if err != nil {
			b.ctes = b.ctes[:len(b.ctes)-1]
			return nil, err
		}
		if names, err = aliasNames(names, c.Aliascolnames, c.Ctename, c.Location); err != nil {
			b.ctes = b.ctes[:len(b.ctes)-1]
			return nil, err
		}
		b.nCTE++
		cte := &CTE{ID: b.nCTE, Name: c.Ctename, Plan: rel, Cols: cols, Names: names, Materialized: c.Ctematerialized == pg.CTEMaterialize_CTEMaterializeAlways}
		level[c.Ctename] = cte
		out.CTEs = append(out.CTEs, cte)
	}
	return out, nil
}

// aliasNames applies an alias's column list to names (fewer aliases than
// columns rename the first ones).
func aliasNames(names []string, alias []*pg.Node, what string, loc int32) ([]string, error) {
	if len(alias) > len(names) {
		return nil, errorf(CodeSyntax, "%s has %d columns available but %d columns specified", what, len(names), len(alias)).at(loc)
	}
	out := append([]string(nil), names...)
	for i, a := range alias {
		out[i] = a.GetString_().Sval
	}
	return out, nil
}

// refs is a ColRef per column.
func (b *binder) refs(cols []ColumnID) []Scalar {
	out := make([]Scalar, len(cols))
	for i, id := range cols {
		out[i] = &ColRef{ID: id, T: b.md.Column(id).Type}
	}
	return out
}

// lookupCTE finds a CTE by name, innermost WITH first.
func (b *binder) lookupCTE(name string) *CTE {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if c := b.ctes[i][name]; c != nil {
			return c
		}
	}
	return nil
}

// bindSetOp binds UNION/INTERSECT/EXCEPT [ALL].
func (b *binder) bindSetOp(sel *pg.SelectStmt, parent *scope) (Rel, []ColumnID, []string, error) {
	leaf := func(s *pg.SelectStmt) *pg.SelectStmt {
		if s.Op == pg.SetOperation_SETOP_NONE && len(s.ValuesLists) == 0 && len(s.DistinctClause) == 0 && len(s.SortClause) == 0 &&
			len(s.GroupClause) == 0 && s.HavingClause == nil && len(s.WindowClause) == 0 {
			return s
		}
		return nil
	}
	prev := b.untypedLeaf
	defer func() { b.untypedLeaf = prev }()
	b.untypedLeaf = leaf(sel.Larg)
	l, lcols, lnames, err := b.bindSelect(sel.Larg, parent)
	if err != nil {
		return nil, nil, nil, err
	}
	b.untypedLeaf = leaf(sel.Rarg)
	r, rcols, _, err := b.bindSelect(sel.Rarg, parent)
	b.untypedLeaf = nil
	if err != nil {
		return nil, nil, nil, err
	}
	var kind SetOpKind
	switch sel.Op {
	case pg.SetOperation_SETOP_UNION:
		kind = Union
	case pg.SetOperation_SETOP_INTERSECT:
		kind = Intersect
	default:
		kind = Except
	}
	if len(lcols) != len(rcols) {
		return nil, nil, nil, errorf(CodeSyntax, "each %s query must have the same number of columns", strings.ToUpper(kind.String()))
	}
	out := &SetOp{Kind: kind, All: sel.All}
	var lx, rx []Scalar
	lcast, rcast := false, false
	for i := range lcols {
		lt, rt := b.md.Column(lcols[i]).Type, b.md.Column(rcols[i]).Type
		t, err := commonType([]Type{lt, rt})
		if err != nil {
			return nil, nil, nil, errorf(CodeDatatypeMismatch, "%s types %s and %s cannot be matched", kind, lt, rt)
		}
		if lt.OID == Unknown && !b.retypeLiteral(l, lcols[i], t) || rt.OID == Unknown && !b.retypeLiteral(r, rcols[i], t) {
			return nil, nil, nil, unsupported("an untyped value in a set operation's branch", -1)
		}
		lx = append(lx, b.coerceCol(lcols[i], t, &lcast))
		rx = append(rx, b.coerceCol(rcols[i], t, &rcast))
		out.Cols = append(out.Cols, b.md.Add(ColumnMeta{Name: lnames[i], Type: t}))
	}
	out.Left, out.LeftCols = b.castProject(l, lcols, lx, lcast)
	out.Right, out.RightCols = b.castProject(r, rcols, rx, rcast)
	return out, out.Cols, lnames, nil
}

// retypeLiteral gives the untyped literal computing column id of rel
// type t (PostgreSQL coerces a set operation branch's untyped constants
// in place); false when id is not such a literal.
func (b *binder) retypeLiteral(rel Rel, id ColumnID, t Type) bool {
	if p, ok := rel.(*Project); ok {
		for k, c := range p.Cols {
			if c != id {
				continue
			}
			if x, ok := p.Exprs[k].(*Const); ok && x.T.OID == Unknown {
				p.Exprs[k] = coerce(x, t)
				b.md.setType(id, t)
				return true
			}
			return false
		}
	}
	for _, in := range rel.Inputs() {
		if b.retypeLiteral(in, id, t) {
			return true
		}
	}
	return false
}

// coerceCol is column id as type t (a cast when it differs; *cast set).
func (b *binder) coerceCol(id ColumnID, t Type, cast *bool) Scalar {
	c := b.md.Column(id)
	if c.Type.OID == t.OID {
		return &ColRef{ID: id, T: c.Type}
	}
	*cast = true
	return &Cast{Arg: &ColRef{ID: id, T: c.Type}, T: t}
}

// castProject puts a Project computing exprs over rel when any is a cast.
func (b *binder) castProject(rel Rel, cols []ColumnID, exprs []Scalar, cast bool) (Rel, []ColumnID) {
	if !cast {
		return rel, cols
	}
	out := make([]ColumnID, len(exprs))
	for i, e := range exprs {
		if c, ok := e.(*ColRef); ok {
			out[i] = c.ID
			continue
		}
		out[i] = b.md.Add(ColumnMeta{Name: b.md.Column(cols[i]).Name, Type: e.Type()})
	}
	return &Project{Input: rel, Cols: out, Exprs: exprs}, out
}

// bindValues binds VALUES (…), (…): columns column1, column2, … of the
// common type of each column.
func (b *binder) bindValues(sel *pg.SelectStmt, parent *scope) (Rel, []ColumnID, []string, error) {
	sc := &scope{parent: parent}
	var rows [][]Scalar
	for _, l := range sel.ValuesLists {
		items := l.GetList().Items
		if len(rows) > 0 && len(items) != len(rows[0]) {
			return nil, nil, nil, errorf(CodeSyntax, "VALUES lists must all be the same length")
		}
		var row []Scalar
		for _, n := range items {
			e, err := b.expr(n, sc, nil)
			if err != nil {
				return nil, nil, nil, err
			}
			row = append(row, e)
		}
		rows = append(rows, row)
	}
	v := &Values{Rows: rows}
	var names []string
	for c := range rows[0] {
		var ts []Type
		for _, r := range rows {
			ts = append(ts, r[c].Type())
		}
		t, err := commonType(ts)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("VALUES column %d: %w", c+1, err)
		}
		for _, r := range rows {
			r[c] = coerce(r[c], t)
		}
		name := fmt.Sprintf("column%d", c+1)
		names = append(names, name)
		v.Cols = append(v.Cols, b.md.Add(ColumnMeta{Name: name, Type: t}))
	}
	return v, v.Cols, names, nil
}

// bindLimit adds LIMIT/OFFSET.
func (b *binder) bindLimit(rel Rel, sel *pg.SelectStmt, parent *scope) (Rel, error) {
	if sel.LimitCount == nil && sel.LimitOffset == nil {
		return rel, nil
	}
	l := &Limit{Input: rel}
	if sel.LimitOption == pg.LimitOption_LIMIT_OPTION_WITH_TIES {
		s, ok := rel.(*Sort)
		if !ok {
			return nil, unsupported("FETCH … WITH TIES here", -1)
		}
		l.Ties = s.Keys
	}
	sc := &scope{parent: parent}
	for _, p := range []struct {
		n   *pg.Node
		dst *Scalar
	}{{sel.LimitOffset, &l.Offset}, {sel.LimitCount, &l.Count}} { // PostgreSQL's order (transformSelectStmt)
		if p.n == nil {
			continue
		}
		if c := p.n.GetAConst(); c != nil && c.Isnull {
			continue // LIMIT NULL / LIMIT ALL: no limit
		}
		e, err := b.expr(p.n, sc, nil)
		if err != nil {
			return nil, err
		}
		*p.dst = coerce(e, T(Int8))
		b.noteParam(*p.dst) // LIMIT $n: $n is bigint
	}
	return l, nil
}
