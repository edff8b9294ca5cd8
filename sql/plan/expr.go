package plan

import (
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/builtin"
)

// Scalar is a typed scalar expression over the columns of the operator
// that evaluates it.
type Scalar interface {
	Type() Type
	// format writes the expression for EXPLAIN.
	format(b *strings.Builder, md *Metadata)
}

// ColRef is a column of the input (or, inside a subquery, of an outer
// query: a correlated reference).
type ColRef struct {
	ID ColumnID
	T  Type
}

// Const is a constant in PostgreSQL's text form (Null: NULL of type T).
type Const struct {
	T    Type
	Text string
	Null bool
}

// Param is $N.
type Param struct {
	N int
	T Type
}

// Op is a built-in operator: comparison (= <> < <= > >=), arithmetic
// (+ - * / %), || and the LIKE family (~~ !~~ ~~* !~~*), unary minus
// (one argument), IS [NOT] DISTINCT FROM.
type Op struct {
	Op   string
	Args []Scalar
	T    Type
}

// BoolOp is AND, OR (any number of arguments) or NOT (one).
type BoolOp struct {
	Op   string // AND, OR, NOT
	Args []Scalar
}

// IsNull is arg IS [NOT] NULL.
type IsNull struct {
	Arg Scalar
	Not bool
}

// Func is a scalar function call.
type Func struct {
	Name string
	Args []Scalar
	T    Type
	Ext  *ExtFunc // a function of the Catalog (extfunc.go), nil for the library's
	// Call is the library's overload (nil for coalesce, greatest, least
	// and nullif, which the executor runs itself).
	Call *builtin.Call
}

// Cast is arg::T.
type Cast struct {
	Arg Scalar
	T   Type
}

// Case is CASE [operand] WHEN … THEN … [ELSE …] END (operand folded into
// the conditions by the binder: each When is a boolean).
type Case struct {
	Whens []When
	Else  Scalar // nil: NULL
	T     Type
}

// When is one WHEN cond THEN result.
type When struct{ Cond, Result Scalar }

// InList is arg [NOT] IN (list).
type InList struct {
	Arg  Scalar
	List []Scalar
	Not  bool
}

// SubqueryKind is how a subquery is used in an expression.
type SubqueryKind int

// Subquery kinds.
const (
	SubExists SubqueryKind = iota // EXISTS (…)
	SubScalar                     // (SELECT one column, at most one row)
	SubAny                        // x op ANY (…), x IN (…)
	SubAll                        // x op ALL (…)
	SubArray                      // ARRAY(SELECT one column): its rows' values in order
)

// Subquery is a subquery in an expression. Outer lists the columns of
// enclosing queries it reads (empty: uncorrelated, computable once).
type Subquery struct {
	Kind SubqueryKind
	Plan Rel
	Left Scalar  // SubAny/SubAll: the left operand
	Op   string  // SubAny/SubAll: the comparison
	Col  *ColRef // SubAny/SubAll: the subquery's output column (its right operand)
	// RowLeft and RowCols are the further columns of a row comparison
	// (a, b) = ANY (SELECT x, y …): Left = Col, RowLeft[k] = RowCols[k].
	RowLeft []Scalar
	RowCols []*ColRef
	Outer   []ColumnID
	T       Type
	// Keys are SubArray's ORDER BY: columns of Plan after Col, which
	// the executor reads to refuse rows the ORDER BY leaves tied (their
	// order is PostgreSQL's sort's); nil: no ORDER BY (array.go).
	Keys []SortKey
	// Unordered: a SubArray whose consumer reads no order of its elements
	// (x op ANY/ALL (ARRAY(SELECT …))): rows left tied need no check.
	Unordered bool
}

// Type implements Scalar.
func (c *ColRef) Type() Type   { return c.T }
func (c *Const) Type() Type    { return c.T }
func (p *Param) Type() Type    { return p.T }
func (o *Op) Type() Type       { return o.T }
func (*BoolOp) Type() Type     { return T(Bool) }
func (*IsNull) Type() Type     { return T(Bool) }
func (f *Func) Type() Type     { return f.T }
func (c *Cast) Type() Type     { return c.T }
func (c *Case) Type() Type     { return c.T }
func (*InList) Type() Type     { return T(Bool) }
func (s *Subquery) Type() Type { return s.T }

func (c *ColRef) format(b *strings.Builder, md *Metadata) { b.WriteString(md.Label(c.ID)) }

func (c *Const) format(b *strings.Builder, _ *Metadata) {
	switch {
	case c.Null:
		b.WriteString("NULL")
	case c.T.OID == Int4 || c.T.OID == Int8 || c.T.OID == Numeric || c.T.OID == Bool:
		b.WriteString(c.Text)
	default:
		b.WriteString("'" + strings.ReplaceAll(c.Text, "'", "''") + "'")
	}
	if c.T.OID != Int4 && c.T.OID != Bool && c.T.OID != Unknown && !(c.T.OID == Numeric && c.T.Mod < 0 && !c.Null) && !(c.T.OID == Int8 && !c.Null) {
		b.WriteString("::" + c.T.String())
	}
}

