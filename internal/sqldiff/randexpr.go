package sqldiff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// The random expression generator: typed scalar expressions over
// int2/int4/int8/numeric/float8/text/date/timestamp/timestamptz/interval
// and bool, built from edge values (overflow bounds, NaN, ±Infinity,
// zero, rounding ties, NULL) and the operators, functions and casts
// between those types, compared with PostgreSQL value for value. Unlike
// the query generator it aims at the function library and the types'
// arithmetic, not at the planner.

// ExprSetup creates the expression generator's table: one row per edge
// value in every column, NULLs included.
const ExprSetup = `CREATE TABLE ex (id int PRIMARY KEY, i2 int2, i4 int4, i8 int8, n numeric, f float8, t text, d date, ts timestamp, tz timestamptz, iv interval, b bool);
INSERT INTO ex VALUES
 (1, 0, 0, 0, 0, 0, '', '2000-01-01', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00', '0', false),
 (2, 32767, 2147483647, 9223372036854775807, 99999999999999999999.5, 1e308, 'abc', '2024-02-29', '2024-02-29 23:59:59.999999', '2024-02-29 23:59:59.999999+00', '1 year 2 mons 3 days 04:05:06.789', true),
 (3, -32768, -2147483648, -9223372036854775808, -0.5, -2.5, 'ÄbC dé', '1999-12-31', '1970-01-01 00:00:00.000001', '1969-12-31 23:59:59.5+00', '-1 mons 2 days -00:00:01', NULL),
 (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (5, 7, -7, 5, 'NaN', 'NaN', ' 12 ', 'infinity', 'infinity', 'infinity', '2147483647 days', false),
 (6, -1, 1, -1, 2.5, 'Infinity', 'NaN', '-infinity', '-infinity', '-infinity', '-2147483648 hours', true),
 (7, 2, 3, 10, 'Infinity', '-Infinity', '1e3', '0001-01-01 BC', '0044-03-15 12:00:00 BC', '2024-03-31 01:30:00+00', '00:00:00.000001', true),
 (8, 100, 46341, 3037000500, 12345.6789, 0.1, 'a_b%c', '2026-12-04', '2026-12-04 12:34:56.5', '2026-10-25 00:30:00+00', '30 days', false),
 (9, -3, 65536, -4294967296, 1.005, -0.0, '-5', '1900-02-28', '1900-02-28 23:00:00', '1900-02-28 23:00:00+00', '1 day -24:00:00', NULL);
ANALYZE ex;`

// ExprTables are the tables ExprSetup creates.
var ExprTables = []string{"public.ex"}

// exprTypes are the generator's types, as PostgreSQL names them.
var exprTypes = []string{"int2", "int4", "int8", "numeric", "float8", "text", "date", "timestamp", "timestamptz", "interval", "bool"}

// exprColumn is the ex column of each type.
var exprColumn = map[string]string{"int2": "i2", "int4": "i4", "int8": "i8", "numeric": "n", "float8": "f", "text": "t",
	"date": "d", "timestamp": "ts", "timestamptz": "tz", "interval": "iv", "bool": "b"}

// exprLiterals are edge values of each type.
var exprLiterals = map[string][]string{
	"int2":        {"0::int2", "1::int2", "(-1)::int2", "32767::int2", "(-32768)::int2", "7::int2", "NULL::int2"},
	"int4":        {"0", "3", "-7", "2147483647", "(-2147483648)", "100", "46341", "NULL::int4"},
	"int8":        {"0::int8", "5::int8", "9223372036854775807", "(-9223372036854775808)::int8", "(-3)::int8", "4294967296", "NULL::int8"},
	"numeric":     {"0.0", "1.5", "-2.5", "0.5", "12345.6789", "'NaN'::numeric", "'Infinity'::numeric", "'-Infinity'::numeric", "1e20", "0.000001", "99.995", "NULL::numeric", "(-0.5)"},
	"float8":      {"0::float8", "'-0'::float8", "1.5::float8", "2.5::float8", "(-2.5)::float8", "'NaN'::float8", "'Infinity'::float8", "'-Infinity'::float8", "1e308::float8", "1e-300::float8", "0.1::float8", "3.999999::float8", "NULL::float8"},
	"text":        {"''", "'abc'", "'ÄbC'", "' x '", "'12'", "'NaN'", "'-0'", "NULL::text"},
	"date":        {"date '2024-02-29'", "date '1999-12-31'", "date 'infinity'", "date '-infinity'", "date '0001-01-01 BC'", "date '2000-01-01'", "NULL::date"},
	"timestamp":   {"timestamp '2024-02-29 12:34:56.789'", "timestamp 'infinity'", "timestamp '-infinity'", "timestamp '2000-01-01'", "timestamp '1970-01-01 00:00:00.000001'", "timestamp '2024-12-31 23:59:59.999999'", "NULL::timestamp"},
	"timestamptz": {"timestamptz '2024-02-29 12:34:56.789+00'", "timestamptz 'infinity'", "timestamptz '2000-01-01 00:00:00+00'", "timestamptz '2024-03-31 01:30:00+02'", "timestamptz '1969-12-31 23:59:59.999999+00'", "NULL::timestamptz"},
	"interval":    {"interval '1 day'", "interval '-1 mon 2 days'", "interval '1 year 2 mons 3 days 04:05:06.789'", "interval '0'", "interval '24:00:00'", "interval '-00:00:00.000001'", "interval '100 years'", "NULL::interval"},
	"bool":        {"true", "false", "NULL::bool"},
}

