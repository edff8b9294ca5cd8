package plan

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Record values (type record, OID 2249): ROW(…) and (a, b) constructors,
// whole-row references to a subquery, CTE, VALUES or join alias, and the
// comparisons PostgreSQL defines on them. A row constructor compared
// with a row constructor is compared field by field with SQL's NULL
// semantics (make_row_comparison_op: = is an AND, <> an OR, < … a
// RowCompare); any other comparison of records is record_eq/record_cmp
// (NULL fields equal, above values), done by the executor on
// types.Record values.

// Row is ROW(args…): a record of the arguments' values. Names are the
// fields' names (a whole-row reference's columns; nil: f1, f2, …).
type Row struct {
	Args  []Scalar
	Names []string
}

// FieldSelect is (arg).fN: field Index (0-based) of a record, of type T.
type FieldSelect struct {
	Arg   Scalar
	Index int
	T     Type
}

// RowCompare is (a, b, …) op (c, d, …) for op one of < <= > >=: pairs
// compared left to right, the first pair not equal deciding; a NULL in
// the pair reached makes the result NULL. Pairs are the bound
// comparisons of the fields (their Args coerced to a comparable type).
type RowCompare struct {
	Op    string
	Pairs []*Op
}

// RecordArray is record[] (the type of SEARCH DEPTH FIRST and CYCLE
// path columns).
const RecordArray OID = 2287

func (*Row) Type() Type           { return T(Record) }
func (f *FieldSelect) Type() Type { return f.T }
func (*RowCompare) Type() Type    { return T(Bool) }

func (r *Row) format(b *strings.Builder, md *Metadata) {
	b.WriteString("ROW(")
	formatList(b, md, r.Args)
	b.WriteByte(')')
}

func (f *FieldSelect) format(b *strings.Builder, md *Metadata) {
	b.WriteByte('(')
	f.Arg.format(b, md)
	b.WriteString(").f" + strconv.Itoa(f.Index+1))
}

func (r *RowCompare) format(b *strings.Builder, md *Metadata) {
	var l, rr []Scalar
	for _, p := range r.Pairs {
		l, rr = append(l, p.Args[0]), append(rr, p.Args[1])
	}
	b.WriteString("ROW(")
	formatList(b, md, l)
	b.WriteString(") " + r.Op + " ROW(")
	formatList(b, md, rr)
	b.WriteByte(')')
}

// recordChildren and mapRecord are Children and Map for the record
// nodes (ok=false: s is not one).
func recordChildren(s Scalar) ([]Scalar, bool) {
	switch x := s.(type) {
	case *Row:
		return x.Args, true
	case *FieldSelect:
		return []Scalar{x.Arg}, true
	case *RowCompare:
		var out []Scalar
		for _, p := range x.Pairs {
			out = append(out, p)
		}
		return out, true
	}
	return nil, false
}

func mapRecord(s Scalar, fn func(Scalar) Scalar) (Scalar, bool) {
	switch x := s.(type) {
	case *Row:
		out := &Row{Names: x.Names, Args: make([]Scalar, len(x.Args))}
		for i, a := range x.Args {
			out.Args[i] = Map(a, fn)
		}
		return out, true
	case *FieldSelect:
		return &FieldSelect{Arg: Map(x.Arg, fn), Index: x.Index, T: x.T}, true
	case *RowCompare:
		out := &RowCompare{Op: x.Op}
		for _, p := range x.Pairs {
			m := Map(p, fn)
			o, ok := m.(*Op)
			if !ok { // a rule replaced the comparison: keep its shape
				o = &Op{Op: p.Op, Args: []Scalar{Map(p.Args[0], fn), Map(p.Args[1], fn)}, T: p.T}
			}
			out.Pairs = append(out.Pairs, o)
		}
		return out, true
	}
	return nil, false
}

// equalRecord is Equal for the record nodes.
func equalRecord(a, b Scalar) (bool, bool) {
	switch x := a.(type) {
	case *Row:
		y, ok := b.(*Row)
		return ok && equalList(x.Args, y.Args), true
	case *FieldSelect:
		y, ok := b.(*FieldSelect)
		return ok && x.Index == y.Index && x.T == y.T && Equal(x.Arg, y.Arg), true
	case *RowCompare:
		y, ok := b.(*RowCompare)
		if !ok || x.Op != y.Op || len(x.Pairs) != len(y.Pairs) {
			return false, true
		}
		for i := range x.Pairs {
			if !Equal(x.Pairs[i], y.Pairs[i]) {
				return false, true
			}
		}
		return true, true
	}
	return false, false
}