func (p *Param) format(b *strings.Builder, _ *Metadata) { fmt.Fprintf(b, "$%d", p.N) }

func (o *Op) format(b *strings.Builder, md *Metadata) {
	if len(o.Args) == 1 {
		b.WriteString(o.Op)
		formatArg(b, md, o.Args[0])
		return
	}
	formatArg(b, md, o.Args[0])
	b.WriteString(" " + o.Op + " ")
	formatArg(b, md, o.Args[1])
}

// formatArg writes an operand, parenthesised when it is itself an
// operator.
func formatArg(b *strings.Builder, md *Metadata, s Scalar) {
	switch x := s.(type) {
	case *Subquery:
		if x.Left == nil {
			s.format(b, md)
			return
		}
		b.WriteByte('(')
		s.format(b, md)
		b.WriteByte(')')
	case *Op, *BoolOp, *IsNull, *InList:
		b.WriteByte('(')
		s.format(b, md)
		b.WriteByte(')')
	default:
		s.format(b, md)
	}
}

func (o *BoolOp) format(b *strings.Builder, md *Metadata) {
	if o.Op == "NOT" {
		b.WriteString("NOT ")
		formatArg(b, md, o.Args[0])
		return
	}
	for i, a := range o.Args {
		if i > 0 {
			b.WriteString(" " + o.Op + " ")
		}
		formatArg(b, md, a)
	}
}

func (n *IsNull) format(b *strings.Builder, md *Metadata) {
	formatArg(b, md, n.Arg)
	if n.Not {
		b.WriteString(" IS NOT NULL")
	} else {
		b.WriteString(" IS NULL")
	}
}

func (f *Func) format(b *strings.Builder, md *Metadata) {
	b.WriteString(f.Name + "(")
	formatList(b, md, f.Args)
	b.WriteByte(')')
}

func formatList(b *strings.Builder, md *Metadata, list []Scalar) {
	for i, a := range list {
		if i > 0 {
			b.WriteString(", ")
		}
		a.format(b, md)
	}
}

func (c *Cast) format(b *strings.Builder, md *Metadata) {
	formatArg(b, md, c.Arg)
	b.WriteString("::" + c.T.String())
}

func (c *Case) format(b *strings.Builder, md *Metadata) {
	b.WriteString("CASE")
	for _, w := range c.Whens {
		b.WriteString(" WHEN ")
		w.Cond.format(b, md)
		b.WriteString(" THEN ")
		w.Result.format(b, md)
	}
	if c.Else != nil {
		b.WriteString(" ELSE ")
		c.Else.format(b, md)
	}
	b.WriteString(" END")
}

func (l *InList) format(b *strings.Builder, md *Metadata) {
	formatArg(b, md, l.Arg)
	if l.Not {
		b.WriteString(" NOT")
	}
	b.WriteString(" IN (")
	formatList(b, md, l.List)
	b.WriteByte(')')
}

func (s *Subquery) format(b *strings.Builder, md *Metadata) {
	switch s.Kind {
	case SubExists:
		b.WriteString("EXISTS")
	case SubScalar:
		b.WriteString("SUBQUERY")
	case SubArray:
		b.WriteString("ARRAY")
	case SubAny, SubAll:
		if len(s.RowLeft) > 0 {
			b.WriteString("ROW(")
			formatList(b, md, append([]Scalar{s.Left}, s.RowLeft...))
			b.WriteString(")")
		} else {
			formatArg(b, md, s.Left)
		}
		if s.Kind == SubAny {
			b.WriteString(" " + s.Op + " ANY")
		} else {
			b.WriteString(" " + s.Op + " ALL")
		}
	}
	b.WriteString(" (subquery")
	if len(s.Outer) > 0 {
		b.WriteString(" correlated on ")
		for i, id := range s.Outer {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(md.Label(id))
		}
	}
	b.WriteByte(')')
}

// FormatScalar is s as EXPLAIN prints it.
func FormatScalar(s Scalar, md *Metadata) string {
	var b strings.Builder
	s.format(&b, md)
	return b.String()
}

// Walk calls fn for s and every expression inside it (not inside
// subqueries' plans), parents first; fn returning false skips the
// children.
func Walk(s Scalar, fn func(Scalar) bool) {
	if s == nil || !fn(s) {
		return
	}
	for _, c := range Children(s) {
		Walk(c, fn)
	}
}

// Children lists the direct sub-expressions of s.
func Children(s Scalar) []Scalar {
	if out, ok := recordChildren(s); ok {
		return out // record.go
	}
	switch x := s.(type) {
	case *Op:
		return x.Args
	case *BoolOp:
		return x.Args
	case *IsNull:
		return []Scalar{x.Arg}
	case *Func:
		return x.Args
	case *Cast:
		return []Scalar{x.Arg}
	case *Case:
		var out []Scalar
		for _, w := range x.Whens {
			out = append(out, w.Cond, w.Result)
		}
		if x.Else != nil {
			out = append(out, x.Else)
		}
		return out
	case *InList:
		return append([]Scalar{x.Arg}, x.List...)
	case *Subquery:
		if x.Left != nil {
			return append([]Scalar{x.Left}, x.RowLeft...)
		}
	}
	return nil
}