// exprOps are the ways to build a value of each type; %[1]s, %[2]s, …
// are sub-expressions of the types listed.
type exprOp struct {
	format string
	args   []string
}

var exprOps = map[string][]exprOp{
	"int2": {{"(%s + %s)", []string{"int2", "int2"}}, {"(%s - %s)", []string{"int2", "int2"}}, {"(%s * %s)", []string{"int2", "int2"}},
		{"(%s / %s)", []string{"int2", "int2"}}, {"(%s %% %s)", []string{"int2", "int2"}}, {"(- %s)", []string{"int2"}}, {"abs(%s)", []string{"int2"}},
		{"%s::int2", []string{"int4"}}, {"%s::int2", []string{"int8"}}, {"%s::int2", []string{"numeric"}}, {"%s::int2", []string{"float8"}},
		{"(%s << 3)", []string{"int2"}}, {"(%s >> 1)", []string{"int2"}}, {"(%s & %s)", []string{"int2", "int2"}}, {"(~ %s)", []string{"int2"}}},
	"int4": {{"(%s + %s)", []string{"int4", "int4"}}, {"(%s - %s)", []string{"int4", "int4"}}, {"(%s * %s)", []string{"int4", "int4"}},
		{"(%s / %s)", []string{"int4", "int4"}}, {"(%s %% %s)", []string{"int4", "int4"}}, {"(- %s)", []string{"int4"}}, {"abs(%s)", []string{"int4"}},
		{"(%s + %s)", []string{"int2", "int4"}}, {"(%s * %s)", []string{"int4", "int2"}}, {"mod(%s, %s)", []string{"int4", "int4"}},
		{"%s::int4", []string{"int8"}}, {"%s::int4", []string{"numeric"}}, {"%s::int4", []string{"float8"}}, {"length(%s)", []string{"text"}},
		{"(%s - %s)", []string{"date", "date"}}, {"(%s << %s)", []string{"int4", "int4"}}, {"(%s >> %s)", []string{"int4", "int4"}},
		{"strpos(%s, %s)", []string{"text", "text"}}, {"ascii(%s)", []string{"text"}}, {"gcd(%s, %s)", []string{"int4", "int4"}},
		{"lcm(%s, %s)", []string{"int4", "int4"}}, {"width_bucket(%s, 0.0, 100.0, 7)", []string{"float8"}}, {"scale(%s)", []string{"numeric"}},
		{"date_part('isodow', %s)::int4", []string{"date"}}, {"extract(week from %s)::int4", []string{"timestamp"}}, {"octet_length(%s)", []string{"text"}},
		{"(%s | %s)", []string{"int4", "int4"}}, {"(%s # %s)", []string{"int4", "int4"}}, {"sign(%s)::int4", []string{"int4"}}},
	"int8": {{"(%s + %s)", []string{"int8", "int8"}}, {"(%s - %s)", []string{"int8", "int8"}}, {"(%s * %s)", []string{"int8", "int8"}},
		{"(%s / %s)", []string{"int8", "int8"}}, {"(%s %% %s)", []string{"int8", "int8"}}, {"(- %s)", []string{"int8"}}, {"abs(%s)", []string{"int8"}},
		{"(%s + %s)", []string{"int4", "int8"}}, {"(%s * %s)", []string{"int8", "int4"}}, {"%s::int8", []string{"numeric"}}, {"%s::int8", []string{"float8"}},
		{"(%s << %s)", []string{"int8", "int4"}}, {"(%s >> %s)", []string{"int8", "int4"}}, {"(%s & %s)", []string{"int8", "int8"}}},
	"numeric": {{"(%s + %s)", []string{"numeric", "numeric"}}, {"(%s - %s)", []string{"numeric", "numeric"}}, {"(%s * %s)", []string{"numeric", "numeric"}},
		{"(%s / %s)", []string{"numeric", "numeric"}}, {"(%s %% %s)", []string{"numeric", "numeric"}}, {"(- %s)", []string{"numeric"}}, {"abs(%s)", []string{"numeric"}},
		{"round(%s)", []string{"numeric"}}, {"round(%s, 2)", []string{"numeric"}}, {"round(%s, -1)", []string{"numeric"}}, {"trunc(%s, 1)", []string{"numeric"}},
		{"ceil(%s)", []string{"numeric"}}, {"floor(%s)", []string{"numeric"}}, {"sign(%s)", []string{"numeric"}}, {"mod(%s, %s)", []string{"numeric", "numeric"}},
		{"%s::numeric", []string{"int4"}}, {"%s::numeric", []string{"int8"}}, {"%s::numeric", []string{"float8"}}, {"(%s + %s)", []string{"int4", "numeric"}},
		{"(%s * %s)", []string{"numeric", "int8"}}, {"%s::numeric(10,2)", []string{"numeric"}}, {"sqrt(abs(%s))", []string{"numeric"}},
		{"extract(year from %s)", []string{"date"}}, {"extract(epoch from %s)", []string{"interval"}}, {"extract(day from %s)", []string{"timestamp"}},
		{"div(%s, %s)", []string{"numeric", "numeric"}}, {"trim_scale(%s)", []string{"numeric"}}, {"power(%s, 3)", []string{"numeric"}},
		{"exp(%s)", []string{"numeric"}}, {"ln(abs(%s) + 1)", []string{"numeric"}}, {"log(10, abs(%s) + 1)", []string{"numeric"}},
		{"gcd(%s, %s)", []string{"numeric", "numeric"}}, {"round(%s, -3)", []string{"numeric"}},
		{"extract(millisecond from %s)", []string{"timestamp"}}, {"extract(julian from %s)", []string{"date"}}, {"min_scale(%s)::numeric", []string{"numeric"}},
		{"date_part('month', %s)::numeric", []string{"timestamptz"}}},
	"float8": {{"(%s + %s)", []string{"float8", "float8"}}, {"(%s - %s)", []string{"float8", "float8"}}, {"(%s * %s)", []string{"float8", "float8"}},
		{"(%s / %s)", []string{"float8", "float8"}}, {"(- %s)", []string{"float8"}}, {"abs(%s)", []string{"float8"}}, {"round(%s)", []string{"float8"}},
		{"trunc(%s)", []string{"float8"}}, {"ceil(%s)", []string{"float8"}}, {"floor(%s)", []string{"float8"}}, {"sqrt(%s)", []string{"float8"}},
		{"%s::float8", []string{"int4"}}, {"%s::float8", []string{"int8"}}, {"%s::float8", []string{"numeric"}}, {"(%s * %s)", []string{"float8", "int4"}},
		{"(%s + %s)", []string{"numeric", "float8"}}, {"sign(%s)", []string{"float8"}}, {"power(%s, 2)", []string{"float8"}}, {"ln(abs(%s) + 1)", []string{"float8"}},
		{"date_part('epoch', %s)", []string{"timestamp"}}, {"date_part('hour', %s)", []string{"interval"}}},
	"text": {{"(%s || %s)", []string{"text", "text"}}, {"upper(%s)", []string{"text"}}, {"lower(%s)", []string{"text"}}, {"substr(%s, 2, 2)", []string{"text"}},
		{"left(%s, -1)", []string{"text"}}, {"lpad(%s, 4, '*')", []string{"text"}}, {"btrim(%s)", []string{"text"}}, {"reverse(%s)", []string{"text"}},
		{"%s::text", []string{"int2"}}, {"%s::text", []string{"int4"}}, {"%s::text", []string{"int8"}}, {"%s::text", []string{"numeric"}},
		{"%s::text", []string{"float8"}}, {"%s::text", []string{"date"}}, {"%s::text", []string{"timestamp"}}, {"%s::text", []string{"timestamptz"}},
		{"%s::text", []string{"interval"}}, {"%s::text", []string{"bool"}}, {"(%s || %s)", []string{"text", "int4"}}, {"replace(%s, 'b', 'xy')", []string{"text"}},
		{"to_char(%s, 'YYYY-MM-DD HH24:MI:SS')", []string{"timestamp"}}, {"initcap(%s)", []string{"text"}},
		{"split_part(%s, 'b', 2)", []string{"text"}}, {"translate(%s, 'abc', 'X')", []string{"text"}}, {"overlay(%s placing 'zz' from 2 for 1)", []string{"text"}},
		{"ltrim(%s, ' 1')", []string{"text"}}, {"rtrim(%s, 'c ')", []string{"text"}}, {"repeat(%s, 3)", []string{"text"}}, {"to_hex(%s)", []string{"int8"}},
		{"quote_literal(%s)", []string{"text"}}, {"rpad(%s, 5, 'ab')", []string{"text"}}, {"right(%s, -1)", []string{"text"}}, {"chr(65 + abs(%s %% 26))", []string{"int4"}},
		{"to_char(%s, 'FMDay, DD Mon YYYY')", []string{"date"}}, {"to_char(%s, 'HH12:MI:SS.MS AM')", []string{"timestamp"}}, {"to_char(%s, 'FM999,999.000')", []string{"numeric"}},
		{"to_char(%s, 'HH24:MI:SS')", []string{"interval"}}, {"to_char(%s, '9.99EEEE')", []string{"float8"}}, {"concat_ws(',', %s, %s)", []string{"text", "int4"}},
		{"format('%%s|%%L', %s, %s)", []string{"text", "text"}}, {"starts_with(%s, 'a')::text", []string{"text"}}, {"to_char(%s, 'YYYY-MM-DD\"T\"HH24:MI:SSOF')", []string{"timestamptz"}}},
	"date": {{"(%s + %s)", []string{"date", "int4"}}, {"(%s - %s)", []string{"date", "int4"}}, {"%s::date", []string{"timestamp"}}, {"%s::date", []string{"timestamptz"}},
		{"%s::date", []string{"text"}}, {"make_date(2024, 2, 29)", nil}, {"date_trunc('quarter', %s)::date", []string{"date"}},
		{"(%s + %s)", []string{"int4", "date"}}, {"make_date(%s, 1, 31)", []string{"int4"}}},
	"timestamp": {{"(%s + %s)", []string{"timestamp", "interval"}}, {"(%s - %s)", []string{"timestamp", "interval"}}, {"(%s + %s)", []string{"date", "interval"}},
		{"%s::timestamp", []string{"date"}}, {"%s::timestamp", []string{"timestamptz"}}, {"date_trunc('month', %s)", []string{"timestamp"}},
		{"date_trunc('week', %s)", []string{"timestamp"}}, {"%s::timestamp(0)", []string{"timestamp"}},
		{"(%s + %s)", []string{"interval", "timestamp"}}, {"make_timestamp(2024, 2, 29, 12, 30, %s)", []string{"float8"}},
		{"date_trunc('quarter', %s)", []string{"timestamp"}}, {"(%s + time '23:59:59.5')", []string{"date"}}, {"(%s - %s)", []string{"date", "interval"}}},
	"timestamptz": {{"(%s + %s)", []string{"timestamptz", "interval"}}, {"(%s - %s)", []string{"timestamptz", "interval"}}, {"%s::timestamptz", []string{"timestamp"}},
		{"%s::timestamptz", []string{"date"}}, {"date_trunc('day', %s)", []string{"timestamptz"}}},
	"interval": {{"(%s + %s)", []string{"interval", "interval"}}, {"(%s - %s)", []string{"interval", "interval"}}, {"(- %s)", []string{"interval"}},
		{"(%s * %s)", []string{"interval", "float8"}}, {"(%s / %s)", []string{"interval", "float8"}}, {"(%s - %s)", []string{"timestamp", "timestamp"}},
		{"(%s - %s)", []string{"timestamptz", "timestamptz"}}, {"justify_days(%s)", []string{"interval"}}, {"justify_hours(%s)", []string{"interval"}},
		{"justify_interval(%s)", []string{"interval"}}, {"(%s * %s)", []string{"interval", "int4"}}, {"age(%s, %s)", []string{"timestamp", "timestamp"}},
		{"(%s * %s)", []string{"int4", "interval"}}, {"(%s * %s)", []string{"float8", "interval"}}, {"(time '12:34:56' - time '01:02:03.5') * %s", []string{"int2"}},
		{"make_interval(0, 1, 0, %s)", []string{"int4"}}, {"date_trunc('hour', %s)", []string{"interval"}}},
	"bool": {{"(%s = %s)", []string{"int4", "int8"}}, {"(%s < %s)", []string{"numeric", "float8"}}, {"(%s >= %s)", []string{"float8", "float8"}},
		{"(%s <> %s)", []string{"text", "text"}}, {"(%s < %s)", []string{"text", "text"}}, {"(%s = %s)", []string{"date", "timestamp"}},
		{"(%s < %s)", []string{"timestamp", "timestamptz"}}, {"(%s = %s)", []string{"interval", "interval"}}, {"(%s > %s)", []string{"interval", "interval"}},
		{"(%s IS DISTINCT FROM %s)", []string{"numeric", "numeric"}}, {"(%s IS NULL)", []string{"float8"}}, {"(%s AND %s)", []string{"bool", "bool"}},
		{"(%s OR %s)", []string{"bool", "bool"}}, {"(NOT %s)", []string{"bool"}}, {"(%s BETWEEN %s AND %s)", []string{"int4", "int2", "int8"}},
		{"(%s LIKE %s)", []string{"text", "text"}}, {"(%s = %s)", []string{"numeric", "numeric"}}, {"(%s < %s)", []string{"date", "date"}}},
}