// rowExpr binds ROW(…) / (a, b, …): t.* and * among the arguments
// expand to their columns, as PostgreSQL's transformRowExpr does.
func (b *binder) rowExpr(r *pg.RowExpr, sc *scope, ctx *exprCtx) (Scalar, error) {
	out := &Row{}
	for _, a := range r.Args {
		if cr := a.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			cols, err := b.star(cr, sc)
			if err != nil {
				return nil, err
			}
			for _, c := range cols {
				out.Args = append(out.Args, &ColRef{ID: c.id, T: c.t})
			}
			continue
		}
		e, err := b.expr(a, sc, ctx)
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, e)
	}
	return out, nil
}

// wholeRow is the record value of the FROM item named alias (t, t.*):
// ok=false when no item has that name. A table of the catalog is refused
// (its value is of the table's composite type, whose OID the mirror does
// not keep) unless tableOK: the reference is the argument of a function
// whose result does not show that type (tableRowConsumers). An item on
// the padded side of an outer join is refused unless a column tells its
// padded rows apart (there its value is NULL, not a row of NULLs).
func (b *binder) wholeRow(sc *scope, alias string, loc int32, tableOK bool) (Scalar, bool, error) {
	for s, depth := sc, 0; s != nil; s, depth = s.parent, depth+1 {
		var its []*item
		for _, it := range s.items {
			its = it.find(alias, its)
		}
		if len(its) > 1 {
			return nil, true, errorf(CodeAmbiguousColumn, "table reference %q is ambiguous", alias).at(loc)
		}
		if len(its) == 0 {
			continue
		}
		it := its[0]
		if it.table && !tableOK {
			return nil, true, unsupported("a whole-row reference to table "+alias+" (a value of its composite type) other than as the argument of row_to_json, to_json, to_jsonb, json_agg, jsonb_agg, json[b]_build_object/array or count", loc)
		}
		if it.nullable && it.marker == 0 {
			return nil, true, unsupported("a whole-row reference to "+alias+" on the nullable side of an outer join", loc)
		}
		if it.aliasedView {
			return nil, true, unsupported("a whole-row reference to view "+alias+" renamed by column aliases (its fields keep the view's names, which sidecar does not keep here)", loc)
		}
		row := &Row{}
		for i, c := range it.cols {
			if depth > 0 {
				for in := sc; in != s; in = in.parent {
					in.outer.Add(c.id)
				}
			}
			row.Args = append(row.Args, &ColRef{ID: c.id, T: c.t})
			if it.rowNames != nil {
				row.Names = append(row.Names, it.rowNames[i])
			} else {
				row.Names = append(row.Names, c.name)
			}
		}
		if it.nullable {
			// NULL (not a row of NULLs) in a padded row, as PostgreSQL's
			// whole-row Var of a padded relation.
			padded := &IsNull{Arg: &ColRef{ID: it.marker, T: b.md.Column(it.marker).Type}}
			return &Case{Whens: []When{{Cond: padded, Result: &Const{T: T(Record), Null: true}}}, Else: row, T: T(Record)}, true, nil
		}
		return row, true, nil
	}
	return nil, false, nil
}

// markNullable marks the items a join pads with NULLs.
func markNullable(kind JoinKind, l, r *item) {
	var mark func(it *item)
	mark = func(it *item) {
		it.nullable = true
		for _, s := range it.sub {
			mark(s)
		}
	}
	if kind == LeftJoin || kind == FullJoin {
		mark(r)
	}
	if kind == RightJoin || kind == FullJoin {
		mark(l)
	}
}

// recordOperator binds a comparison with a record operand (ok=false:
// neither operand is a record).
func (b *binder) recordOperator(op string, l, r Scalar, loc int32) (Scalar, bool, error) {
	if l.Type().OID != Record && r.Type().OID != Record {
		return nil, false, nil
	}
	lr, lok := l.(*Row)
	rr, rok := r.(*Row)
	if lok && rok {
		e, err := b.rowComparison(op, lr, rr, loc)
		return e, true, err
	}
	if !comparisons[op] {
		return nil, true, errorf(CodeUndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, r.Type()).at(loc)
	}
	if l.Type().OID != Record || r.Type().OID != Record {
		if l.Type().OID == Unknown || r.Type().OID == Unknown {
			return nil, true, errorf(CodeFeatureNotSupported, "input of anonymous composite types is not implemented").at(loc)
		}
		return nil, true, errorf(CodeUndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, r.Type()).at(loc)
	}
	return &Op{Op: op, Args: []Scalar{l, r}, T: T(Bool)}, true, nil
}