// Map rebuilds s bottom-up with fn applied to each rebuilt node (fn
// returns its argument to keep it).
func Map(s Scalar, fn func(Scalar) Scalar) Scalar {
	if s == nil {
		return nil
	}
	mapAll := func(list []Scalar) []Scalar {
		out := make([]Scalar, len(list))
		for i, a := range list {
			out[i] = Map(a, fn)
		}
		return out
	}
	if m, ok := mapRecord(s, fn); ok {
		return fn(m) // record.go
	}
	switch x := s.(type) {
	case *Op:
		s = &Op{Op: x.Op, Args: mapAll(x.Args), T: x.T}
	case *BoolOp:
		s = &BoolOp{Op: x.Op, Args: mapAll(x.Args)}
	case *IsNull:
		s = &IsNull{Arg: Map(x.Arg, fn), Not: x.Not}
	case *Func:
		s = &Func{Name: x.Name, Args: mapAll(x.Args), T: x.T, Call: x.Call, Ext: x.Ext}
	case *Cast:
		s = &Cast{Arg: Map(x.Arg, fn), T: x.T}
	case *Case:
		c := &Case{T: x.T, Else: Map(x.Else, fn)}
		for _, w := range x.Whens {
			c.Whens = append(c.Whens, When{Cond: Map(w.Cond, fn), Result: Map(w.Result, fn)})
		}
		s = c
	case *InList:
		s = &InList{Arg: Map(x.Arg, fn), List: mapAll(x.List), Not: x.Not}
	case *Subquery:
		c := *x
		c.Left = Map(x.Left, fn)
		if len(x.RowLeft) > 0 {
			c.RowLeft = make([]Scalar, len(x.RowLeft))
			for k, l := range x.RowLeft {
				c.RowLeft[k] = Map(l, fn)
			}
		}
		s = &c
	}
	return fn(s)
}

// ColumnsOf is the set of columns s reads (outer references of its
// subqueries included).
func ColumnsOf(s Scalar) ColSet {
	var out ColSet
	Walk(s, func(x Scalar) bool {
		switch c := x.(type) {
		case *ColRef:
			out.Add(c.ID)
		case *Subquery:
			for _, id := range c.Outer {
				out.Add(id)
			}
		}
		return true
	})
	return out
}

// Conjuncts splits s into its AND-ed parts.
func Conjuncts(s Scalar) []Scalar {
	if b, ok := s.(*BoolOp); ok && b.Op == "AND" {
		var out []Scalar
		for _, a := range b.Args {
			out = append(out, Conjuncts(a)...)
		}
		return out
	}
	if s == nil {
		return nil
	}
	return []Scalar{s}
}

// And joins conjuncts (nil for none).
func And(list []Scalar) Scalar {
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return &BoolOp{Op: "AND", Args: list}
}

// Equal says whether a and b are the same expression (subqueries only
// when they are the same node).
func Equal(a, b Scalar) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if eq, ok := equalRecord(a, b); ok {
		return eq // record.go
	}
	switch x := a.(type) {
	case *ColRef:
		y, ok := b.(*ColRef)
		return ok && x.ID == y.ID
	case *Const:
		y, ok := b.(*Const)
		return ok && *x == *y
	case *Param:
		y, ok := b.(*Param)
		return ok && *x == *y
	case *Op:
		y, ok := b.(*Op)
		return ok && x.Op == y.Op && x.T == y.T && equalList(x.Args, y.Args)
	case *BoolOp:
		y, ok := b.(*BoolOp)
		return ok && x.Op == y.Op && equalList(x.Args, y.Args)
	case *IsNull:
		y, ok := b.(*IsNull)
		return ok && x.Not == y.Not && Equal(x.Arg, y.Arg)
	case *Func:
		y, ok := b.(*Func)
		return ok && x.Name == y.Name && x.T == y.T && equalList(x.Args, y.Args)
	case *Cast:
		y, ok := b.(*Cast)
		return ok && x.T == y.T && Equal(x.Arg, y.Arg)
	case *InList:
		y, ok := b.(*InList)
		return ok && x.Not == y.Not && Equal(x.Arg, y.Arg) && equalList(x.List, y.List)
	case *Case:
		y, ok := b.(*Case)
		if !ok || x.T != y.T || len(x.Whens) != len(y.Whens) || !Equal(x.Else, y.Else) {
			return false
		}
		for i, w := range x.Whens {
			if !Equal(w.Cond, y.Whens[i].Cond) || !Equal(w.Result, y.Whens[i].Result) {
				return false
			}
		}
		return true
	}
	return a == b
}

func equalList(a, b []Scalar) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