// ExprGen generates expressions and queries from a seed.
type ExprGen struct {
	r *rand.Rand
}

// NewExprGen returns a generator seeded with seed.
func NewExprGen(seed uint64) *ExprGen {
	return &ExprGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Expr returns an expression of type typ; cols lets leaves be ex's
// columns.
func (g *ExprGen) Expr(typ string, depth int, cols bool) string {
	if depth <= 0 || g.r.IntN(4) == 0 {
		if cols && g.r.IntN(2) == 0 {
			return exprColumn[typ]
		}
		lits := exprLiterals[typ]
		return lits[g.r.IntN(len(lits))]
	}
	switch g.r.IntN(12) {
	case 0:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.Expr("bool", depth-1, cols), g.Expr(typ, depth-1, cols), g.Expr(typ, depth-1, cols))
	case 1:
		return fmt.Sprintf("COALESCE(%s, %s)", g.Expr(typ, depth-1, cols), g.Expr(typ, depth-1, cols))
	case 2:
		if typ != "bool" {
			return fmt.Sprintf("%s(%s, %s)", []string{"GREATEST", "LEAST", "NULLIF"}[g.r.IntN(3)], g.Expr(typ, depth-1, cols), g.Expr(typ, depth-1, cols))
		}
	}
	ops := exprOps[typ]
	op := ops[g.r.IntN(len(ops))]
	args := make([]any, len(op.args))
	for i, t := range op.args {
		args[i] = g.Expr(t, depth-1, cols)
	}
	return fmt.Sprintf(op.format, args...)
}

