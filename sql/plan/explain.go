package plan

import (
	"fmt"
	"strings"
)

// Explain prints q's plan, one operator a line, inputs indented under
// their operator, after a header naming the result columns and types.
func Explain(q *Query) string {
	var b strings.Builder
	b.WriteString("columns:")
	for i, id := range q.Plan.Columns() {
		fmt.Fprintf(&b, " %s %s", q.Names[i], q.MD.Column(id).Type)
		if i < len(q.Names)-1 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('\n')
	for i, t := range q.Params {
		fmt.Fprintf(&b, "param $%d: %s\n", i+1, t)
	}
	explainRel(&b, q.MD, q.Plan, 0)
	return b.String()
}

// est is how EXPLAIN shows an optimizer's row estimate ("" for none).
func est(rows float64) string {
	if rows <= 0 {
		return ""
	}
	return fmt.Sprintf(" [rows≈%.0f]", rows)
}

func explainRel(b *strings.Builder, md *Metadata, r Rel, depth int) {
	ind := strings.Repeat("  ", depth)
	line := func(format string, args ...any) {
		b.WriteString(ind)
		fmt.Fprintf(b, format, args...)
		b.WriteByte('\n')
	}
	expr := func(s Scalar) string { return FormatScalar(s, md) }
	cols := func(ids []ColumnID) string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = md.Label(id)
		}
		return strings.Join(out, ", ")
	}
	switch x := r.(type) {
	case *Scan:
		name := x.Table.QualifiedName()
		if x.Alias != x.Table.Name {
			name += " AS " + x.Alias
		}
		order := ""
		if x.Order != NoKeyOrder {
			order = " [" + x.Order.String() + "]"
		}
		line("Scan %s (%s)%s%s", name, cols(x.Cols), est(x.Est), order)
		if x.Key != nil {
			line("  key: %s", formatKey(x, md))
		}
		if x.Filter != nil {
			line("  filter: %s", expr(x.Filter))
		}
	case *Filter:
		if x.Gate {
			line("One-Time Filter %s", expr(x.Pred))
		} else {
			line("Filter %s", expr(x.Pred))
		}
	case *Project:
		parts := make([]string, len(x.Cols))
		for i, id := range x.Cols {
			if c, ok := x.Exprs[i].(*ColRef); ok && c.ID == id {
				parts[i] = md.Label(id)
			} else {
				parts[i] = fmt.Sprintf("%s := %s", md.Label(id), expr(x.Exprs[i]))
			}
		}
		if len(parts) == 0 {
			parts = []string{"(no columns)"}
		}
		line("Project %s", strings.Join(parts, ", "))
	case *Join:
		if x.On != nil {
			side := ""
			if x.BuildLeft {
				side = " [hash on left]"
			}
			line("%s Join on %s%s%s", x.Kind, expr(x.On), est(x.Est), side)
		} else {
			line("%s Join%s", x.Kind, est(x.Est))
		}
	case *Aggregate:
		var aggs []string
		for _, a := range x.Aggs {
			aggs = append(aggs, md.Label(a.Col))
		}
		switch {
		case len(x.GroupBy) > 0 && len(aggs) > 0:
			line("Aggregate group by %s: %s", cols(x.GroupBy), strings.Join(aggs, ", "))
		case len(x.GroupBy) > 0:
			line("Aggregate group by %s", cols(x.GroupBy))
		default:
			line("Aggregate %s", strings.Join(aggs, ", "))
		}
	case *Window:
		line("%s", explainWindow(x, md))
	case *Sort:
		var keys []string
		for _, k := range x.Keys {
			s := md.Label(k.Col)
			if k.Desc {
				s += " DESC"
			}
			if k.NullsFirst != k.Desc {
				if k.NullsFirst {
					s += " NULLS FIRST"
				} else {
					s += " NULLS LAST"
				}
			}
			keys = append(keys, s)
		}
		line("Sort %s", strings.Join(keys, ", "))
	case *Limit:
		s := "Limit"
		if x.Count != nil {
			s += " " + expr(x.Count)
		}
		if x.Offset != nil {
			s += " offset " + expr(x.Offset)
		}
		if len(x.Ties) > 0 {
			s += " with ties"
		}
		line("%s", s)
	case *Distinct:
		if len(x.On) > 0 {
			line("Distinct on %s", cols(x.On))
		} else {
			line("Distinct")
		}
	case *SetOp:
		all := ""
		if x.All {
			all = " All"
		}
		line("%s%s (%s)", x.Kind, all, cols(x.Cols))
	case *Values:
		line("Values %d rows (%s)", len(x.Rows), cols(x.Cols))
	case *With:
		line("With")
		for _, c := range x.CTEs {
			line("  CTE %s #%d (%d references)", c.Name, c.ID, c.Refs)
			explainRel(b, md, c.Plan, depth+2)
		}
		explainRel(b, md, x.Body, depth+1)
		return
	case *CTERef:
		line("CTE scan %s #%d (%s)", x.CTE.Name, x.CTE.ID, cols(x.Cols))
	case *FuncScan:
		var args []string
		for _, a := range x.Args {
			args = append(args, expr(a))
		}
		line("Function scan %s(%s) (%s)", x.Name, strings.Join(args, ", "), cols(x.Cols))
	case *RecursiveUnion:
		all := ""
		if x.All {
			all = " All"
		}
		line("Recursive Union%s %s #%d (%s)", all, x.Name, x.Work.ID, cols(x.Cols))
	case *RowsFrom:
		var fs []string
		for _, f := range x.Funcs {
			var args []string
			for _, a := range f.Args {
				args = append(args, expr(a))
			}
			fs = append(fs, f.Name+"("+strings.Join(args, ", ")+")")
		}
		line("Rows From %s (%s)", strings.Join(fs, ", "), cols(x.Columns()))
	case *LateralJoin:
		kind := ""
		if x.LeftOuter {
			kind = " Left"
		}
		line("Lateral%s Join (outer: %s)", kind, cols(x.Outer))
	}
	explainSubqueries(b, md, r, depth+1)
	for _, in := range r.Inputs() {
		explainRel(b, md, in, depth+1)
	}
}

