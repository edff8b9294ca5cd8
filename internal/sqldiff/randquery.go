package sqldiff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// The random query generator of issue 22 item 6(c): grammar-based, in the
// spirit of SQLsmith, over three small NULL-heavy tables (RandomSetup).
// Its grammar: single-table filters; inner, LEFT/RIGHT/FULL, USING and
// NATURAL joins of up to three tables; LATERAL subqueries and functions;
// derived tables; CTEs, MATERIALIZED or not, and recursive ones; EXISTS,
// IN, NOT IN, scalar and ANY/ALL subqueries, correlated or not;
// aggregates with DISTINCT, FILTER and ordered string_agg/array_agg;
// GROUP BY with ROLLUP/CUBE/GROUPING SETS and GROUPING(); HAVING; window
// functions with ROWS/RANGE/GROUPS frames and EXCLUDE; DISTINCT and
// DISTINCT ON; set operations; CASE/COALESCE/NULLIF/GREATEST; casts
// among int2/int4/int8/numeric/float8/text/date/timestamp/interval/bool;
// ORDER BY with NULLS FIRST/LAST and LIMIT/OFFSET.
//
// Every query orders by all its output columns, so its answer is fully
// determined and compares in order (rows that tie on every column print
// alike). For that to hold the generator avoids values that compare
// equal but print differently (float -0 and 0, numeric 1.0 and 1.00,
// interval 1 day and 24 hours) wherever a query groups, deduplicates or
// could order two such rows differently; window functions whose value
// depends on the order of peers get a total window order.

