package sqlfront

import (
	"fmt"
	"strings"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// explainOptions checks EXPLAIN's options: sidecar shows its plan
// without costs and never runs the statement, so ANALYZE and formats
// other than text are refused (0A000) rather than answered differently.
func explainOptions(es *pg.ExplainStmt) error {
	for _, o := range es.Options {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		switch strings.ToLower(de.Defname) {
		case "costs", "verbose", "summary", "settings", "generic_plan", "buffers", "wal", "timing":
			// Accepted: sidecar has no costs, and the others only
			// change output it does not have.
		case "format":
			if v := de.Arg.GetString_(); v != nil && strings.EqualFold(v.Sval, "text") {
				continue
			}
			return unsupported(int(de.Location), "EXPLAIN (FORMAT …) other than TEXT")
		case "analyze":
			return unsupported(int(de.Location), "EXPLAIN ANALYZE").hint("sidecar shows the plan without running it: use EXPLAIN")
		default:
			return unsupported(int(de.Location), "EXPLAIN option "+de.Defname)
		}
	}
	if es.Query.GetSelectStmt() == nil {
		return unsupported(nodeLoc(es.Query), "EXPLAIN of a statement other than SELECT")
	}
	return nil
}

// explainPlan turns a planned select into EXPLAIN's answer: one text
// column "QUERY PLAN", a line per step of where and how sidecar runs it
// (no costs: sidecar has no cost model yet).
func explainPlan(p *plan) *plan {
	var lines []string
	add := func(depth int, format string, args ...any) {
		prefix := ""
		if depth > 0 {
			prefix = strings.Repeat("      ", depth-1) + "  ->  "
		}
		lines = append(lines, prefix+fmt.Sprintf(format, args...))
	}
	if p.vec != nil && p.vec.query != nil {
		return explainResult(p, vecExplainLines(p.vec.query))
	}
	depth := 0
	if p.limit != nil || p.offset != nil {
		add(depth, "Limit")
		depth++
	}
	switch {
	case p.agg != nil:
		if p.agg.post && len(p.order) > 0 {
			add(depth, "Sort (evaluator)")
			depth++
		}
		add(depth, "Aggregate on the query engine (vectorized; the evaluator when an execution cannot run there)")
		if p.agg.post {
			lines = append(lines, indent(depth)+"  Output and HAVING: evaluator, over the engine's groups")
		}
		if len(p.agg.groupBy) > 0 {
			lines = append(lines, indent(depth)+"  Group Key: "+strings.Join(p.agg.groupBy, ", "))
		}
		var aggs []string
		for _, a := range p.agg.aggs {
			aggs = append(aggs, a.Name())
		}
		lines = append(lines, indent(depth)+"  Aggregates: "+strings.Join(aggs, ", "))
		if p.agg.where != nil {
			lines = append(lines, indent(depth)+"  Filter: on the engine")
		}
		explainScan(p, 0, depth+1, add)
		return explainResult(p, lines)
	case p.rows != nil:
		add(depth, "Row scan on the query engine in key order (filter vectorized)")
		explainScan(p, 0, depth+1, add)
		return explainResult(p, lines)
	}
	if len(p.order) > 0 {
		add(depth, "Sort")
		depth++
	}
	if len(p.aggs) > 0 || p.grouping {
		add(depth, "Aggregate (evaluator)")
		depth++
	}
	if p.distinct {
		add(depth, "Unique")
		depth++
	}
	switch len(p.from) {
	case 0:
		add(depth, "Result")
	case 1:
		explainScan(p, 0, depth, add)
		if p.where != nil {
			lines = append(lines, indent(depth)+"  Filter: evaluator")
		}
		if p.direct {
			lines = append(lines, indent(depth)+"  Output: stored rows sent as they are")
		}
	default:
		kind := "Hash Join"
		if p.joinLeft {
			kind = "Hash Left Join"
		}
		add(depth, "%s (evaluator)", kind)
		explainScan(p, 0, depth+1, add)
		add(depth+1, "Hash")
		explainScan(p, 1, depth+2, add)
		if p.where != nil {
			lines = append(lines, indent(depth)+"  Filter: evaluator")
		}
	}
	return explainResult(p, lines)
}

func indent(depth int) string {
	if depth == 0 {
		return ""
	}
	return strings.Repeat("      ", depth-1) + "    "
}

// explainScan adds the line of FROM item i: how its rows are read.
func explainScan(p *plan, i, depth int, add func(int, string, ...any)) {
	it := p.from[i]
	name := it.alias
	if it.table != nil {
		name = it.table.Name
		if it.alias != it.table.Rel {
			name += " " + it.alias
		}
	}
	at := ""
	if it.asOf != "" {
		at = " AS OF '" + strings.ReplaceAll(it.asOf, "'", "''") + "'"
	}
	switch {
	case it.virt != nil:
		add(depth, "Function Scan on %s", name)
	case len(it.keyEq) > 0:
		add(depth, "Primary Key Lookup on %s%s (%d keys)", name, at, len(it.keyEq))
	case it.lo != nil || it.hi != nil || it.likePat != nil:
		add(depth, "Primary Key Range Scan on %s%s", name, at)
	default:
		add(depth, "Seq Scan on %s%s", name, at)
	}
}

// explainResult is the plan that answers EXPLAIN with lines.
func explainResult(p *plan, lines []string) *plan {
	return &plan{kind: "explain", tag: "EXPLAIN", params: p.params, explain: lines,
		cols: []outCol{{name: "QUERY PLAN", typ: oidText, typmod: -1}}, targets: []expr{&constExpr{t: oidText}}}
}

// vecExplainLines is EXPLAIN's answer for a statement sql/exec runs: a
// header line, then its optimized plan tree as sql/plan prints it (an
// operator a line, inputs indented under it; estimated rows where the
// optimizer has them). The result-column and parameter lines of
// lplan.Explain's header are left out: the client has them.
func vecExplainLines(q *lplan.Query) []string {
	lines := []string{"SQL engine plan (vectorized executor)"}
	for _, l := range strings.Split(strings.TrimRight(lplan.Explain(q), "\n"), "\n") {
		if strings.HasPrefix(l, "columns:") || strings.HasPrefix(l, "param $") {
			continue
		}
		lines = append(lines, "  "+l)
	}
	return lines
}