// explainSubqueries prints the plans of the subqueries in r's own
// expressions.
func explainSubqueries(b *strings.Builder, md *Metadata, r Rel, depth int) {
	for _, e := range ExprsOf(r) {
		Walk(e, func(s Scalar) bool {
			if sq, ok := s.(*Subquery); ok {
				b.WriteString(strings.Repeat("  ", depth))
				fmt.Fprintf(b, "Subquery (%s)\n", FormatScalar(sq, md))
				explainRel(b, md, sq.Plan, depth+1)
			}
			return true
		})
	}
}

// ExprsOf lists the expressions an operator evaluates itself.
func ExprsOf(r Rel) []Scalar {
	switch x := r.(type) {
	case *Scan:
		if x.Filter != nil {
			return []Scalar{x.Filter}
		}
	case *Filter:
		return []Scalar{x.Pred}
	case *Project:
		return x.Exprs
	case *Join:
		if x.On != nil {
			return []Scalar{x.On}
		}
	case *Aggregate:
		var out []Scalar
		for _, a := range x.Aggs {
			out = append(out, a.Args...)
		}
		return out
	case *Values:
		var out []Scalar
		for _, row := range x.Rows {
			out = append(out, row...)
		}
		return out
	case *FuncScan:
		return x.Args
	case *RowsFrom:
		var out []Scalar
		for _, f := range x.Funcs {
			out = append(out, f.Args...)
		}
		return out
	}
	return nil
}

// formatKey prints a scan's key range.
func formatKey(s *Scan, md *Metadata) string {
	var parts []string
	for i, e := range s.Key.Eq {
		parts = append(parts, fmt.Sprintf("%s = %s", s.Table.Columns[s.Table.Key[i]].Name, FormatScalar(e, md)))
	}
	if s.Key.Lo != nil || s.Key.Hi != nil {
		col := s.Table.Columns[s.Table.Key[len(s.Key.Eq)]].Name
		if s.Key.Lo != nil {
			op := ">"
			if s.Key.LoIncl {
				op = ">="
			}
			parts = append(parts, fmt.Sprintf("%s %s %s", col, op, FormatScalar(s.Key.Lo, md)))
		}
		if s.Key.Hi != nil {
			op := "<"
			if s.Key.HiIncl {
				op = "<="
			}
			parts = append(parts, fmt.Sprintf("%s %s %s", col, op, FormatScalar(s.Key.Hi, md)))
		}
	}
	s2 := strings.Join(parts, " AND ")
	if len(s.Key.Eq) == len(s.Table.Key) {
		s2 += " (point get)"
	}
	return s2
}