// rowComparison is ROW(…) op ROW(…), field by field.
func (b *binder) rowComparison(op string, l, r *Row, loc int32) (Scalar, error) {
	if len(l.Args) != len(r.Args) {
		return nil, errorf(CodeSyntax, "unequal number of entries in row expressions").at(loc)
	}
	if len(l.Args) == 0 {
		return nil, errorf(CodeFeatureNotSupported, "cannot compare rows of zero length").at(loc)
	}
	var pairs []*Op
	var list []Scalar
	for i := range l.Args {
		e, err := b.binary(op, l.Args[i], r.Args[i], loc)
		if err != nil {
			return nil, err
		}
		o, ok := e.(*Op)
		if !ok || len(o.Args) != 2 {
			return nil, unsupported("this row comparison", loc)
		}
		pairs = append(pairs, o)
		list = append(list, o)
	}
	switch op {
	case "=":
		return And(list), nil
	case "<>":
		if len(list) == 1 {
			return list[0], nil
		}
		return &BoolOp{Op: "OR", Args: list}, nil
	case "<", "<=", ">", ">=":
		return &RowCompare{Op: op, Pairs: pairs}, nil
	}
	return nil, unsupported("operator "+op+" between rows", loc)
}

// rowDistinct is ROW(…) IS [NOT] DISTINCT FROM ROW(…): an OR (an AND)
// of the fields' IS [NOT] DISTINCT FROM.
func (b *binder) rowDistinct(not bool, l, r *Row, loc int32) (Scalar, error) {
	if len(l.Args) != len(r.Args) {
		return nil, errorf(CodeSyntax, "unequal number of entries in row expressions").at(loc)
	}
	op, join := "IS DISTINCT FROM", "OR"
	if not {
		op, join = "IS NOT DISTINCT FROM", "AND"
	}
	var list []Scalar
	for i := range l.Args {
		e, err := b.binary("=", l.Args[i], r.Args[i], loc)
		if err != nil {
			return nil, err
		}
		o, ok := e.(*Op)
		if !ok || len(o.Args) != 2 {
			return nil, unsupported("this row comparison", loc)
		}
		list = append(list, &Op{Op: op, Args: o.Args, T: T(Bool)})
	}
	if len(list) == 1 {
		return list[0], nil
	}
	return &BoolOp{Op: join, Args: list}, nil
}

// rowIn is ROW(…) [NOT] IN (ROW(…), …): an OR of row equalities (an AND
// of row inequalities), as PostgreSQL's transformAExprIn makes it.
func (b *binder) rowIn(l *Row, list []Scalar, not bool, loc int32) (Scalar, error) {
	op, join := "=", "OR"
	if not {
		op, join = "<>", "AND"
	}
	var out []Scalar
	for _, e := range list {
		r, ok := e.(*Row)
		if !ok {
			return nil, unsupported("a row IN a list holding something else than rows", loc)
		}
		c, err := b.rowComparison(op, l, r, loc)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 1 {
		return out[0], nil
	}
	return &BoolOp{Op: join, Args: out}, nil
}

// joinMarkers gives the items an outer join pads a marker: a column of
// theirs that is an operand of a comparison conjunct of the join's
// condition (strict: a row it matched has it non-NULL).
func joinMarkers(j *Join, l, r *item) {
	if j.Kind != LeftJoin && j.Kind != RightJoin && j.Kind != FullJoin {
		return
	}
	var strict ColSet
	for _, c := range Conjuncts(j.On) {
		if o, ok := c.(*Op); ok && comparisons[o.Op] && len(o.Args) == 2 {
			for _, a := range o.Args {
				if cr, ok := a.(*ColRef); ok {
					strict.Add(cr.ID)
				}
			}
		}
	}
	var mark func(it *item)
	mark = func(it *item) {
		if it.marker == 0 {
			for _, c := range it.cols {
				if strict.Has(c.id) {
					it.marker = c.id
					break
				}
			}
		}
		for _, s := range it.sub {
			mark(s)
		}
	}
	if j.Kind != RightJoin {
		mark(r)
	}
	if j.Kind != LeftJoin {
		mark(l)
	}
}

// tableRowConsumers are the functions whose result is the same for a
// table's whole row (a value of the table's composite type) as for the
// anonymous record of its columns: the JSON conversions (keys are the
// column names, values converted by their types) and count. A table's
// name given to them directly is its whole row (wholeRow's tableOK).
var tableRowConsumers = map[string]bool{
	"row_to_json": true, "to_json": true, "to_jsonb": true, "json_agg": true, "jsonb_agg": true,
	"json_build_object": true, "jsonb_build_object": true, "json_build_array": true, "jsonb_build_array": true,
	"count": true,
}

// markRowArgs records f's direct column-reference arguments when f is
// one of tableRowConsumers (its name unqualified or pg_catalog's).
func (b *binder) markRowArgs(name string, f *pg.FuncCall) {
	if !tableRowConsumers[name] || len(f.Funcname) > 2 {
		return
	}
	for _, a := range f.Args {
		if cr := a.GetColumnRef(); cr != nil {
			if b.rowArgs == nil {
				b.rowArgs = map[*pg.ColumnRef]bool{}
			}
			b.rowArgs[cr] = true
		}
	}
}