// RandomSetup creates and fills the generator's tables: rq, rq3 (rq's
// rows in a keyless table) and rq2.
const RandomSetup = `CREATE TABLE rq (id int PRIMARY KEY, a int, b int, t text, f float8, n numeric(10,2), d date, flag bool, s int2, l int8, ts timestamp, iv interval);
INSERT INTO rq SELECT g,
	CASE WHEN g % 5 = 0 THEN NULL ELSE g % 17 - 8 END,
	CASE WHEN g % 7 = 0 THEN NULL ELSE (g * 13) % 50 END,
	CASE WHEN g % 4 = 0 THEN NULL WHEN g % 9 = 0 THEN upper(chr(97 + g % 5)) || (g % 11) ELSE chr(97 + g % 5) || (g % 11) END,
	CASE WHEN g % 6 = 0 THEN NULL WHEN g = 149 THEN 'NaN'::float8 ELSE (g % 23) / 4.0 - 2 END,
	CASE WHEN g % 8 = 0 THEN NULL ELSE g * 1.25 - 100 END,
	CASE WHEN g % 10 = 0 THEN NULL ELSE date '2026-01-01' + g % 40 END,
	CASE g % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END,
	CASE WHEN g % 11 = 0 THEN NULL WHEN g = 7 THEN 32767 WHEN g = 8 THEN -32768 ELSE g % 9 - 3 END,
	CASE WHEN g % 13 = 0 THEN NULL WHEN g = 5 THEN 9223372036854775807 WHEN g = 6 THEN 4294967296 ELSE (g % 21)::int8 * 1000000007 - 10000000070 END,
	CASE WHEN g % 9 = 0 THEN NULL ELSE timestamp '2025-12-30 22:00' + g * interval '5 hours 17 minutes' END,
	CASE WHEN g % 7 = 3 THEN NULL ELSE (ARRAY['1 day', '2 hours', '1 mon', '-3 days 04:00:00', '00:00:30', '1 year 2 mons', '-00:00:00.5'])[1 + g % 7]::interval END
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
	With     string // a WITH clause (without the query), "" for none
	Distinct bool
	// DistinctOn makes the query DISTINCT ON its first output column
	// (which ORDER BY 1 then leads, as PostgreSQL requires).
	DistinctOn bool
	Items      []string
	From       string
	Where      *Pred
	GroupBy    []string
	// Grouping is "", "ROLLUP", "CUBE" or "GROUPING SETS": how GroupBy's
	// keys are grouped.
	Grouping string
	Having   string
	// SetOp is a set operation and its second branch ("UNION SELECT …"),
	// with as many columns as Items of the same types.
	SetOp string
	// Dirs are the directions (" DESC", " NULLS FIRST", …) of the ORDER
	// BY keys, by position; missing ones are ascending.
	Dirs []string
	// NoOrder leaves ORDER BY out: only for an aggregate without GROUP
	// BY (one row), whose plan can differ from the ordered one's.
	NoOrder bool
	Limit   int // -1: none
	Offset  int // -1: none
}

// SQL prints the query; it orders by every output column (unless NoOrder).
func (q *RandQuery) SQL() string {
	var b strings.Builder
	if q.With != "" {
		b.WriteString(q.With + " ")
	}
	b.WriteString("SELECT ")
	switch {
	case q.DistinctOn:
		b.WriteString("DISTINCT ON (" + stripAlias(q.Items[0]) + ") ")
	case q.Distinct:
		b.WriteString("DISTINCT ")
	}
	b.WriteString(strings.Join(q.Items, ", "))
	b.WriteString(" FROM " + q.From)
	if q.Where != nil {
		b.WriteString(" WHERE " + q.Where.sql())
	}
	if len(q.GroupBy) > 0 {
		keys := strings.Join(q.GroupBy, ", ")
		switch q.Grouping {
		case "ROLLUP", "CUBE":
			keys = q.Grouping + " (" + keys + ")"
		case "GROUPING SETS":
			sets := []string{"(" + keys + ")"}
			for _, k := range q.GroupBy {
				sets = append(sets, "("+k+")")
			}
			keys = "GROUPING SETS (" + strings.Join(append(sets, "()"), ", ") + ")"
		}
		b.WriteString(" GROUP BY " + keys)
	}
	if q.Having != "" {
		b.WriteString(" HAVING " + q.Having)
	}
	if q.SetOp != "" {
		b.WriteString(" " + q.SetOp)
	}
	if q.NoOrder {
		return b.String()
	}
	ord := make([]string, len(q.Items))
	for i := range ord {
		ord[i] = fmt.Sprint(i + 1)
		if i < len(q.Dirs) {
			ord[i] += q.Dirs[i]
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

// stripAlias drops an item's " AS name".
func stripAlias(item string) string {
	if i := strings.LastIndex(item, " AS "); i >= 0 && !strings.ContainsAny(item[i+4:], " ()") {
		return item[:i]
	}
	return item
}

// column is a column in scope with its kind: int, int2, int8, numeric,
// float, text, date, ts, iv or bool.
type column struct{ name, kind string }

var (
	rqCols = []column{{"id", "int"}, {"a", "int"}, {"b", "int"}, {"t", "text"}, {"f", "float"}, {"n", "numeric"}, {"d", "date"},
		{"flag", "bool"}, {"s", "int2"}, {"l", "int8"}, {"ts", "ts"}, {"iv", "iv"}}
	rq2Cols = []column{{"id", "int"}, {"rid", "int"}, {"a", "int"}, {"t", "text"}}
)

// keyKinds are the kinds whose equal values print alike: safe to group,
// deduplicate and order by when rows may tie.
var keyKinds = []string{"int", "int2", "int8", "text", "date", "ts", "bool"}

// Generator draws random queries from a seeded source.
type Generator struct {
	r    *rand.Rand
	cols []column // columns in scope, qualified when the query joins
	// quiet: the expression is a predicate's operand, where an error
	// (an overflowing cast) would depend on the order PostgreSQL's plan
	// evaluates quals and rows in; only expressions that cannot fail
	quiet int
	// uniq are expressions unique over the FROM's rows (nil: none known)
	uniq []string
}

// NewGenerator seeds a generator.
func NewGenerator(seed uint64) *Generator { return &Generator{r: rand.New(rand.NewPCG(seed, 22))} }

func (g *Generator) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *Generator) one(n int) bool           { return g.r.IntN(n) == 0 }

// col draws a column in scope of one of kinds (any when none); when the
// scope has none of them it returns a literal of the first kind.
func (g *Generator) col(kinds ...string) column {
	var c []column
	for _, x := range g.cols {
		if len(kinds) == 0 {
			c = append(c, x)
			continue
		}
		for _, k := range kinds {
			if x.kind == k {
				c = append(c, x)
			}
		}
	}
	if len(c) == 0 {
		return column{g.typedLiteral(kinds[0]), kinds[0]}
	}
	return c[g.r.IntN(len(c))]
}

func (g *Generator) has(kind string) bool {
	for _, c := range g.cols {
		if c.kind == kind {
			return true
		}
	}
	return false
}

// literal is a constant of kind, sometimes NULL.
func (g *Generator) literal(kind string) string {
	if g.one(12) {
		return "NULL"
	}
	switch kind {
	case "int":
		if g.one(25) && g.quiet == 0 {
			return g.pick("2147483647", "-2147483647")
		}
		if v := g.r.IntN(30) - 10; v < 0 {
			return fmt.Sprintf("(%d)", v)
		} else {
			return fmt.Sprint(v)
		}
	case "int2":
		return g.pick("0::int2", "3::int2", "(-2)::int2", "32767::int2", "7::int2")
	case "int8":
		return g.pick("0::int8", "5::int8", "9223372036854775807", "(-3)::int8", "4294967296", "10000000070")
	case "text":
		return "'" + g.pick("a", "b", "c", "A", "b3", "c10", "a1", "") + g.pick("", "%", "_") + "'"
	case "float":
		return g.pick("0::float8", "1.5::float8", "(-2)::float8", "2.25::float8", "'NaN'::float8", "0.75::float8", "'Infinity'::float8")
	case "numeric":
		return g.pick("0.00", "-50.00", "25.50", "100.00", "-87.50", "3.75")
	case "date":
		return fmt.Sprintf("date '2026-01-%02d'", 1+g.r.IntN(28))
	case "ts":
		return g.pick("timestamp '2026-01-01 00:00'", "timestamp '2026-01-15 12:30'", "timestamp '2026-02-10 06:00:00.25'", "timestamp 'infinity'")
	case "iv":
		return g.pick("interval '1 day'", "interval '3 hours'", "interval '1 mon'", "interval '-2 days 01:00:00'", "interval '00:00:00.5'")
	default:
		return g.pick("true", "false")
	}
}

// sqlTypes name each kind's type.
var sqlTypes = map[string]string{"int": "int4", "int2": "int2", "int8": "int8", "numeric": "numeric", "float": "float8",
	"text": "text", "date": "date", "ts": "timestamp", "iv": "interval", "bool": "bool"}

// typedLiteral is literal with a NULL typed: an expression's operand
// (an untyped NULL there is ambiguous: - NULL, date + NULL).
func (g *Generator) typedLiteral(kind string) string {
	if l := g.literal(kind); l != "NULL" {
		return l
	}
	return "NULL::" + sqlTypes[kind]
}

// item is a select-list expression of kind (which numeric's scale and
// interval's form keep printing alike when equal): an interval computed from
// others goes through justify_interval, so that equal intervals (1 day
// and 24:00:00, 1 mon and 30 days) print alike and ORDER BY over every
// column stays total.
func (g *Generator) item(kind string, depth int) string {
	e := g.expr(kind, depth)
	if kind == "iv" && strings.ContainsAny(e, "(") {
		return "justify_interval(" + e + ")"
	}
	if kind == "numeric" && (strings.Contains(e, "CASE") || strings.Contains(e, "COALESCE(") || strings.Contains(e, "NULLIF(") ||
		strings.Contains(e, "GREATEST(") || strings.Contains(e, "LEAST(")) {
		// the value of one of several expressions, whose scales may
		// differ (15.00 and 15.000): one scale
		return "round(" + e + ", 3)"
	}
	return e
}

// kinds are the kinds an expression can have.
var kinds = []string{"int", "int2", "int8", "numeric", "float", "text", "date", "ts", "iv", "bool"}

// expr is an expression of kind over the scope (depth-limited). It never
// makes float -0 (a product with 0, round of a small negative).
func (g *Generator) expr(kind string, depth int) string {
	if depth <= 0 || g.one(3) {
		if g.has(kind) && !g.one(6) {
			return g.col(kind).name
		}
		return g.typedLiteral(kind)
	}
	d := depth - 1
	switch g.r.IntN(10) {
	case 0:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.pred(0).sql(), g.expr(kind, d), g.expr(kind, d))
	case 1:
		return fmt.Sprintf("COALESCE(%s, %s)", g.expr(kind, d), g.expr(kind, d))
	case 2:
		if kind != "bool" {
			return fmt.Sprintf("%s(%s, %s)", g.pick("NULLIF", "GREATEST", "LEAST"), g.expr(kind, d), g.expr(kind, d))
		}
	case 3:
		if kind != "bool" && kind != "iv" && g.one(2) {
			return fmt.Sprintf("CASE %s WHEN %s THEN %s WHEN %s THEN %s END", g.expr(kind, 0), g.typedLiteral(kind), g.expr(kind, d), g.typedLiteral(kind), g.expr(kind, d))
		}
	}
	if g.quiet > 0 {
		switch kind {
		case "int2", "int8", "date", "iv":
			return g.expr(kind, 0)
		case "int":
			return g.pick(fmt.Sprintf("(%s + %s)", g.expr("int", d), g.expr("int", d)), fmt.Sprintf("abs(%s)", g.expr("int", d)),
				fmt.Sprintf("length(%s)", g.expr("text", d)), fmt.Sprintf("(%s %% 3)", g.expr("int", d)))
		case "numeric":
			return g.pick(fmt.Sprintf("(%s + %s)", g.expr("numeric", d), g.expr("int", d)), fmt.Sprintf("round(%s, 1)", g.expr("numeric", d)))
		}
	}
	switch kind {
	case "int":
		return g.pick(
			fmt.Sprintf("(%s %s %s)", g.expr("int", d), g.pick("+", "-", "*"), g.expr("int", d)),
			fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr("int", d), g.expr("int", d)),
			fmt.Sprintf("(%s %% %d)", g.expr("int", d), 1+g.r.IntN(5)),
			fmt.Sprintf("abs(%s)", g.expr("int", d)),
			fmt.Sprintf("length(%s)", g.expr("text", d)),
			fmt.Sprintf("(%s - %s)", g.expr("date", d), g.expr("date", 0)),
			fmt.Sprintf("extract(day from %s)::int", g.expr("date", d)),
			fmt.Sprintf("%s::int", g.expr(g.pick("int2", "int8", "numeric", "float", "bool"), d)),
			fmt.Sprintf("(%s + %s)", g.expr("int2", d), g.expr("int", d)),
			fmt.Sprintf("sign(%s)::int", g.expr("numeric", d)),
			fmt.Sprintf("position(%s in %s)", g.pick("'a'", "'1'", "''"), g.expr("text", d)),
			fmt.Sprintf("date_part('%s', %s)::int", g.pick("dow", "month", "hour", "doy"), g.expr("ts", d)),
			fmt.Sprintf("(SELECT count(*) FROM rq2 s2 WHERE s2.a = %s)::int", g.expr("int", d)),
			fmt.Sprintf("width_bucket(%s, 0, 50, 5)", g.expr("numeric", d)),
		)
	case "int2":
		return g.pick(
			fmt.Sprintf("%s::int2", g.expr(g.pick("int", "int8", "numeric"), d)),
			fmt.Sprintf("(%s %s %s)", g.expr("int2", d), g.pick("+", "-", "*"), g.expr("int2", d)),
			fmt.Sprintf("abs(%s)", g.expr("int2", d)),
			fmt.Sprintf("(- %s)", g.expr("int2", d)),
		)
	case "int8":
		return g.pick(
			fmt.Sprintf("%s::int8", g.expr(g.pick("int", "int2", "numeric", "float"), d)),
			fmt.Sprintf("ltrim(%s::text)::int8", g.expr("int", d)),
			fmt.Sprintf("(%s %s %s)", g.expr("int8", d), g.pick("+", "-", "*"), g.expr(g.pick("int8", "int"), d)),
			fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr("int8", d), g.expr("int", d)),
			fmt.Sprintf("(%s %% 7)", g.expr("int8", d)),
			fmt.Sprintf("abs(%s)", g.expr("int8", d)),
		)
	case "numeric":
		return g.pick(
			fmt.Sprintf("(%s %s %s)", g.expr("numeric", d), g.pick("+", "-", "*"), g.expr(g.pick("numeric", "int"), d)),
			fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr("numeric", d), g.expr(g.pick("numeric", "int"), d)),
			fmt.Sprintf("round(%s, %d)", g.expr("numeric", d), g.r.IntN(4)-1),
			fmt.Sprintf("trunc(%s, 1)", g.expr("numeric", d)),
			fmt.Sprintf("%s(%s)", g.pick("ceil", "floor", "abs", "sign"), g.expr("numeric", d)),
			fmt.Sprintf("%s::numeric", g.expr(g.pick("int", "int2", "int8", "float"), d)),
			fmt.Sprintf("%s::numeric(%s)", g.expr(g.pick("numeric", "int", "float"), d), g.pick("8,1", "12,3", "4,0")),
			fmt.Sprintf("extract(%s from %s)", g.pick("epoch", "day", "hour"), g.expr(g.pick("ts", "iv"), d)),
			fmt.Sprintf("mod(%s, 7.5)", g.expr("numeric", d)),
			fmt.Sprintf("(%s %% NULLIF(%s, 0))", g.expr("numeric", d), g.expr("numeric", d)),
		)
	case "float":
		return g.pick(
			fmt.Sprintf("(%s * 2)", g.expr("float", d)),
			fmt.Sprintf("(%s / 4)", g.expr("float", d)),
			fmt.Sprintf("(%s + %s)", g.expr("float", d), g.expr("float", d)),
			fmt.Sprintf("abs(%s)", g.expr("float", d)),
			fmt.Sprintf("sqrt(abs(%s))", g.expr("float", d)),
			fmt.Sprintf("%s::float8", g.expr(g.pick("int", "int8", "numeric", "int2"), d)),
			fmt.Sprintf("power(%s, 2)", g.expr("float", d)),
		)
	case "text":
		return g.pick(
			fmt.Sprintf("%s(%s)", g.pick("upper", "lower", "initcap", "reverse", "btrim", "md5"), g.expr("text", d)),
			fmt.Sprintf("(%s || %s)", g.expr("text", d), g.expr(g.pick("text", "int", "numeric", "date"), d)),
			fmt.Sprintf("concat(%s, %s)", g.expr("text", d), g.expr(g.pick("int", "bool", "ts", "iv", "float"), d)),
			fmt.Sprintf("concat_ws('/', %s, %s)", g.expr("text", d), g.expr("text", d)),
			fmt.Sprintf("substr(%s, %d, %d)", g.expr("text", d), g.r.IntN(3), g.r.IntN(3)),
			fmt.Sprintf("%s(%s, %d)", g.pick("left", "right"), g.expr("text", d), g.r.IntN(5)-2),
			fmt.Sprintf("%s(%s, %d, '*')", g.pick("lpad", "rpad"), g.expr("text", d), g.r.IntN(5)),
			fmt.Sprintf("replace(%s, 'a', 'xy')", g.expr("text", d)),
			fmt.Sprintf("split_part(%s, '1', %d)", g.expr("text", d), 1+g.r.IntN(2)),
			fmt.Sprintf("repeat(%s, 2)", g.expr("text", d)),
			fmt.Sprintf("%s::text", g.expr(g.pick("int", "int2", "int8", "numeric", "float", "date", "ts", "iv", "bool"), d)),
			fmt.Sprintf("to_char(%s, '%s')", g.expr("ts", d), g.pick("YYYY-MM-DD HH24:MI", "Dy DD Mon", "HH12:MI:SS AM", "IYYY-IW")),
			fmt.Sprintf("to_char(%s, '%s')", g.expr("numeric", d), g.pick("999.99", "FM9990.0", "S000")),
			fmt.Sprintf("format('%%s-%%s', %s, %s)", g.expr("text", d), g.expr("int", d)),
			fmt.Sprintf("translate(%s, 'abc', 'AB')", g.expr("text", d)),
		)
	case "date":
		return g.pick(
			fmt.Sprintf("(%s + %s)", g.expr("date", d), g.expr("int", d)),
			fmt.Sprintf("(%s - %d)", g.expr("date", d), g.r.IntN(40)),
			fmt.Sprintf("%s::date", g.expr("ts", d)),
			fmt.Sprintf("date_trunc('%s', %s)::date", g.pick("month", "week", "year"), g.expr("date", d)),
			fmt.Sprintf("make_date(2026, %d, %s)", 1+g.r.IntN(12), g.pick("1", "28", "abs(coalesce("+g.expr("int", d)+", 1)) + 1")),
		)
	case "ts":
		return g.pick(
			fmt.Sprintf("(%s + %s)", g.expr("ts", d), g.expr("iv", d)),
			fmt.Sprintf("(%s - %s)", g.expr("ts", d), g.expr("iv", d)),
			fmt.Sprintf("(%s + %s)", g.expr("date", d), g.expr("iv", d)),
			fmt.Sprintf("%s::timestamp", g.expr("date", d)),
			fmt.Sprintf("date_trunc('%s', %s)", g.pick("hour", "day", "month", "week", "minute"), g.expr("ts", d)),
			fmt.Sprintf("(%s + time '%s')", g.expr("date", d), g.pick("12:00", "23:59:59.5")),
		)
	case "iv":
		return g.pick(
			fmt.Sprintf("(%s - %s)", g.expr("ts", d), g.expr("ts", d)),
			fmt.Sprintf("(%s * %s)", g.expr("iv", d), g.pick("2", "0.5", "-1")),
			fmt.Sprintf("(%s + %s)", g.expr("iv", d), g.expr("iv", d)),
			fmt.Sprintf("(- %s)", g.expr("iv", d)),
			fmt.Sprintf("justify_%s(%s)", g.pick("hours", "days", "interval"), g.expr("iv", d)),
			fmt.Sprintf("(%s * interval '%s')", g.expr("int", d), g.pick("1 day", "1 hour", "1 mon")),
			fmt.Sprintf("(interval '%s' * %s)", g.pick("1 day", "90 minutes"), g.expr("int", d)),
			fmt.Sprintf("make_interval(days => %s)", g.expr("int", d)),
			fmt.Sprintf("age(%s, timestamp '2026-01-01')", g.expr("ts", d)),
			fmt.Sprintf("(%s || ' hours')::interval", g.expr("int", d)),
		)
	case "bool":
		return g.pick(g.pred(d).sql(), fmt.Sprintf("%s::bool", g.expr("int", d)), fmt.Sprintf("(%s IS NULL)", g.expr(kinds[g.r.IntN(len(kinds))], d)))
	}
	return g.typedLiteral(kind)
}

// scalar is a select-list item of a random kind.
func (g *Generator) scalar(depth int) string {
	return g.item(kinds[g.r.IntN(len(kinds))], depth)
}

// cmpKind is the kind compared with kind's values.
func cmpKind(kind string) string {
	switch kind {
	case "int2", "int8":
		return "int"
	}
	return kind
}

// pred is a random predicate of the given depth.
func (g *Generator) pred(depth int) *Pred {
	if depth > 0 && g.one(2) {
		switch g.r.IntN(5) {
		case 0:
			return &Pred{Op: "NOT", Kids: []*Pred{g.pred(depth - 1)}}
		case 1, 2:
			return &Pred{Op: "AND", Kids: []*Pred{g.pred(depth - 1), g.pred(depth - 1)}}
		default:
			return &Pred{Op: "OR", Kids: []*Pred{g.pred(depth - 1), g.pred(depth - 1)}}
		}
	}
	g.quiet++
	defer func() { g.quiet-- }()
	c := g.col()
	i := g.col("int")
	var leaf string
	switch g.r.IntN(18) {
	case 0:
		leaf = c.name + g.pick(" IS NULL", " IS NOT NULL")
	case 1:
		if c.kind == "bool" {
			leaf = c.name + g.pick("", " IS TRUE", " IS NOT FALSE", " IS UNKNOWN")
		} else {
			leaf = fmt.Sprintf("%s %sIN (%s, %s, %s)", c.name, g.pick("", "NOT "), g.literal(c.kind), g.literal(c.kind), g.literal(c.kind))
		}
	case 2:
		leaf = fmt.Sprintf("%s %sBETWEEN %s%s AND %s", c.name, g.pick("", "NOT "), g.pick("", "", "SYMMETRIC "), g.literal(c.kind), g.literal(c.kind))
	case 3:
		t := g.col("text")
		leaf = fmt.Sprintf("%s %s %s", t.name, g.pick("LIKE", "NOT LIKE", "ILIKE"), g.literal("text"))
	case 4:
		o := g.expr(cmpKind(c.kind), 1)
		leaf = fmt.Sprintf("%s %s %s", c.name, g.pick("=", "<>", "<", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM"), o)
	case 5:
		leaf = fmt.Sprintf("%s %sIN (SELECT a FROM rq2 s2 WHERE s2.id %s %d)", i.name, g.pick("", "NOT "), g.pick("<", ">"), g.r.IntN(120))
	case 6:
		leaf = fmt.Sprintf("%sEXISTS (SELECT 1 FROM rq2 s2 WHERE s2.%s = %s%s)", g.pick("", "NOT "), g.pick("a", "rid"), i.name, g.pick("", " AND s2.t LIKE 'a%'", " AND s2.id > 60"))
	case 7:
		leaf = fmt.Sprintf("%s %s (SELECT %s(a) FROM rq2)", i.name, g.pick("<", ">", "="), g.pick("min", "max", "count"))
	case 8:
		leaf = fmt.Sprintf("%s %s %s (SELECT a FROM rq2 s2 WHERE s2.id %s %d)", i.name, g.pick("=", "<>", "<", ">="), g.pick("ANY", "ALL", "SOME"), g.pick("<", ">"), g.r.IntN(120))
	case 9:
		// correlated ANY/ALL and NOT IN over a subquery with NULLs
		leaf = fmt.Sprintf("%s %s (SELECT s2.a FROM rq2 s2 WHERE s2.rid %s %s)", i.name, g.pick("= ANY", "> ALL", "<= ALL", "NOT IN", "IN"), g.pick("=", "<"), g.col("int").name)
	case 10:
		// a correlated scalar subquery (at most one row: rq2.rid is unique)
		o, inner := g.col("int"), g.pick("a", "id")
		if g.one(2) {
			o, inner = g.col("text"), "t"
		}
		leaf = fmt.Sprintf("%s %s (SELECT s2.%s FROM rq2 s2 WHERE s2.rid = %s)", o.name, g.pick("=", "<", ">="), inner, i.name)
	case 11:
		leaf = fmt.Sprintf("(SELECT count(*) FROM rq2 s2 WHERE s2.a %s %s) %s %d", g.pick("=", "<", ">"), i.name, g.pick(">", "<", "="), g.r.IntN(20))
	case 12:
		e := g.expr(c.kind, 1)
		leaf = fmt.Sprintf("%s %s %s", e, g.pick("=", "<>", "<", "<=", ">", ">="), g.literal(c.kind))
	case 13:
		leaf = fmt.Sprintf("(%s, %s) %s (%s, %s)", i.name, c.name, g.pick("=", "<", ">=", "<>"), g.literal("int"), g.literal(c.kind))
	case 14:
		t := g.col("text")
		leaf = fmt.Sprintf("%s %s '%s'", t.name, g.pick("~", "~*", "!~", "SIMILAR TO"), g.pick("^a", "[0-9]$", "b.", "%1%", "(a|b)%"))
	default:
		leaf = fmt.Sprintf("%s %s %s", c.name, g.pick("=", "<>", "<", "<=", ">", ">="), g.literal(c.kind))
	}
	return &Pred{Leaf: leaf}
}

// qualCols qualifies cols by alias.
func qualCols(alias string, cols []column) []column {
	out := make([]column, len(cols))
	for i, c := range cols {
		out[i] = column{alias + "." + c.name, c.kind}
	}
	return out
}

// from draws the FROM clause (and a WITH clause it needs), sets the
// scope and the unique key expressions of the FROM's rows.
func (g *Generator) from() (from, with string) {
	g.cols, g.uniq = qualCols("rq", rqCols), []string{"rq.id"}
	switch g.r.IntN(22) {
	case 0, 1, 2, 3, 4, 5:
		return "rq", ""
	case 6:
		g.cols, g.uniq = qualCols("r3", rqCols), nil // rq's rows without a key (REPLICA IDENTITY FULL)
		return "rq3 r3", ""
	case 7, 8, 9:
		kind := g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT JOIN")
		on := g.pick("rq.a = rq2.a", "rq.id = rq2.rid", "rq.b = rq2.id", "rq.a = rq2.a AND rq.t = rq2.t", "rq.id = rq2.rid AND rq2.a > 0")
		if kind != "FULL JOIN" && g.one(4) {
			on = g.pick("rq.a < rq2.a AND rq2.id < 10", "rq.id = rq2.rid OR rq.a = rq2.id", "rq.t LIKE rq2.t || '%'")
		}
		g.cols, g.uniq = append(qualCols("rq", rqCols), qualCols("rq2", rq2Cols)...), []string{"rq.id", "rq2.id"}
		return "rq " + kind + " rq2 ON " + on, ""
	case 10:
		kind := g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN")
		u := g.pick("a", "t", "id")
		g.cols = append(append(qualCols("rq", rqCols), qualCols("rq2", rq2Cols)...), column{u, map[string]string{"a": "int", "t": "text", "id": "int"}[u]})
		g.uniq = []string{"rq.id", "rq2.id"}
		return "rq " + kind + " rq2 USING (" + u + ")", ""
	case 11:
		// NATURAL joins on the columns the derived table shares with rq
		kind := g.pick("", "LEFT ", "FULL ")
		g.cols = append(qualCols("rq", rqCols), column{"id", "int"}, column{"x.k", "int"}, column{"x.u", "text"})
		g.uniq = []string{"rq.id", "x.k"}
		return "rq NATURAL " + kind + "JOIN (SELECT rid AS id, id AS k, t AS u FROM rq2) x", ""
	case 12:
		// three tables
		k2 := g.pick("JOIN", "LEFT JOIN")
		k3 := g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN")
		g.cols = append(append(qualCols("rq", rqCols[:8]), qualCols("rq2", rq2Cols)...), qualCols("r3", rqCols[:8])...)
		g.uniq = nil
		return "rq " + k2 + " rq2 ON rq.id = rq2.rid " + k3 + " rq3 r3 ON r3.id = " + g.pick("rq2.id", "rq.b", "rq2.a + 10"), ""
	case 13, 14:
		// LATERAL
		g.cols, g.uniq = qualCols("rq", rqCols), []string{"rq.id"}
		switch g.r.IntN(4) {
		case 0:
			g.cols = append(g.cols, column{"l.la", "int"}, column{"l.lt", "text"})
			g.uniq = []string{"rq.id", "l.lid"}
			return "rq " + g.lateral("(SELECT s2.id AS lid, s2.a AS la, s2.t AS lt FROM rq2 s2 WHERE s2.a = rq.a ORDER BY s2.id "+
				g.pick("LIMIT 2", "DESC LIMIT 1", "OFFSET 1 LIMIT 3")+") l"), ""
		case 1:
			g.cols = append(g.cols, column{"l.lc", "int8"}, column{"l.lm", "int"})
			g.uniq = []string{"rq.id"}
			return "rq, LATERAL (SELECT count(*) AS lc, max(s2.a) AS lm FROM rq2 s2 WHERE s2.a " + g.pick("=", "<") + " rq.b % 13 - 6) l", ""
		case 2:
			g.cols = append(g.cols, column{"gs.x", "int"})
			g.uniq = []string{"rq.id", "gs.x"}
			return "rq " + g.lateral("generate_series(1, rq.a % 4) gs(x)"), ""
		default:
			g.cols = append(g.cols, column{"v.x", "int"}, column{"v.y", "text"})
			g.uniq = []string{"rq.id", "v.x", "v.y"}
			return "rq, LATERAL (VALUES (rq.a + 1, rq.t), (rq.b, 'v')) v(x, y)", ""
		}
	case 15:
		// a derived table with aggregates
		g.cols = append(qualCols("rq", rqCols), column{"g2.a", "int"}, column{"g2.c", "int8"}, column{"g2.mt", "text"})
		g.uniq = []string{"rq.id", "g2.a"}
		return "rq " + g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN") + " (SELECT a, count(*) AS c, max(t) AS mt FROM rq2 GROUP BY a) g2 ON g2.a = rq.a", ""
	case 16, 17:
		// a CTE
		mat := g.pick("", "MATERIALIZED ", "NOT MATERIALIZED ")
		if g.one(2) {
			g.cols = append(qualCols("rq", rqCols), column{"c.a", "int"}, column{"c.cnt", "int8"}, column{"c.st", "text"})
			g.uniq = []string{"rq.id", "c.a"}
			return "rq " + g.pick("JOIN", "LEFT JOIN", "FULL JOIN") + " c ON c.a = rq.a",
				"WITH c AS " + mat + "(SELECT a, count(*) AS cnt, string_agg(t, ',' ORDER BY t) AS st FROM rq2 GROUP BY a)"
		}
		with := "WITH c AS " + mat + "(SELECT rq.id, rq.a, rq.b, rq.t, rq.f, rq.n, rq.d, rq.flag FROM rq WHERE " + g.pred(1).sql() + ")"
		g.cols = qualCols("c", rqCols[:8])
		g.uniq = []string{"c.id"}
		return "c", with
	case 18:
		// a recursive CTE walking rq2 from rq's rows
		g.cols = append(qualCols("rq", rqCols), column{"r.lvl", "int"}, column{"r.start", "int"})
		g.uniq = nil
		return "r JOIN rq ON rq.id = r.id",
			fmt.Sprintf("WITH RECURSIVE r(id, lvl, start) AS (SELECT id, 0, id FROM rq WHERE id <= %d UNION %sSELECT s2.rid, r.lvl + 1, r.start FROM r JOIN rq2 s2 ON s2.id = r.id WHERE r.lvl < %d)",
				5+g.r.IntN(30), g.pick("", "ALL "), 1+g.r.IntN(4))
	case 19:
		// a recursive CTE counting
		g.cols = append(qualCols("rq", rqCols), column{"s.k", "int"})
		g.uniq = []string{"s.k"}
		return "s LEFT JOIN rq ON rq.id = s.k",
			fmt.Sprintf("WITH RECURSIVE s(k) AS (VALUES (1) UNION ALL SELECT k + %d FROM s WHERE k < %d)", 1+g.r.IntN(3), 10+g.r.IntN(30))
	case 20:
		g.cols, g.uniq = qualCols("rq", rqCols), []string{"rq.id", "rq2.id"}
		g.cols = append(g.cols, qualCols("rq2", rq2Cols)...)
		return "rq CROSS JOIN rq2", ""
	default:
		g.cols, g.uniq = qualCols("rq2", rq2Cols), []string{"rq2.id"}
		return "rq2", ""
	}
}

// lateral joins rq to a LATERAL item: CROSS JOIN, a comma or LEFT JOIN
// … ON true.
func (g *Generator) lateral(item string) string {
	switch g.r.IntN(3) {
	case 0:
		return "CROSS JOIN LATERAL " + item
	case 1:
		return ", LATERAL " + item
	}
	return "LEFT JOIN LATERAL " + item + " ON true"
}

// agg is an aggregate over the scope.
func (g *Generator) agg() string {
	filter := ""
	if g.one(5) {
		filter = " FILTER (WHERE " + g.pred(1).sql() + ")"
	}
	switch g.r.IntN(10) {
	case 0:
		return "count(*)" + filter
	case 1:
		return "count(" + g.pick("", "DISTINCT ") + g.col().name + ")" + filter
	case 2, 3:
		// Not over bool: PostgreSQL has no min/max(boolean).
		m := g.col("int", "int2", "int8", "text", "numeric", "date", "ts", "iv")
		return g.pick("min", "max") + "(" + m.name + ")" + filter
	case 4:
		i := g.col("int", "int2", "int8")
		return g.pick("sum", "avg", "count") + "(" + g.pick("DISTINCT ", "") + i.name + " " + g.pick("*", "+", "-") + " 2)" + filter
	case 5:
		if g.one(5) {
			return g.pick("bit_or", "bit_and") + "(" + g.col("int", "int8", "int2").name + ")" + filter
		}
		n := g.col("int", "numeric", "int8", "int2")
		return g.pick("sum", "avg", "stddev", "var_pop") + "(" + n.name + ")" + filter
	case 6:
		return g.pick("bool_and", "bool_or", "every") + "(" + g.col("bool").name + ")" + filter
	case 7:
		t := g.col("text")
		return "string_agg(" + g.pick("DISTINCT ", "") + t.name + ", ',' ORDER BY " + t.name + g.pick("", " DESC") + ")" + filter
	case 8:
		i := g.col("int", "date")
		return "array_agg(" + i.name + " ORDER BY " + i.name + g.pick("", " DESC NULLS LAST", " NULLS FIRST") + ")" + filter
	default:
		iv := g.col("iv", "ts")
		if iv.kind == "iv" && g.one(2) {
			return "sum(" + iv.name + ")" + filter
		}
		return g.pick("min", "max") + "(" + iv.name + ")" + filter
	}
}

// window is a window function call over the scope; its value is
// determined: functions that depend on the order of peers get a total
// order (the FROM's unique key), ROWS frames too.
func (g *Generator) window() string {
	part := ""
	if g.one(2) {
		part = "PARTITION BY " + g.col(keyKinds...).name + " "
	}
	total := g.uniq != nil && g.one(2)
	var ord string
	var ordCol column
	if total {
		ord = "ORDER BY " + strings.Join(g.uniq, ", ")
		if len(g.uniq) == 1 {
			ordCol = g.col("int")
			for _, c := range g.cols {
				if c.name == g.uniq[0] {
					ordCol = c
				}
			}
		}
	} else {
		ordCol = g.col("int", "int2", "numeric", "date", "text")
		ord = "ORDER BY " + ordCol.name + g.pick("", " DESC") + g.pick("", " NULLS FIRST", " NULLS LAST")
	}
	frame := ""
	if g.one(2) {
		ex := g.pick("", "", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP", " EXCLUDE TIES", " EXCLUDE NO OTHERS")
		switch {
		case total && g.one(3):
			frame = " ROWS BETWEEN " + g.pick("1 PRECEDING AND 1 FOLLOWING", "UNBOUNDED PRECEDING AND CURRENT ROW", "CURRENT ROW AND UNBOUNDED FOLLOWING", "2 PRECEDING AND CURRENT ROW") + ex
		case ordCol.name != "" && (ordCol.kind == "int" || ordCol.kind == "numeric") && g.one(2):
			frame = " RANGE BETWEEN " + g.pick("3 PRECEDING AND 3 FOLLOWING", "UNBOUNDED PRECEDING AND 5 FOLLOWING", "CURRENT ROW AND 10 FOLLOWING") + ex
		case ordCol.kind == "date" && g.one(2):
			frame = " RANGE BETWEEN interval '2 days' PRECEDING AND CURRENT ROW" + ex
		default:
			frame = " " + g.pick("RANGE", "GROUPS") + " BETWEEN " + g.pick("UNBOUNDED PRECEDING AND CURRENT ROW", "1 PRECEDING AND 1 FOLLOWING", "CURRENT ROW AND UNBOUNDED FOLLOWING") + ex
			if strings.Contains(frame, "RANGE") && strings.Contains(frame, "1 PRECEDING") {
				frame = strings.Replace(frame, "RANGE", "GROUPS", 1)
			}
		}
	}
	over := " OVER (" + part + ord + frame + ")"
	k := g.col(keyKinds[:6]...) // not bool: no min(boolean)
	n := g.col("int", "numeric", "int8")
	insensitive := []string{
		"rank()", "dense_rank()", "percent_rank()", "cume_dist()",
		"count(*)", "count(" + k.name + ")", "sum(" + n.name + ")", "min(" + k.name + ")", "max(" + n.name + ")", "avg(" + n.name + ")",
		"bool_or(" + g.col("bool").name + ")",
	}
	if !total {
		if frame != "" && !g.one(4) {
			insensitive = insensitive[4:] // frames do not apply to ranking functions
		}
		return g.pick(insensitive...) + over
	}
	if g.one(5) {
		return g.pick("count(*)", "sum("+n.name+")") + " OVER (" + strings.TrimSpace(part) + ")"
	}
	return g.pick(append(insensitive,
		"row_number()", "ntile(4)", "lag("+k.name+")", "lead("+k.name+", 2, "+g.literal(k.kind)+")", "first_value("+k.name+")",
		"last_value("+k.name+")", "nth_value("+k.name+", 2)", "string_agg("+g.col("text").name+", '.')", "array_agg("+n.name+")")...) + over
}

// Next draws a query.
func (g *Generator) Next() *RandQuery {
	q := &RandQuery{Limit: -1, Offset: -1}
	q.From, q.With = g.from()
	if g.r.IntN(4) > 0 {
		q.Where = g.pred(2)
	}
	switch g.r.IntN(12) {
	case 0, 1, 2: // aggregates
		if g.r.IntN(3) > 0 {
			for range 1 + g.r.IntN(2) {
				k := g.col(keyKinds...)
				if !strings.Contains(strings.Join(q.GroupBy, ","), k.name) {
					q.GroupBy = append(q.GroupBy, k.name)
					q.Items = append(q.Items, k.name)
				}
			}
			if g.one(3) {
				q.Grouping = g.pick("ROLLUP", "CUBE", "GROUPING SETS")
				q.Items = append(q.Items, "GROUPING("+strings.Join(q.GroupBy, ", ")+")")
			}
		}
		for range 1 + g.r.IntN(3) {
			q.Items = append(q.Items, g.agg())
		}
		q.NoOrder = len(q.GroupBy) == 0 && g.one(2)
		if len(q.GroupBy) > 0 && g.one(3) {
			q.Having = g.pick(fmt.Sprintf("count(*) %s %d", g.pick(">", "<", "="), g.r.IntN(8)), "sum(1) > 1", q.GroupBy[0]+" IS NOT NULL", "count(DISTINCT "+q.GroupBy[0]+") = 1")
		}
	case 3: // window functions
		for range 1 + g.r.IntN(2) {
			q.Items = append(q.Items, g.scalar(1))
		}
		for range 1 + g.r.IntN(2) {
			q.Items = append(q.Items, g.window())
		}
	case 4: // set operations
		ks := make([]string, 1+g.r.IntN(2))
		for i := range ks {
			ks[i] = keyKinds[g.r.IntN(len(keyKinds))]
			q.Items = append(q.Items, g.item(ks[i], 1))
		}
		from, cols, uniq := q.From, g.cols, g.uniq
		q.SetOp = g.pick("UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL") + " SELECT "
		second := g.pick("rq", "rq2")
		g.cols = qualCols("rq", rqCols)
		if second == "rq2" {
			g.cols = qualCols("rq2", rq2Cols)
		}
		var items []string
		for _, k := range ks {
			items = append(items, g.item(k, 1))
		}
		q.SetOp += strings.Join(items, ", ") + " FROM " + second
		if g.one(2) {
			q.SetOp += " WHERE " + g.pred(1).sql()
		}
		q.From, g.cols, g.uniq = from, cols, uniq
	case 5: // DISTINCT ON the first column
		// on a column's expression: PostgreSQL reads a constant there as
		// a position (or refuses it)
		q.DistinctOn = true
		k := g.col(keyKinds...)
		q.Items = append(q.Items, g.pick(k.name, "COALESCE("+k.name+", "+g.typedLiteral(k.kind)+")"))
		for range 1 + g.r.IntN(3) {
			q.Items = append(q.Items, g.scalar(1))
		}
	case 6: // a correlated scalar subquery in the select list
		i := g.col("int")
		q.Items = append(q.Items, g.scalar(1), g.pick(
			"(SELECT count(*) FROM rq2 s2 WHERE s2.a = "+i.name+")",
			"(SELECT max(s2.t) FROM rq2 s2 WHERE s2.rid = "+i.name+")",
			"(SELECT s2.a FROM rq2 s2 WHERE s2.a > "+i.name+" ORDER BY s2.a, s2.id LIMIT 1)",
			"EXISTS (SELECT 1 FROM rq2 s2 WHERE s2.a = "+i.name+")",
			i.name+" IN (SELECT s2.a FROM rq2 s2 WHERE s2.id < 30)",
			"ARRAY(SELECT s2.id FROM rq2 s2 WHERE s2.rid = "+i.name+" OR s2.a = "+i.name+" ORDER BY s2.id)",
		))
	default:
		for range 1 + g.r.IntN(4) {
			q.Items = append(q.Items, g.scalar(2))
		}
		if g.one(8) {
			// DISTINCT over kinds whose equal values print alike
			q.Distinct = true
			for i := range q.Items {
				q.Items[i] = g.item(keyKinds[g.r.IntN(len(keyKinds))], 1)
			}
		}
	}
	for range q.Items {
		q.Dirs = append(q.Dirs, g.pick("", "", " DESC")+g.pick("", "", "", " NULLS FIRST", " NULLS LAST"))
	}
	if g.one(3) {
		q.Limit = g.r.IntN(20)
		if g.one(2) {
			q.Offset = g.r.IntN(10)
		}
	} else if g.one(8) {
		q.Offset = g.r.IntN(10)
	}
	return q
}

// Shrinks are the queries one step simpler than q: an output column
// fewer, a predicate replaced by one of its kids or dropped, no set
// operation, grouping sets, LIMIT/OFFSET/DISTINCT.
func (q *RandQuery) Shrinks() []*RandQuery {
	var out []*RandQuery
	with := func(f func(c *RandQuery)) {
		c := *q
		c.Items = append([]string(nil), q.Items...)
		c.Dirs = append([]string(nil), q.Dirs...)
		f(&c)
		out = append(out, &c)
	}
	if q.SetOp != "" {
		with(func(c *RandQuery) { c.SetOp = "" })
	}
	for i := range q.Items {
		if len(q.Items) > 1 && q.SetOp == "" && !(i == 0 && q.DistinctOn) {
			with(func(c *RandQuery) {
				c.Items = append(c.Items[:i:i], q.Items[i+1:]...)
				if i < len(c.Dirs) {
					c.Dirs = append(c.Dirs[:i:i], q.Dirs[i+1:]...)
				}
			})
		}
	}
	if q.Where != nil {
		with(func(c *RandQuery) { c.Where = nil })
		for _, k := range q.Where.Kids {
			with(func(c *RandQuery) { c.Where = k })
		}
	}
	if q.Grouping != "" {
		with(func(c *RandQuery) {
			c.Grouping = ""
			for i, it := range c.Items {
				if strings.HasPrefix(it, "GROUPING(") {
					c.Items[i] = "0"
				}
			}
		})
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
	if q.DistinctOn {
		with(func(c *RandQuery) { c.DistinctOn = false })
	}
	for i, d := range q.Dirs {
		if d != "" {
			with(func(c *RandQuery) { c.Dirs[i] = "" })
		}
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

// CompareQuery runs sql on both sessions (text format) and classifies
// the sidecar's answer; when both failed, stateMismatch reports that
// their SQLSTATEs differ (PostgreSQL's and the sidecar's are in
// o.Message).
func CompareQuery(ctx context.Context, pgs, scs *Session, sql string, timeout time.Duration) (o Outcome, stateMismatch bool) {
	st := NewStatement(sql)
	want := pgs.Run(ctx, sql, 0, timeout)
	got := scs.Run(ctx, sql, 0, timeout)
	o = classifyAnswers(st, want, got)
	return o, o.Class == PGError && statesDiffer(&o, want, got)
}

// statesDiffer fills a PGError outcome's Code (the sidecar's SQLSTATE)
// and Message (both servers' errors) and reports whether the two
// SQLSTATEs differ.
func statesDiffer(o *Outcome, want, got answer) bool {
	wc, wm := sqlState(want.err)
	gc, gm := sqlState(got.err)
	o.Code = gc
	o.Message = fmt.Sprintf("PostgreSQL %s %s; sidecar %s %s", wc, wm, gc, gm)
	return wc != gc
}
