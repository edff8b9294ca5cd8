package sqldiff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"
)

// The wide random query generator (issues 21/22: "identical to
// PostgreSQL, or refused — never a different answer"): what users write
// over data where engines go wrong. Its tables hold NULLs in every
// column, NaN/±Infinity/-0 floats, numerics of mixed scale (1.0 and
// 1.00), text with trailing spaces, case and non-ASCII, bpchar and
// varchar, dates/timestamps/timestamptz/intervals (1 day and 24 hours:
// equal, printed differently), booleans; a composite primary key, a
// keyless table (REPLICA IDENTITY FULL) with duplicate rows, an
// inheritance parent with a child, a column under an ICU collation; and
// rows moved by UPDATE (keys included) and DELETE/INSERT churn, so heap
// order is not key order. Queries: joins of every kind with ON
// conditions on NULLs, GROUP BY/HAVING, aggregates with FILTER and
// DISTINCT, DISTINCT / DISTINCT ON, window functions, set operations,
// IN/NOT IN/EXISTS/scalar/correlated subqueries, CTEs, CASE/COALESCE/
// NULLIF, casts, string and date functions, ORDER BY with NULLS
// FIRST/LAST and LIMIT/OFFSET. A query whose order is total (it orders
// by a unique key of its rows) compares in order; any other compares as
// a multiset, and LIMIT is only used under a total order. Float
// sum/avg/stddev are left out (their order dependence is known).

// WideSetup creates and fills the wide generator's tables.
const WideSetup = `CREATE TABLE wa (id int PRIMARY KEY, k int, g text, n numeric, f float8, t text, c char(4), v varchar(8), d date, ts timestamp, tz timestamptz, iv interval, flag bool);
INSERT INTO wa SELECT g,
	CASE WHEN g % 7 = 0 THEN NULL ELSE g % 5 END,
	(ARRAY[NULL, 'x', 'y', 'Y', 'é', 'x ', 'z'])[1 + g % 7],
	(ARRAY[1.0, 1.00, 2.5, -3, 0.000, 100.10, NULL, 2.50, -0.5]::numeric[])[1 + g % 9],
	(ARRAY['NaN', 'Infinity', '-Infinity', '-0', '0', '1.5', '-2.25', NULL, '3', '0.1'])[1 + g % 10]::float8,
	(ARRAY['apple', 'Apple', 'banana ', 'banana', 'Éclair', 'éclair', 'zebra', '', NULL, 'a%b', 'ß', 'x_y'])[1 + g % 12],
	(ARRAY['ab', 'ab  ', 'AB', 'x', NULL, ''])[1 + g % 6],
	(ARRAY['ab', 'ab ', 'Ab', NULL, 'ü', 'zz'])[1 + (g * 5) % 6],
	CASE WHEN g % 10 = 0 THEN NULL WHEN g = 77 THEN 'infinity'::date ELSE date '2024-02-27' + g % 6 END,
	CASE WHEN g % 9 = 0 THEN NULL ELSE timestamp '2024-02-28 23:30' + g * interval '7 hours 13 minutes' END,
	CASE WHEN g % 8 = 0 THEN NULL ELSE timestamptz '2024-03-30 22:00+00' + g * interval '5 hours 1 second' END,
	(ARRAY['1 day', '24 hours', '1 mon', '30 days', '-1 day', '0', NULL, '1 year 2 mons', '00:00:00.5'])[1 + g % 9]::interval,
	CASE g % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END
FROM generate_series(1, 200) g;
UPDATE wa SET k = k + 1, t = upper(t) WHERE id % 10 = 3;
DELETE FROM wa WHERE id % 17 = 0;
INSERT INTO wa (id, k, g, n, t, c, v, flag) SELECT g, g % 4, 'y', 1.000, 'late ' || g, 'l', 'late', g % 2 = 0 FROM generate_series(17, 200, 17) g;
UPDATE wa SET id = id + 1000 WHERE id % 23 = 0;
UPDATE wa SET n = NULL, f = NULL WHERE id % 31 = 0;
CREATE TABLE wb (wid int, seq int, x int, s text, m numeric(8,2), dd date, PRIMARY KEY (wid, seq));
INSERT INTO wb SELECT (g * 7) % 230 + 1, g % 3,
	CASE WHEN g % 5 = 0 THEN NULL ELSE g % 9 - 4 END,
	CASE WHEN g % 4 = 0 THEN NULL ELSE (ARRAY['apple', 'x', 'banana', 'Y', 'zebra ', 'é'])[1 + g % 6] END,
	CASE WHEN g % 6 = 0 THEN NULL ELSE g * 0.75 - 40 END,
	CASE WHEN g % 11 = 0 THEN NULL ELSE date '2024-02-26' + g % 8 END
FROM generate_series(1, 320) g ON CONFLICT DO NOTHING;
DELETE FROM wb WHERE x = 0 AND seq = 1;
UPDATE wb SET seq = seq + 10 WHERE wid % 13 = 0;
CREATE TABLE wk (k int, s text, m numeric, b bool);
INSERT INTO wk SELECT CASE WHEN g % 6 = 0 THEN NULL ELSE g % 4 END, (ARRAY['x', 'y', NULL, 'x ', 'Y'])[1 + g % 5], (ARRAY[1.5, 1.50, NULL, 0, -2]::numeric[])[1 + g % 5], g % 3 = 0 FROM generate_series(1, 40) g;
INSERT INTO wk SELECT * FROM wk WHERE k = 1;
ALTER TABLE wk REPLICA IDENTITY FULL;
CREATE TABLE wp (id int PRIMARY KEY, k int, s text);
CREATE TABLE wpc (extra int) INHERITS (wp);
ALTER TABLE wpc ADD PRIMARY KEY (id);
INSERT INTO wp SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE g % 3 END, 'p' || g FROM generate_series(1, 12) g;
INSERT INTO wpc SELECT g, g % 3, 'c' || g, g * 2 FROM generate_series(13, 21) g;
CREATE TABLE wc (id int PRIMARY KEY, s text COLLATE "en-x-icu", b text COLLATE "C");
INSERT INTO wc SELECT g, (ARRAY['apple', 'Apple', 'Banana', 'cherry', 'éclair', 'zebra', NULL])[1 + g % 7], (ARRAY['apple', 'Apple', 'Banana', 'cherry', 'éclair', 'zebra', NULL])[1 + g % 7] FROM generate_series(1, 14) g;
ANALYZE wa; ANALYZE wb; ANALYZE wk; ANALYZE wp; ANALYZE wpc; ANALYZE wc;`