// Query returns a query over expressions: constants alone, or over ex's
// rows; through a subquery in FROM (which the flat planner leaves to
// sql/exec) or not. Every query orders its rows fully.
func (g *ExprGen) Query() string {
	n := 1 + g.r.IntN(3)
	cols := g.r.IntN(3) != 0
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("%s AS c%d", g.Expr(exprTypes[g.r.IntN(len(exprTypes))], 1+g.r.IntN(3), cols), i)
	}
	sel := strings.Join(items, ", ")
	sub := g.r.IntN(2) == 0
	switch {
	case !cols && !sub:
		return "SELECT " + sel
	case !cols:
		return "SELECT " + sel + " FROM (VALUES (1)) v(x)"
	case !sub:
		return "SELECT id, " + sel + " FROM ex ORDER BY id"
	default:
		return "SELECT id, " + sel + " FROM (SELECT * FROM ex WHERE id > 0) s ORDER BY id"
	}
}

// CompareStrict compares sql's answers in text and binary format and,
// beyond Compare, calls it wrong when both fail with different SQLSTATEs
// and the sidecar's is not a refusal.
func CompareStrict(ctx context.Context, pgs, scs *Session, sql string, timeout time.Duration) Outcome {
	st := NewStatement(sql)
	for _, format := range []int16{0, 1} {
		want := pgs.Run(ctx, sql, format, timeout)
		got := scs.Run(ctx, sql, format, timeout)
		o := classifyAnswers(st, want, got)
		if o.Class == PGError {
			wc, wm := sqlState(want.err)
			gc, gm := sqlState(got.err)
			if wc != gc && !strings.HasPrefix(gc, "0A") && !strings.HasPrefix(gc, "42") && !strings.HasPrefix(gc, "53") && gc != "57014" {
				return Outcome{Class: ErrorMismatch, Code: gc, Message: fmt.Sprintf("PostgreSQL %s %s; sidecar %s %s", wc, wm, gc, gm)}
			}
		}
		if o.Class != Identical {
			if format == 1 && o.Class != Refused {
				o.Message = "binary format: " + o.Message
			}
			return o
		}
	}
	return Outcome{Class: Identical}
}
