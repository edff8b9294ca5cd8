package sqldiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The random query generator of issue 22 item 6(c): grammar-based, in the
// spirit of SQLsmith, over two small NULL-heavy tables (RandomSetup):
// single-table filters, expressions, aggregates with and without GROUP
// BY, DISTINCT, ORDER BY with LIMIT/OFFSET, inner and left joins, IN /
// EXISTS / scalar subqueries. Every query orders by all its output
// columns, so its answer is fully determined and compares in order.

// RandomSetup creates and fills the generator's tables: rq, rq3 (rq's
// rows in a keyless table) and rq2.
const RandomSetup = `CREATE TABLE rq (id int PRIMARY KEY, a int, b int, t text, f float8, n numeric(10,2), d date, flag bool);
INSERT INTO rq SELECT g,
	CASE WHEN g % 5 = 0 THEN NULL ELSE g % 17 - 8 END,
	CASE WHEN g % 7 = 0 THEN NULL ELSE (g * 13) % 50 END,
	CASE WHEN g % 4 = 0 THEN NULL WHEN g % 9 = 0 THEN upper(chr(97 + g % 5)) || (g % 11) ELSE chr(97 + g % 5) || (g % 11) END,
	CASE WHEN g % 6 = 0 THEN NULL WHEN g = 149 THEN 'NaN'::float8 ELSE (g % 23) / 4.0 - 2 END,
	CASE WHEN g % 8 = 0 THEN NULL ELSE g * 1.25 - 100 END,
	CASE WHEN g % 10 = 0 THEN NULL ELSE date '2026-01-01' + g % 40 END,
	CASE g % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END
FROM generate_series(1, 300) g;
CREATE TABLE rq2 (id int PRIMARY KEY, rid int, a int, t text);
INSERT INTO rq2 SELECT g, (g * 7) % 300 + 1,
	CASE WHEN g % 6 = 0 THEN NULL ELSE g % 13 - 6 END,
	CASE WHEN g % 5 = 0 THEN NULL ELSE chr(97 + g % 4) || (g % 7) END
FROM generate_series(1, 120) g;
CREATE TABLE rq3 AS SELECT * FROM rq;
ALTER TABLE rq3 REPLICA IDENTITY FULL;
ANALYZE rq; ANALYZE rq2; ANALYZE rq3;`

// RandomTables are the tables RandomSetup creates.
var RandomTables = []string{"public.rq", "public.rq2", "public.rq3"}

// Pred is a predicate tree: a leaf (SQL text) or AND/OR/NOT over kids.
type Pred struct {
	Op   string // "", "AND", "OR", "NOT"
	Leaf string
	Kids []*Pred
}

func (p *Pred) sql() string {
	switch p.Op {
	case "":
		return p.Leaf
	case "NOT":
		return "NOT (" + p.Kids[0].sql() + ")"
	default:
		return "(" + p.Kids[0].sql() + " " + p.Op + " " + p.Kids[1].sql() + ")"
	}
}

// RandQuery is one generated query, kept as parts so that a failing one
// can be minimized.
type RandQuery struct {
	Distinct bool
	Items    []string
	From     string
	Where    *Pred
	GroupBy  []string
	Having   string
	Desc     bool
	Nulls    string // "", " NULLS FIRST", " NULLS LAST" on the first key
	// NoOrder leaves ORDER BY out: only for an aggregate without GROUP
	// BY (one row), whose plan can differ from the ordered one's.
	NoOrder bool
	Limit   int // -1: none
	Offset  int // -1: none
}