// WideTables are the tables WideSetup creates.
var WideTables = []string{"public.wa", "public.wb", "public.wk", "public.wp", "public.wpc", "public.wc"}

// wcol is a column the wide generator draws: its kind and whether it
// may serve as a grouping, DISTINCT or ordering key (false where equal
// values print differently: -0 and 0, 1.0 and 1.00, 1 day and 24
// hours — PostgreSQL's choice among them depends on its plan).
type wcol struct {
	name, kind string
	key        bool
}

type wtable struct {
	name   string
	cols   []wcol
	unique []string // a unique key of its rows (nil: none)
}

var wideTables = []wtable{
	{"wa", []wcol{{"id", "int", true}, {"k", "int", true}, {"g", "text", true}, {"n", "numeric", false}, {"f", "float", false},
		{"t", "text", true}, {"c", "bpchar", true}, {"v", "varchar", true}, {"d", "date", true}, {"ts", "ts", true}, {"tz", "tz", true},
		{"iv", "iv", false}, {"flag", "bool", true}}, []string{"id"}},
	{"wb", []wcol{{"wid", "int", true}, {"seq", "int", true}, {"x", "int", true}, {"s", "text", true}, {"m", "numeric", true}, {"dd", "date", true}}, []string{"wid", "seq"}},
	{"wk", []wcol{{"k", "int", true}, {"s", "text", true}, {"m", "numeric", false}, {"b", "bool", true}}, nil},
	{"wp", []wcol{{"id", "int", true}, {"k", "int", true}, {"s", "text", true}}, []string{"id"}},
}

// wcolIn is a column in scope: qualified by its table's alias.
type wcolIn struct {
	expr string
	wcol
}

// WideGen draws queries from a seed.
type WideGen struct {
	r     *rand.Rand
	scope []wcolIn
}

// NewWideGen seeds a wide generator.
func NewWideGen(seed uint64) *WideGen { return &WideGen{r: rand.New(rand.NewPCG(seed, 2122))} }

func (g *WideGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *WideGen) one(n int) bool           { return g.r.IntN(n) == 0 }

// col draws a column in scope of one of kinds (any when none); ok is
// false when there is none.
func (g *WideGen) col(keyOnly bool, kinds ...string) (wcolIn, bool) {
	var c []wcolIn
	for _, x := range g.scope {
		if keyOnly && !x.key {
			continue
		}
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
		return wcolIn{}, false
	}
	return c[g.r.IntN(len(c))], true
}

// lit is a constant of kind, sometimes NULL.
func (g *WideGen) lit(kind string) string {
	if g.one(14) {
		return "NULL"
	}
	switch kind {
	case "int":
		return fmt.Sprint(g.r.IntN(12) - 4)
	case "numeric":
		return g.pick("1.0", "1.00", "2.5", "-3", "0", "100.1", "-0.5", "2.50")
	case "float":
		return g.pick("'NaN'::float8", "'Infinity'::float8", "'-0'::float8", "1.5::float8", "0::float8", "-2.25::float8")
	case "text", "varchar":
		return g.pick("'apple'", "'Apple'", "'banana'", "'banana '", "'éclair'", "'x'", "'x '", "'Y'", "''", "'ß'", "'ab'", "'ab '", "'a%'", "'%a%'", "'_b%'")
	case "bpchar":
		return g.pick("'ab'::char(4)", "'ab  '::char(4)", "'x'::char(4)", "'AB'::char(4)")
	case "date":
		return g.pick("date '2024-02-28'", "date '2024-02-29'", "date '2024-03-01'", "date 'infinity'", "date '2024-03-03'")
	case "ts":
		return g.pick("timestamp '2024-03-01 00:00'", "timestamp '2024-03-05 12:00'", "timestamp '2024-02-29 23:59:59.5'", "timestamp 'infinity'")
	case "tz":
		return g.pick("timestamptz '2024-03-31 01:30+00'", "timestamptz '2024-04-10 00:00+02'", "timestamptz '-infinity'")
	case "iv":
		return g.pick("interval '1 day'", "interval '24 hours'", "interval '1 mon'", "interval '-2 hours'", "interval '0'")
	default:
		return g.pick("true", "false")
	}
}

