package plan

import "slices"

// aggState collects the aggregate calls of one query level while its
// select list, HAVING and ORDER BY are bound: each call becomes an
// AggExpr with its own output column, and the expression refers to that
// column.
type aggState struct {
	list []AggExpr
	// sets are GROUPING SETS / ROLLUP / CUBE's grouping sets (nil: a
	// plain GROUP BY); groupingsets.go.
	sets [][]Scalar
	// extra are columns the select list may read besides the groups
	// and aggregates (window function results); rewrite is set by
	// aggregate to map an expression onto its output (window.go).
	extra   ColSet
	rewrite func(Scalar) (Scalar, error)
}

// aggregate builds the Aggregate of a grouped query level over rel and
// rewrites the select list, ORDER BY and HAVING onto its output: each
// GROUP BY expression they contain becomes the group's column, and any
// other column of this level they read outside an aggregate is an error
// (42803), as in PostgreSQL.
func (b *binder) aggregate(rel Rel, sc *scope, groups []Scalar, ag *aggState, targets []target, keys []orderKey, having *Scalar) (Rel, error) {
	in := rel.Columns()
	pre := &Project{Input: rel, Cols: append([]ColumnID(nil), in...), Exprs: b.refs(in)}
	computed := false
	a := &Aggregate{Aggs: ag.list}
	byText := map[string]ColumnID{}
	for _, g := range groups {
		key := FormatScalar(g, b.md)
		if _, dup := byText[key]; dup {
			continue
		}
		id := ColumnID(0)
		if c, ok := g.(*ColRef); ok {
			id = c.ID
		} else {
			id = b.md.Add(ColumnMeta{Name: colNameOf(g), Type: g.Type()})
			pre.Cols, pre.Exprs = append(pre.Cols, id), append(pre.Exprs, g)
			computed = true
		}
		byText[key] = id
		a.GroupBy = append(a.GroupBy, id)
	}
	if err := b.groupingSetsOf(a, ag, byText); err != nil {
		return nil, err
	}
	a.Input = rel
	if computed {
		a.Input = pre
	}
	// dependent: columns read through a grouped primary key; those used
	// are added to the grouping (it does not split any group) so the
	// Aggregate outputs them.
	var allowed, dependent ColSet
	for _, id := range a.Columns() {
		allowed.Add(id)
	}
	allowed.AddSet(sc.outer)
	allowed.AddSet(ag.extra)
	// A table whose primary key is grouped on: its other columns are
	// functionally dependent on the group (PostgreSQL allows them). Only
	// the PRIMARY KEY constraint counts, as in PostgreSQL (not a unique
	// index, even the replica identity's).
	for _, s := range levelScans(rel) {
		keyed := len(s.Table.PrimaryKey) > 0 && a.Sets == nil
		for _, k := range s.Table.PrimaryKey {
			i := slices.Index(s.Ords, k)
			keyed = keyed && i >= 0 && slices.Contains(a.GroupBy, s.Cols[i])
		}
		if keyed {
			for _, id := range s.Cols {
				if !allowed.Has(id) {
					allowed.Add(id)
					dependent.Add(id)
				}
			}
		}
	}
	rewrite := func(e Scalar) (Scalar, error) {
		e = Map(e, func(x Scalar) Scalar {
			if id, ok := byText[FormatScalar(x, b.md)]; ok {
				return &ColRef{ID: id, T: x.Type()}
			}
			return x
		})
		for _, id := range ColumnsOf(e).Sorted() {
			if dependent.Has(id) && !slices.Contains(a.GroupBy, id) {
				a.GroupBy = append(a.GroupBy, id)
			}
			if !allowed.Has(id) {
				c := b.md.Column(id)
				name := c.Name
				if c.Table != "" {
					name = c.Table + "." + c.Name
				}
				return nil, errorf(CodeGrouping, "column %q must appear in the GROUP BY clause or be used in an aggregate function", name)
			}
		}
		return e, nil
	}
	ag.rewrite = rewrite
	var err error
	for i := range targets {
		if targets[i].e, err = rewrite(targets[i].e); err != nil {
			return nil, err
		}
	}
	for i := range keys {
		if keys[i].e != nil {
			if keys[i].e, err = rewrite(keys[i].e); err != nil {
				return nil, err
			}
		}
	}
	if *having != nil {
		if *having, err = rewrite(*having); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// levelScans are the table scans of one query level's FROM (not those
// inside subqueries in FROM).
func levelScans(rel Rel) []*Scan {
	switch x := rel.(type) {
	case *Scan:
		return []*Scan{x}
	case *Filter, *Join:
		var out []*Scan
		for _, in := range x.Inputs() {
			out = append(out, levelScans(in)...)
		}
		return out
	case *Project:
		if _, ok := x.Input.(*Join); ok { // a FULL JOIN … USING's merged columns
			return levelScans(x.Input)
		}
	}
	return nil
}

// aggFuncs are the aggregates the planner knows (result types: aggResult).
var aggFuncs = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"bool_and": true, "bool_or": true, "every": true,
	// the variance and standard deviation aggregates of the library
	// (statAggs, sql/builtin: exact over integers and numeric,
	// Youngs–Cramer over floats, as PostgreSQL).
	"stddev": true, "stddev_samp": true, "stddev_pop": true,
	"variance": true, "var_samp": true, "var_pop": true,
	// bit_and/bit_or/bit_xor over integers and bit strings (the library
	// types and folds them: statAggs).
	"bit_and": true, "bit_or": true, "bit_xor": true,
}