// SQL prints the query; it orders by every output column (unless NoOrder).
func (q *RandQuery) SQL() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if q.Distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(strings.Join(q.Items, ", "))
	b.WriteString(" FROM " + q.From)
	if q.Where != nil {
		b.WriteString(" WHERE " + q.Where.sql())
	}
	if len(q.GroupBy) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(q.GroupBy, ", "))
	}
	if q.Having != "" {
		b.WriteString(" HAVING " + q.Having)
	}
	if q.NoOrder {
		return b.String()
	}
	ord := make([]string, len(q.Items))
	for i := range ord {
		ord[i] = fmt.Sprint(i + 1)
		if q.Desc && i == 0 {
			ord[i] += " DESC"
		}
		if i == 0 {
			ord[i] += q.Nulls
		}
	}
	b.WriteString(" ORDER BY " + strings.Join(ord, ", "))
	if q.Limit >= 0 {
		fmt.Fprintf(&b, " LIMIT %d", q.Limit)
	}
	if q.Offset >= 0 {
		fmt.Fprintf(&b, " OFFSET %d", q.Offset)
	}
	return b.String()
}

// column is a column of rq or rq2 with its kind.
type column struct{ name, kind string }

var (
	rqCols  = []column{{"id", "int"}, {"a", "int"}, {"b", "int"}, {"t", "text"}, {"f", "float"}, {"n", "numeric"}, {"d", "date"}, {"flag", "bool"}}
	rq2Cols = []column{{"id", "int"}, {"rid", "int"}, {"a", "int"}, {"t", "text"}}
)

// Generator draws random queries from a seeded source.
type Generator struct {
	r    *rand.Rand
	cols []column // columns in scope, qualified when the query joins
}

// NewGenerator seeds a generator.
func NewGenerator(seed uint64) *Generator { return &Generator{r: rand.New(rand.NewPCG(seed, 22))} }

func (g *Generator) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *Generator) col(kinds ...string) column {
	for {
		c := g.cols[g.r.IntN(len(g.cols))]
		if len(kinds) == 0 {
			return c
		}
		for _, k := range kinds {
			if c.kind == k {
				return c
			}
		}
	}
}

// literal is a constant of kind, sometimes NULL.
func (g *Generator) literal(kind string) string {
	if g.r.IntN(12) == 0 {
		return "NULL"
	}
	switch kind {
	case "int":
		if g.r.IntN(25) == 0 {
			return g.pick("2147483647", "-2147483647")
		}
		return fmt.Sprint(g.r.IntN(30) - 10)
	case "text":
		return "'" + g.pick("a", "b", "c", "A", "b3", "c10", "a1", "") + g.pick("", "%", "_") + "'"
	case "float":
		return g.pick("0", "1.5", "-2", "2.25", "'NaN'::float8", "0.75")
	case "numeric":
		return g.pick("0", "-50.00", "25.5", "100", "-87.50", "3.75")
	case "date":
		return fmt.Sprintf("date '2026-01-%02d'", 1+g.r.IntN(28))
	default:
		return g.pick("true", "false")
	}
}

// scalar is an expression of the column's kind (depth-limited).
func (g *Generator) scalar(depth int) string {
	c := g.col()
	if depth <= 0 || g.r.IntN(3) > 0 {
		return c.name
	}
	switch c.kind {
	case "int":
		switch g.r.IntN(5) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", c.name, g.pick("+", "-", "*"), g.literal("int"))
		case 1:
			return fmt.Sprintf("coalesce(%s, %s)", c.name, g.literal("int"))
		case 2:
			return fmt.Sprintf("abs(%s)", c.name)
		case 3:
			return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.pred(0).sql(), c.name, g.literal("int"))
		case 4:
			return fmt.Sprintf("(%s %% 4)", c.name)
		default:
			o := g.col("int")
			return g.pick(fmt.Sprintf("(%s / %s)", c.name, o.name), fmt.Sprintf("(%s / nullif(%s, 0))", c.name, o.name),
				fmt.Sprintf("nullif(%s, %s)", c.name, g.literal("int")), fmt.Sprintf("greatest(%s, %s)", c.name, o.name),
				fmt.Sprintf("(%s::text || 'x')", c.name))
		}
	case "text":
		return g.pick("upper", "lower", "length") + "(" + c.name + ")"
	case "numeric":
		return g.pick(fmt.Sprintf("(%s %s %s)", c.name, g.pick("+", "-", "*", "/"), g.literal("numeric")), fmt.Sprintf("round(%s, 1)", c.name))
	case "float":
		return g.pick(fmt.Sprintf("(%s * 2)", c.name), fmt.Sprintf("(%s / 3)", c.name))
	case "date":
		return fmt.Sprintf("(%s + %d)", c.name, g.r.IntN(5))
	}
	return c.name
}