// expr is an expression of kind over the scope.
func (g *WideGen) expr(kind string, depth int) string {
	if depth <= 0 || g.r.IntN(3) == 0 {
		if c, ok := g.col(false, kind); ok && !g.one(5) {
			return c.expr
		}
		return g.lit(kind)
	}
	d := depth - 1
	switch g.r.IntN(8) {
	case 0:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.pred(d), g.expr(kind, d), g.expr(kind, d))
	case 1:
		return fmt.Sprintf("COALESCE(%s, %s)", g.expr(kind, d), g.expr(kind, d))
	case 2:
		if kind != "bool" {
			return fmt.Sprintf("%s(%s, %s)", g.pick("NULLIF", "GREATEST", "LEAST"), g.expr(kind, d), g.expr(kind, d))
		}
	}
	switch kind {
	case "int":
		return g.pick(
			fmt.Sprintf("(%s %s %s)", g.expr("int", d), g.pick("+", "-", "*"), g.expr("int", d)),
			fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr("int", d), g.expr("int", d)),
			fmt.Sprintf("(%s %% 3)", g.expr("int", d)),
			fmt.Sprintf("length(%s)", g.expr("text", d)),
			fmt.Sprintf("octet_length(%s)", g.expr(g.pick("text", "bpchar", "varchar"), d)),
			fmt.Sprintf("char_length(%s)", g.expr("bpchar", d)),
			fmt.Sprintf("position(%s in %s)", g.pick("'a'", "'b'", "' '"), g.expr("text", d)),
			fmt.Sprintf("extract(day from %s)::int", g.expr("date", d)),
			fmt.Sprintf("(%s - %s)", g.expr("date", d), g.lit("date")),
			fmt.Sprintf("%s::int", g.expr("numeric", d)),
			fmt.Sprintf("abs(%s)", g.expr("int", d)),
			fmt.Sprintf("sign(%s)::int", g.expr("numeric", d)),
			fmt.Sprintf("ascii(%s)", g.expr("text", d)),
		)
	case "numeric":
		return g.pick(
			fmt.Sprintf("(%s %s %s)", g.expr("numeric", d), g.pick("+", "-", "*"), g.expr("numeric", d)),
			fmt.Sprintf("(%s / NULLIF(%s, 0))", g.expr("numeric", d), g.expr("numeric", d)),
			fmt.Sprintf("round(%s, %d)", g.expr("numeric", d), g.r.IntN(3)),
			fmt.Sprintf("trunc(%s)", g.expr("numeric", d)),
			fmt.Sprintf("%s::numeric", g.expr("int", d)),
			fmt.Sprintf("(%s + %s)", g.expr("int", d), g.expr("numeric", d)),
			fmt.Sprintf("%s::numeric(6,1)", g.expr("numeric", d)),
			fmt.Sprintf("abs(%s)", g.expr("numeric", d)),
			fmt.Sprintf("extract(epoch from %s)", g.expr("iv", d)),
			fmt.Sprintf("extract(hour from %s)", g.expr("ts", d)),
		)
	case "float":
		return g.pick(
			fmt.Sprintf("(%s * 2)", g.expr("float", d)),
			fmt.Sprintf("abs(%s)", g.expr("float", d)),
			fmt.Sprintf("floor(%s)", g.expr("float", d)),
			fmt.Sprintf("%s::float8", g.expr("numeric", d)),
			fmt.Sprintf("(%s + %s)", g.expr("float", d), g.expr("int", d)),
		)
	case "text", "varchar":
		return g.pick(
			fmt.Sprintf("upper(%s)", g.expr("text", d)),
			fmt.Sprintf("lower(%s)", g.expr("text", d)),
			fmt.Sprintf("(%s || %s)", g.expr("text", d), g.expr(g.pick("text", "bpchar", "varchar", "int"), d)),
			fmt.Sprintf("concat(%s, %s)", g.expr("text", d), g.expr(g.pick("bpchar", "int", "numeric", "date", "bool"), d)),
			fmt.Sprintf("concat_ws('-', %s, %s)", g.expr("text", d), g.expr("varchar", d)),
			fmt.Sprintf("rtrim(%s)", g.expr("text", d)),
			fmt.Sprintf("btrim(%s)", g.expr("text", d)),
			fmt.Sprintf("substr(%s, 2, 3)", g.expr("text", d)),
			fmt.Sprintf("left(%s, 2)", g.expr("text", d)),
			fmt.Sprintf("right(%s, 2)", g.expr("text", d)),
			fmt.Sprintf("replace(%s, 'a', 'A')", g.expr("text", d)),
			fmt.Sprintf("split_part(%s, 'a', 2)", g.expr("text", d)),
			fmt.Sprintf("lpad(%s, 6, '.')", g.expr("text", d)),
			fmt.Sprintf("reverse(%s)", g.expr("text", d)),
			fmt.Sprintf("%s::text", g.expr(g.pick("bpchar", "int", "numeric", "date", "ts", "iv", "bool", "varchar"), d)),
			fmt.Sprintf("%s::varchar(3)", g.expr("text", d)),
			fmt.Sprintf("initcap(%s)", g.expr("text", d)),
			fmt.Sprintf("repeat(%s, 2)", g.expr("bpchar", d)),
			fmt.Sprintf("md5(%s)", g.expr("text", d)),
			fmt.Sprintf("to_char(%s, 'YYYY-MM-DD')", g.expr("date", d)),
		)
	case "bpchar":
		return g.pick(fmt.Sprintf("%s::char(4)", g.expr("text", d)), fmt.Sprintf("%s::char(2)", g.expr("bpchar", d)))
	case "date":
		return g.pick(
			fmt.Sprintf("(%s + %s)", g.expr("date", d), g.expr("int", d)),
			fmt.Sprintf("(%s - 1)", g.expr("date", d)),
			fmt.Sprintf("%s::date", g.expr("ts", d)),
			fmt.Sprintf("date_trunc('month', %s)::date", g.expr("date", d)),
		)
	case "ts":
		return g.pick(
			fmt.Sprintf("(%s + %s)", g.expr("ts", d), g.expr("iv", d)),
			fmt.Sprintf("(%s - %s)", g.expr("ts", d), g.expr("iv", d)),
			fmt.Sprintf("(%s + %s)", g.expr("date", d), g.expr("iv", d)),
			fmt.Sprintf("date_trunc('%s', %s)", g.pick("hour", "day", "month", "week"), g.expr("ts", d)),
			fmt.Sprintf("%s::timestamp", g.expr(g.pick("date", "tz"), d)),
		)
	case "tz":
		return g.pick(
			fmt.Sprintf("(%s + %s)", g.expr("tz", d), g.expr("iv", d)),
			fmt.Sprintf("date_trunc('day', %s)", g.expr("tz", d)),
			fmt.Sprintf("%s::timestamptz", g.expr(g.pick("date", "ts"), d)),
		)
	case "iv":
		return g.pick(
			fmt.Sprintf("(%s - %s)", g.expr("ts", d), g.expr("ts", d)),
			fmt.Sprintf("(%s * %s)", g.expr("iv", d), g.expr("int", d)),
			fmt.Sprintf("(%s + %s)", g.expr("iv", d), g.expr("iv", d)),
			fmt.Sprintf("justify_hours(%s)", g.expr("iv", d)),
			fmt.Sprintf("age(%s, %s)", g.expr("ts", d), g.lit("ts")),
			fmt.Sprintf("(%s - %s)", g.expr("tz", d), g.expr("tz", d)),
		)
	case "bool":
		return g.pred(d)
	}
	return g.lit(kind)
}