// pred is a random predicate of the given depth.
func (g *Generator) pred(depth int) *Pred {
	if depth > 0 && g.r.IntN(2) == 0 {
		switch g.r.IntN(5) {
		case 0:
			return &Pred{Op: "NOT", Kids: []*Pred{g.pred(depth - 1)}}
		case 1, 2:
			return &Pred{Op: "AND", Kids: []*Pred{g.pred(depth - 1), g.pred(depth - 1)}}
		default:
			return &Pred{Op: "OR", Kids: []*Pred{g.pred(depth - 1), g.pred(depth - 1)}}
		}
	}
	c := g.col()
	var leaf string
	switch g.r.IntN(10) {
	case 0:
		leaf = c.name + g.pick(" IS NULL", " IS NOT NULL")
	case 1:
		if c.kind == "bool" {
			leaf = g.pick("", "NOT ") + c.name
		} else {
			leaf = fmt.Sprintf("%s %sIN (%s, %s, %s)", c.name, g.pick("", "NOT "), g.literal(c.kind), g.literal(c.kind), g.literal(c.kind))
		}
	case 2:
		leaf = fmt.Sprintf("%s %sBETWEEN %s AND %s", c.name, g.pick("", "NOT "), g.literal(c.kind), g.literal(c.kind))
	case 3:
		t := g.col("text")
		leaf = fmt.Sprintf("%s %sLIKE %s", t.name, g.pick("", "NOT "), g.literal("text"))
	case 4:
		o := g.col(c.kind)
		leaf = fmt.Sprintf("%s %s %s", c.name, g.pick("=", "<>", "<", ">="), o.name)
	case 5:
		i := g.col("int")
		leaf = fmt.Sprintf("%s %sIN (SELECT a FROM rq2 WHERE rq2.id %s %d)", i.name, g.pick("", "NOT "), g.pick("<", ">"), g.r.IntN(120))
	case 6:
		i := g.col("int")
		leaf = fmt.Sprintf("%sEXISTS (SELECT 1 FROM rq2 WHERE rq2.a = %s)", g.pick("", "NOT "), i.name)
	case 7:
		i := g.col("int")
		leaf = fmt.Sprintf("%s %s (SELECT %s(a) FROM rq2)", i.name, g.pick("<", ">", "="), g.pick("min", "max", "count"))
	default:
		leaf = fmt.Sprintf("%s %s %s", c.name, g.pick("=", "<>", "<", "<=", ">", ">="), g.literal(c.kind))
	}
	return &Pred{Leaf: leaf}
}

// Next draws a query.
func (g *Generator) Next() *RandQuery {
	q := &RandQuery{Limit: -1, Offset: -1}
	g.cols = rqCols
	q.From = "rq"
	switch g.r.IntN(8) {
	case 0:
		q.From = "rq JOIN rq2 ON rq.a = rq2.a"
	case 1:
		q.From = "rq LEFT JOIN rq2 ON rq.id = rq2.rid"
	case 2:
		q.From = "rq3" // the same rows without a key (REPLICA IDENTITY FULL)
	}
	if strings.Contains(q.From, "JOIN") {
		g.cols = nil
		for _, c := range rqCols {
			g.cols = append(g.cols, column{"rq." + c.name, c.kind})
		}
		for _, c := range rq2Cols {
			g.cols = append(g.cols, column{"rq2." + c.name, c.kind})
		}
	}
	if g.r.IntN(4) > 0 {
		q.Where = g.pred(2)
	}
	switch g.r.IntN(10) {
	case 0, 1, 2: // aggregates
		if g.r.IntN(3) > 0 {
			k := g.col("int", "text", "bool", "date")
			q.GroupBy = []string{k.name}
			q.Items = append(q.Items, k.name)
		}
		for range 1 + g.r.IntN(3) {
			c := g.col()
			switch g.r.IntN(6) {
			case 0:
				q.Items = append(q.Items, "count(*)")
			case 1:
				q.Items = append(q.Items, "count("+c.name+")")
			case 2, 3:
				// Not over bool: PostgreSQL has no min/max(boolean) (42883)
				// and the sidecar answers them today (a known wrong answer,
				// issue 22 item 5); the generator stays on what must agree.
				m := g.col("int", "text", "float", "numeric", "date")
				q.Items = append(q.Items, g.pick("min", "max")+"("+m.name+")")
			case 4:
				i := g.col("int")
				q.Items = append(q.Items, g.pick("sum", "avg", "count")+"("+g.pick("DISTINCT ", "")+i.name+" "+g.pick("*", "+", "-")+" 2)")
			default:
				n := g.col("int", "numeric", "float")
				q.Items = append(q.Items, g.pick("sum", "avg")+"("+n.name+")")
			}
		}
		q.NoOrder = len(q.GroupBy) == 0 && g.r.IntN(2) == 0
		if len(q.GroupBy) > 0 && g.r.IntN(3) == 0 {
			q.Having = fmt.Sprintf("count(*) %s %d", g.pick(">", "<", "="), g.r.IntN(8))
		}
	default:
		for range 1 + g.r.IntN(4) {
			q.Items = append(q.Items, g.scalar(1))
		}
		q.Distinct = g.r.IntN(8) == 0
	}
	q.Desc = g.r.IntN(3) == 0
	q.Nulls = g.pick("", "", "", " NULLS FIRST", " NULLS LAST")
	if g.r.IntN(3) == 0 {
		q.Limit = g.r.IntN(20)
		if g.r.IntN(2) == 0 {
			q.Offset = g.r.IntN(10)
		}
	}
	return q
}

// Shrinks are the queries one step simpler than q: an output column
// fewer, a predicate replaced by one of its kids or dropped, no
// LIMIT/OFFSET/DISTINCT.
func (q *RandQuery) Shrinks() []*RandQuery {
	var out []*RandQuery
	with := func(f func(c *RandQuery)) {
		c := *q
		c.Items = append([]string(nil), q.Items...)
		f(&c)
		out = append(out, &c)
	}
	for i := range q.Items {
		if len(q.Items) > 1 {
			with(func(c *RandQuery) { c.Items = append(c.Items[:i:i], q.Items[i+1:]...) })
		}
	}
	if q.Where != nil {
		with(func(c *RandQuery) { c.Where = nil })
		for _, k := range q.Where.Kids {
			with(func(c *RandQuery) { c.Where = k })
		}
	}
	if q.Limit >= 0 {
		with(func(c *RandQuery) { c.Limit = -1 })
	}
	if q.Offset >= 0 {
		with(func(c *RandQuery) { c.Offset = -1 })
	}
	if q.Distinct {
		with(func(c *RandQuery) { c.Distinct = false })
	}
	if q.Desc {
		with(func(c *RandQuery) { c.Desc = false })
	}
	if q.Nulls != "" {
		with(func(c *RandQuery) { c.Nulls = "" })
	}
	if q.Having != "" {
		with(func(c *RandQuery) { c.Having = "" })
	}
	return out
}

// Minimize shrinks q while fails says the shrunk query still fails, and
// returns the smallest failing query it reached.
func Minimize(q *RandQuery, fails func(*RandQuery) bool) *RandQuery {
	for steps := 0; steps < 200; steps++ {
		progressed := false
		for _, s := range q.Shrinks() {
			if fails(s) {
				q, progressed = s, true
				break
			}
		}
		if !progressed {
			return q
		}
	}
	return q
}