var wideKinds = []string{"int", "numeric", "text", "varchar", "bpchar", "date", "ts", "tz", "iv", "bool", "float"}

// cmpKinds are kinds compared with each other's operators.
func cmpPartner(k string) string {
	switch k {
	case "bpchar", "varchar":
		return "text"
	case "date":
		return "ts"
	}
	return k
}

// pred is a boolean expression over the scope.
func (g *WideGen) pred(depth int) string {
	if depth > 0 && g.one(3) {
		switch g.r.IntN(3) {
		case 0:
			return "NOT (" + g.pred(depth-1) + ")"
		case 1:
			return "(" + g.pred(depth-1) + " AND " + g.pred(depth-1) + ")"
		default:
			return "(" + g.pred(depth-1) + " OR " + g.pred(depth-1) + ")"
		}
	}
	c, _ := g.col(false)
	d := depth - 1
	if d < 0 {
		d = 0
	}
	switch g.r.IntN(14) {
	case 0:
		return c.expr + g.pick(" IS NULL", " IS NOT NULL")
	case 1:
		return fmt.Sprintf("%s %sIN (%s, %s, %s)", c.expr, g.pick("", "NOT "), g.lit(c.kind), g.lit(c.kind), g.lit(c.kind))
	case 2:
		return fmt.Sprintf("%s %sBETWEEN %s AND %s", c.expr, g.pick("", "NOT "), g.lit(c.kind), g.lit(c.kind))
	case 3:
		t, _ := g.col(false, "text", "varchar", "bpchar")
		if t.expr == "" {
			return "true"
		}
		return fmt.Sprintf("%s %s %s", t.expr, g.pick("LIKE", "NOT LIKE", "ILIKE"), g.lit("text"))
	case 4:
		o := g.expr(cmpPartner(c.kind), d)
		return fmt.Sprintf("%s %s %s", c.expr, g.pick("=", "<>", "<", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM"), o)
	case 5:
		return fmt.Sprintf("%s %sIN (SELECT x FROM wb WHERE wb.seq %s %d)", g.expr("int", d), g.pick("", "NOT "), g.pick("<", ">", "="), g.r.IntN(3))
	case 6:
		i, ok := g.col(false, "int")
		if !ok {
			return "true"
		}
		return fmt.Sprintf("%sEXISTS (SELECT 1 FROM wb WHERE wb.x = %s%s)", g.pick("", "NOT "), i.expr, g.pick("", " AND wb.s IS NOT NULL", " AND wb.m > 0"))
	case 7:
		return fmt.Sprintf("%s %s (SELECT %s(x) FROM wb%s)", g.expr("int", d), g.pick("<", ">", "="), g.pick("min", "max", "count"), g.pick("", " WHERE wb.seq = 1"))
	case 8:
		return fmt.Sprintf("%s %s %s(SELECT k FROM wk)", g.expr("int", d), g.pick("=", "<>", "<", ">"), g.pick("ANY ", "ALL "))
	case 9:
		if c.kind == "bool" {
			return c.expr + g.pick("", " IS TRUE", " IS NOT FALSE", " IS UNKNOWN")
		}
		fallthrough
	default:
		return fmt.Sprintf("%s %s %s", g.expr(c.kind, d), g.pick("=", "<>", "<", "<=", ">", ">="), g.lit(c.kind))
	}
}

// scopeOf puts a table's columns in scope under alias.
func scopeOf(t wtable, alias string) []wcolIn {
	var s []wcolIn
	for _, c := range t.cols {
		s = append(s, wcolIn{alias + "." + c.name, c})
	}
	return s
}

// WideQuery is a generated query: its text and whether its order is
// total (compare in order) or not (compare as multisets).
type WideQuery struct {
	SQL     string
	Ordered bool
}

// fromClause draws the FROM of a query: one table or a join of two,
// sets the scope and returns the unique key expressions of its rows
// (nil: none).
func (g *WideGen) fromClause() (string, []string) {
	t1 := wideTables[g.r.IntN(len(wideTables))]
	if t1.name == "wp" && g.one(3) {
		g.scope = scopeOf(t1, "wp")
		return "ONLY wp", qualify("wp", t1.unique)
	}
	if g.r.IntN(5) < 3 {
		g.scope = scopeOf(t1, "a")
		return t1.name + " a", qualify("a", t1.unique)
	}
	t2 := wideTables[g.r.IntN(len(wideTables))]
	g.scope = append(scopeOf(t1, "a"), scopeOf(t2, "b")...)
	kind := g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", "LEFT JOIN", "JOIN")
	var on string
	if kind != "CROSS JOIN" {
		var conds []string
		// an equality between two columns of a kind, NULLs on both sides
		for range 1 + g.r.IntN(2) {
			c1, _ := g.colOf(t1, "a", "")
			c2, ok := g.colOf(t2, "b", cmpPartner(c1.kind))
			if !ok {
				c2, ok = g.colOf(t2, "b", c1.kind)
			}
			if !ok {
				continue
			}
			conds = append(conds, fmt.Sprintf("%s %s %s", c1.expr, g.pick("=", "=", "=", "<", "IS NOT DISTINCT FROM"), c2.expr))
		}
		if len(conds) == 0 || g.one(4) {
			conds = append(conds, g.pred(0))
		}
		on = " ON " + strings.Join(conds, " AND ")
		if kind == "FULL JOIN" {
			// PostgreSQL: FULL JOIN is supported only with merge-joinable
			// or hash-joinable join conditions.
			c1, _ := g.colOf(t1, "a", "int")
			c2, _ := g.colOf(t2, "b", "int")
			on = fmt.Sprintf(" ON %s = %s", c1.expr, c2.expr)
		}
	}
	from := fmt.Sprintf("%s a %s %s b%s", t1.name, kind, t2.name, on)
	if t1.unique == nil || t2.unique == nil {
		return from, nil
	}
	return from, append(qualify("a", t1.unique), qualify("b", t2.unique)...)
}

func (g *WideGen) colOf(t wtable, alias, kind string) (wcolIn, bool) {
	var c []wcol
	for _, x := range t.cols {
		if kind == "" || x.kind == kind {
			c = append(c, x)
		}
	}
	if len(c) == 0 {
		return wcolIn{}, false
	}
	x := c[g.r.IntN(len(c))]
	return wcolIn{alias + "." + x.name, x}, true
}

func qualify(alias string, cols []string) []string {
	var out []string
	for _, c := range cols {
		out = append(out, alias+"."+c)
	}
	return out
}

// orderBy orders by keys (each with a random direction and NULLS
// placement).
func (g *WideGen) orderBy(keys []string) string {
	var o []string
	for _, k := range keys {
		o = append(o, k+g.pick("", "", " DESC", " ASC")+g.pick("", "", " NULLS FIRST", " NULLS LAST"))
	}
	return " ORDER BY " + strings.Join(o, ", ")
}

func (g *WideGen) limit() string {
	s := ""
	if g.one(2) {
		s += fmt.Sprintf(" LIMIT %d", g.r.IntN(15))
	}
	if g.one(3) {
		s += fmt.Sprintf(" OFFSET %d", g.r.IntN(10))
	}
	return s
}

// Next draws a query.
func (g *WideGen) Next() WideQuery {
	switch g.r.IntN(9) {
	case 0, 1:
		return g.scan()
	case 2, 3:
		return g.grouped()
	case 4:
		return g.window()
	case 5:
		return g.setop()
	case 6:
		return g.distinctOn()
	case 7:
		if g.one(3) {
			return g.collated()
		}
		return g.correlated()
	default:
		return g.cte()
	}
}

// items draws n select-list expressions.
func (g *WideGen) items(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s AS c%d", g.expr(wideKinds[g.r.IntN(len(wideKinds))], 1+g.r.IntN(2)), i)
	}
	return out
}

func (g *WideGen) where() string {
	if g.one(4) {
		return ""
	}
	return " WHERE " + g.pred(2)
}

// scan: expressions over one table or a join; ordered by a unique key
// (with LIMIT/OFFSET) or unordered.
func (g *WideGen) scan() WideQuery {
	from, uniq := g.fromClause()
	items := g.items(1 + g.r.IntN(4))
	sql := "SELECT "
	distinct := g.one(6)
	if distinct {
		sql += "DISTINCT "
		// kinds whose equal values print alike (not bpchar: a CASE of
		// char(4) and char(2) values holds 'AB  ' and 'AB', equal, and
		// PostgreSQL's DISTINCT keeps the one its plan meets first —
		// seed 53 query 48)
		for i := range items {
			items[i] = fmt.Sprintf("%s AS c%d", g.expr(g.pick("int", "text", "date", "bool", "ts", "varchar"), 1+g.r.IntN(2)), i)
		}
	}
	if uniq != nil && !distinct && g.r.IntN(3) > 0 {
		sql += strings.Join(append(append([]string{}, uniq...), items...), ", ") + " FROM " + from + g.where()
		return WideQuery{sql + g.orderBy(uniq) + g.limit(), true}
	}
	return WideQuery{sql + strings.Join(items, ", ") + " FROM " + from + g.where(), false}
}

// agg is an aggregate over the scope (no float sum/avg).
func (g *WideGen) agg() string {
	filter := ""
	if g.one(4) {
		filter = " FILTER (WHERE " + g.pred(1) + ")"
	}
	c, _ := g.col(false)
	switch g.r.IntN(11) {
	case 0:
		return "count(*)" + filter
	case 1:
		return "count(" + g.pick("", "DISTINCT ") + c.expr + ")" + filter
	case 2, 3:
		// key columns only: of equal values printed differently (1.0
		// and 1.00, -0 and 0, 1 day and 24 hours) PostgreSQL's min/max
		// answers the first its plan meets.
		m, ok := g.col(true, "int", "numeric", "text", "varchar", "bpchar", "date", "ts", "tz")
		if !ok {
			return "count(*)"
		}
		return g.pick("min", "max") + "(" + m.expr + ")" + filter
	case 4, 5:
		n, ok := g.col(false, "int", "numeric")
		if !ok {
			return "count(*)"
		}
		d := ""
		if n.key && g.one(2) {
			d = "DISTINCT " // not over 1.0 and 1.00: which one stays is the plan's
		}
		return g.pick("sum", "avg", "sum") + "(" + d + n.expr + ")" + filter
	case 6:
		b, ok := g.col(false, "bool")
		if !ok {
			return g.pick("bool_and", "bool_or") + "(" + g.pred(0) + ")"
		}
		return g.pick("bool_and", "bool_or", "every") + "(" + b.expr + ")" + filter
	case 7:
		t, ok := g.col(true, "text", "varchar")
		if !ok {
			return "count(*)"
		}
		u := g.uniqueOrder(t.expr)
		return "string_agg(" + t.expr + ", ',' ORDER BY " + u + ")" + filter
	case 8:
		i, ok := g.col(true, "int", "date")
		if !ok {
			return "count(*)"
		}
		return "array_agg(" + i.expr + " ORDER BY " + g.uniqueOrder(i.expr) + ")" + filter
	case 9:
		iv, ok := g.col(false, "iv")
		if !ok {
			return "count(1)"
		}
		return "sum(" + iv.expr + ")"
	default:
		n, ok := g.col(false, "int", "numeric")
		if !ok {
			return "count(*)"
		}
		return g.pick("stddev", "variance", "stddev_pop", "var_samp") + "(" + n.expr + ")"
	}
}

// uniqueOrder is an ORDER BY list inside an aggregate that makes its
// order total: the expression, then every key column in scope.
func (g *WideGen) uniqueOrder(e string) string {
	keys := []string{e + g.pick("", " DESC") + g.pick("", " NULLS FIRST")}
	for _, c := range g.scope {
		if c.key {
			keys = append(keys, c.expr)
		}
	}
	return strings.Join(keys, ", ")
}

// grouped: GROUP BY key columns (or none) with aggregates and HAVING.
func (g *WideGen) grouped() WideQuery {
	from, _ := g.fromClause()
	var keys []string
	for range g.r.IntN(3) {
		if k, ok := g.col(true); ok && !strings.Contains(strings.Join(keys, ","), k.expr) {
			keys = append(keys, k.expr)
		}
	}
	var items []string
	items = append(items, keys...)
	for range 1 + g.r.IntN(3) {
		items = append(items, g.agg())
	}
	sql := "SELECT " + strings.Join(items, ", ") + " FROM " + from + g.where()
	if len(keys) > 0 {
		sql += " GROUP BY " + strings.Join(keys, ", ")
		if g.one(3) {
			sql += " HAVING " + g.pick("count(*) > 1", "count(*) < 3", fmt.Sprintf("%s IS NOT NULL", keys[0]), "sum(1) >= 2", "min("+keys[0]+") = max("+keys[0]+")")
		}
		if g.one(2) {
			return WideQuery{sql + g.orderBy(keys) + g.limit(), true}
		}
	}
	return WideQuery{sql, false}
}

// window: window functions over a partition, ordered by a unique key
// where the function needs a total order.
func (g *WideGen) window() WideQuery {
	t, uniq := g.keyedTable(0)
	part := ""
	if k, ok := g.col(true); ok && g.r.IntN(3) > 0 {
		part = "PARTITION BY " + k.expr + " "
	}
	ord := g.orderBy(uniq)[1:]
	k, _ := g.col(true)
	n, _ := g.col(false, "int", "numeric")
	var fns []string
	for range 1 + g.r.IntN(3) {
		fns = append(fns, g.pick(
			"row_number() OVER ("+part+ord+")",
			"rank() OVER ("+part+"ORDER BY "+k.expr+")",
			"dense_rank() OVER ("+part+"ORDER BY "+k.expr+g.pick("", " DESC")+")",
			"lag("+k.expr+") OVER ("+part+ord+")",
			"lead("+k.expr+", 2) OVER ("+part+ord+")",
			"first_value("+k.expr+") OVER ("+part+ord+")",
			"count(*) OVER ("+part+")",
			"sum("+n.expr+") OVER ("+part+ord+")",
			"sum("+n.expr+") OVER ("+part+"ORDER BY "+k.expr+")",
			"count("+k.expr+") OVER ("+part+ord+" ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
			"ntile(3) OVER ("+part+ord+")",
			"max("+k.expr+") OVER ("+part+")",
			"percent_rank() OVER ("+part+"ORDER BY "+k.expr+")",
		))
	}
	sql := "SELECT " + strings.Join(uniq, ", ") + ", " + strings.Join(fns, ", ") + " FROM " + t.name + " a" + g.where()
	if g.one(2) {
		return WideQuery{sql + g.orderBy(uniq) + g.limit(), true}
	}
	return WideQuery{sql, false}
}

// setop: two single-column (or two-column) branches under UNION /
// INTERSECT / EXCEPT [ALL].
func (g *WideGen) setop() WideQuery {
	kinds := []string{"int", "text", "date", "bool", "varchar"}
	k := kinds[g.r.IntN(len(kinds))]
	branch := func() string {
		t := wideTables[g.r.IntN(len(wideTables))]
		g.scope = scopeOf(t, "a")
		c, ok := g.col(true, k)
		e := g.lit(k)
		if ok {
			e = c.expr
		}
		if g.one(3) {
			e = g.expr(k, 1)
		}
		return "SELECT " + e + " FROM " + t.name + " a" + g.where()
	}
	op := g.pick("UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL")
	sql := branch() + " " + op + " " + branch()
	if g.one(3) {
		sql += " " + g.pick("UNION", "EXCEPT", "UNION ALL") + " " + branch()
	}
	if !strings.Contains(op, "ALL") && g.one(2) {
		return WideQuery{sql + " ORDER BY 1" + g.pick("", " DESC") + g.pick("", " NULLS FIRST", " NULLS LAST") + g.limit(), true}
	}
	return WideQuery{sql, false}
}

// distinctOn: DISTINCT ON a key, the row chosen by a unique order.
func (g *WideGen) distinctOn() WideQuery {
	t, uniq := g.keyedTable(1)
	k, _ := g.col(true)
	items := g.items(1 + g.r.IntN(2))
	dir := g.pick("", " DESC") + g.pick("", " NULLS FIRST", " NULLS LAST")
	sql := "SELECT DISTINCT ON (" + k.expr + ") " + k.expr + ", " + strings.Join(uniq, ", ") + ", " + strings.Join(items, ", ") +
		" FROM " + t.name + " a" + g.where() + " ORDER BY " + k.expr + dir + ", " + strings.Join(uniq, ", ")
	return WideQuery{sql + g.limit(), true}
}

// correlated: a correlated scalar subquery, EXISTS or IN in the select
// list or WHERE.
func (g *WideGen) correlated() WideQuery {
	g.scope = scopeOf(wideTables[0], "a")
	sub := g.pick(
		"(SELECT count(*) FROM wb WHERE wb.wid = a.id)",
		"(SELECT max(wb.s) FROM wb WHERE wb.wid = a.id AND wb.x IS NOT NULL)",
		"(SELECT min(wb.m) FROM wb WHERE wb.x = a.k)",
		"EXISTS (SELECT 1 FROM wb WHERE wb.wid = a.id AND wb.x > a.k)",
		"a.k NOT IN (SELECT wb.x FROM wb WHERE wb.wid = a.id)",
		"a.k IN (SELECT wk.k FROM wk WHERE wk.s = a.g)",
		"(SELECT wb.s FROM wb WHERE wb.wid = a.id ORDER BY wb.seq LIMIT 1)",
		"a.t IN (SELECT wb.s FROM wb)",
		"a.k NOT IN (SELECT wk.k FROM wk)",
		"(SELECT sum(wb.x) FROM wb WHERE wb.dd = a.d)",
	)
	items := g.items(g.r.IntN(2))
	sel := append([]string{"a.id", sub + " AS sq"}, items...)
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM wa a" + g.where()
	if g.one(2) {
		return WideQuery{sql + " ORDER BY a.id" + g.pick("", " DESC") + g.limit(), true}
	}
	return WideQuery{sql, false}
}

// cte: a CTE (aggregated or filtered) joined back to a table.
func (g *WideGen) cte() WideQuery {
	g.scope = scopeOf(wideTables[1], "wb")
	inner := g.pick(
		"SELECT wid, count(*) AS cnt, sum(x) AS sx, max(s) AS ms FROM wb GROUP BY wid",
		"SELECT wid, seq, x, s FROM wb WHERE "+g.pred(1),
		"SELECT DISTINCT x AS wid, s FROM wb",
	)
	g.scope = append(scopeOf(wideTables[0], "a"), wcolIn{"c.wid", wcol{"wid", "int", true}})
	join := g.pick("JOIN", "LEFT JOIN", "RIGHT JOIN")
	items := g.items(1 + g.r.IntN(2))
	sql := "WITH c AS " + g.pick("", "MATERIALIZED ") + "(" + inner + ") SELECT c.*, " + strings.Join(items, ", ") +
		" FROM c " + join + " wa a ON a.id = c.wid" + g.where()
	return WideQuery{sql, false}
}

// collated: text under an ICU collation (wc.s) and "C" (wc.b): its
// order and comparisons must be PostgreSQL's, or refused.
func (g *WideGen) collated() WideQuery {
	c := g.pick("s", "b", "s", "s COLLATE \"C\"", "b COLLATE \"en-x-icu\"")
	lit := g.pick("'b'", "'apple'", "'Apple'", "'éclair'", "'Z'")
	switch g.r.IntN(6) {
	case 0:
		return WideQuery{"SELECT id, " + c + " FROM wc ORDER BY " + c + g.pick("", " DESC") + ", id", true}
	case 1:
		return WideQuery{"SELECT id FROM wc WHERE " + c + " " + g.pick("<", ">=", "=", "<>") + " " + lit, false}
	case 2:
		return WideQuery{"SELECT min(" + c + "), max(" + c + "), count(DISTINCT " + c + ") FROM wc", false}
	case 3:
		return WideQuery{"SELECT " + c + ", count(*) FROM wc GROUP BY 1", false}
	case 4:
		return WideQuery{"SELECT id, upper(" + c + "), lower(" + c + ") FROM wc", false}
	default:
		return WideQuery{"SELECT id, " + c + " " + g.pick("LIKE 'a%'", "BETWEEN 'a' AND 'c'", "IN ('apple', 'Banana')") + " FROM wc", false}
	}
}

// CompareWide runs q on both sessions in text format (and, when binary
// is set, in binary format too) and classifies the sidecar's answer: in
// order when q's order is total, as multisets otherwise.
func CompareWide(ctx context.Context, pgs, scs *Session, q WideQuery, binary bool, timeout time.Duration) Outcome {
	st := Statement{SQL: q.SQL, Kind: Query, Ordered: q.Ordered}
	formats := []int16{0}
	if binary {
		formats = append(formats, 1)
	}
	for _, f := range formats {
		o := classifyAnswers(st, pgs.Run(ctx, q.SQL, f, timeout), scs.Run(ctx, q.SQL, f, timeout))
		if o.Class != Identical {
			if f == 1 && o.Class != Refused {
				o.Message = "binary format: " + o.Message
			}
			return o
		}
	}
	return Outcome{Class: Identical}
}

// Answer is one server's reply to a query, kept to compare later (a
// past version's answer with PostgreSQL's at that point).
type Answer struct{ a answer }

// Capture runs sql in text format and keeps the reply.
func (s *Session) Capture(ctx context.Context, sql string, timeout time.Duration) Answer {
	return Answer{s.Run(ctx, sql, 0, timeout)}
}

// Text is the reply as lines (the columns, then each row, or the
// error), for a replay to show what a server answered (EXPLAIN).
func (a Answer) Text() string {
	if a.a.err != nil {
		return a.a.err.Error()
	}
	return strings.Join(a.a.cols, " | ") + "\n" + strings.Join(a.a.rows, "\n")
}

// CompareAnswers classifies got against want for q.
func CompareAnswers(q WideQuery, want, got Answer) Outcome {
	return classifyAnswers(Statement{SQL: q.SQL, Kind: Query, Ordered: q.Ordered}, want.a, got.a)
}

// tableRef finds the generator's table references in FROM and JOIN.
var tableRef = regexp.MustCompile(`\b(FROM|JOIN) (wa|wb|wk|wp)\b`)

// AsOf rewrites q to read every table AS OF ref; ok is false for a
// query it cannot rewrite (FROM ONLY).
func AsOf(q WideQuery, ref string) (WideQuery, bool) {
	if strings.Contains(q.SQL, "ONLY ") || strings.Contains(q.SQL, "WITH ") {
		return q, false
	}
	q.SQL = tableRef.ReplaceAllString(q.SQL, "$1 $2 AS OF '"+ref+"'")
	return q, true
}

// WideChurn changes the wide tables' rows (updates of keys and values,
// deletes, inserts) after a version a test keeps.
const WideChurn = `UPDATE wa SET k = coalesce(k, 0) + 10, n = n * 2, t = t || '!' WHERE id % 4 = 1;
DELETE FROM wa WHERE id % 9 = 2;
INSERT INTO wa (id, k, t, n, d) SELECT g, g % 3, 'new', 5.5, date '2024-03-09' FROM generate_series(2001, 2030) g;
UPDATE wa SET id = id + 5000 WHERE id % 19 = 5;
UPDATE wb SET x = coalesce(x, 0) - 1 WHERE seq = 2;
DELETE FROM wb WHERE wid % 5 = 1;
DELETE FROM wk WHERE k = 2;
UPDATE wk SET s = 'changed' WHERE k = 3;
INSERT INTO wk VALUES (9, 'nine', 9.9, true), (9, 'nine', 9.9, true);
UPDATE wp SET k = 7 WHERE id < 5;
DELETE FROM wpc WHERE id > 19;`

// CatchUp waits until the sidecar has applied every change committed
// on pgURL so far.
func (s *Sidecar) CatchUp(ctx context.Context, pgURL string) error {
	return s.waitMarker(ctx, pgURL, false)
}

// Exec runs statements on url (a test's changes to the followed data).
func Exec(ctx context.Context, url string, stmts ...string) error { return execAll(ctx, url, stmts...) }

// Value is the text of row i's column j ("" when there is none).
func (a Answer) Value(i, j int) string {
	if a.a.err != nil || i >= len(a.a.rows) {
		return ""
	}
	return strings.Split(a.a.rows[i], "|")[j]
}

// keyedTable draws a table with a unique key (wideTables[fallback] for
// one without), puts it in scope as "a" and returns its key columns.
func (g *WideGen) keyedTable(fallback int) (wtable, []string) {
	t := wideTables[g.r.IntN(len(wideTables))]
	if t.unique == nil {
		t = wideTables[fallback]
	}
	g.scope = scopeOf(t, "a")
	return t, qualify("a", t.unique)
}
