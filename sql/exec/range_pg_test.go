package exec_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// rangeGen generates range expressions of the six built-in range types
// for TestRangeStatementsMatchPostgres.
type rangeGen struct {
	r *rand.Rand
}

type rangeKind struct {
	name, elem string
	vals       []string // element literals (ISO forms the catalog reads)
	ordered    []string // ascending ones, for bounds mostly in order
}

var rangeKinds = []rangeKind{
	{"int4range", "int4", []string{"0", "1", "2", "3", "5", "-1", "-4", "10", "2147483647", "-2147483648"},
		[]string{"-2147483648", "-4", "-1", "0", "1", "2", "3", "5", "10", "2147483646", "2147483647"}},
	{"int8range", "int8", []string{"0", "1", "2", "3", "5", "-1", "-4", "10", "9223372036854775807", "-9223372036854775808"},
		[]string{"-9223372036854775808", "-4", "-1", "0", "1", "2", "3", "5", "10", "9223372036854775807"}},
	{"numrange", "numeric", []string{"0", "1", "1.5", "1.50", "2", "-0.25", "3e2", "NaN", "Infinity", "-Infinity", "10"},
		[]string{"-Infinity", "-0.25", "0", "1", "1.5", "1.50", "2", "10", "3e2", "Infinity", "NaN"}},
	{"daterange", "date", []string{"2020-01-01", "2020-01-02", "2020-01-03", "2020-02-29", "1999-12-31", "infinity", "-infinity", "2020-01-10"},
		[]string{"-infinity", "1999-12-31", "2020-01-01", "2020-01-02", "2020-01-03", "2020-01-10", "2020-02-29", "infinity"}},
	{"tsrange", "timestamp", []string{"2020-01-01 00:00", "2020-01-01 10:00:00.5", "2020-01-02", "2019-12-31 23:59:59.999999", "infinity", "-infinity", "2020-01-01 12:00"},
		[]string{"-infinity", "2019-12-31 23:59:59.999999", "2020-01-01 00:00", "2020-01-01 10:00:00.5", "2020-01-01 12:00", "2020-01-02", "infinity"}},
	{"tstzrange", "timestamptz", []string{"2020-01-01 00:00+00", "2020-01-01 10:00:00.5+02", "2020-01-02 00:00+00", "2020-01-01 12:00-05", "infinity", "-infinity", "2020-01-01 06:00+00"},
		[]string{"-infinity", "2020-01-01 00:00+00", "2020-01-01 06:00+00", "2020-01-01 10:00:00.5+02", "2020-01-01 12:00-05", "2020-01-02 00:00+00", "infinity"}},
}

// lit is a range literal's text of kind k (sometimes malformed).
func (g rangeGen) lit(k rangeKind) string {
	if g.r.IntN(15) == 0 {
		return []string{"empty", "(,)", "[,]", "[1", "x", "(1,2,3)"}[g.r.IntN(6)]
	}
	i, j := g.r.IntN(len(k.ordered)), g.r.IntN(len(k.ordered))
	if g.r.IntN(5) != 0 && i > j {
		i, j = j, i
	}
	ends := []string{k.ordered[i], k.ordered[j]}
	b := func() string {
		if g.r.IntN(6) == 0 {
			ends = ends[1:]
			return ""
		}
		v := ends[0]
		ends = ends[1:]
		if strings.ContainsAny(v, " ") || g.r.IntN(4) == 0 {
			return `"` + v + `"`
		}
		return v
	}
	lo := b()
	return string("[("[g.r.IntN(2)]) + lo + "," + b() + string("])"[g.r.IntN(2)])
}

// elem is an element expression of kind k (typed, or an integer or
// numeric constant PostgreSQL types itself).
func (g rangeGen) elem(k rangeKind) string {
	return g.elemOf(k, k.ordered[g.r.IntN(len(k.ordered))])
}

// elemOf is elem with the value v.
func (g rangeGen) elemOf(k rangeKind, v string) string {
	switch {
	case g.r.IntN(8) == 0:
		return "NULL::" + k.elem
	case k.elem == "int4" && g.r.IntN(2) == 0 && v != "-2147483648":
		return v
	}
	return "'" + v + "'::" + k.elem
}

// expr is a range expression of kind k: a typed literal, a constructor,
// or (untyped: only where the other operand gives it a type) an untyped
// literal.
func (g rangeGen) expr(k rangeKind, untypedOK bool) string {
	switch n := g.r.IntN(10); {
	case n < 4:
		return "'" + g.lit(k) + "'::" + k.name
	case n < 8:
		i, j := g.r.IntN(len(k.ordered)), g.r.IntN(len(k.ordered))
		if g.r.IntN(5) != 0 && i > j {
			i, j = j, i
		}
		args := g.elemOf(k, k.ordered[i]) + ", " + g.elemOf(k, k.ordered[j])
		if g.r.IntN(2) == 0 {
			args += ", '" + []string{"[]", "[)", "(]", "()", "[]", "()", "[", "]["}[g.r.IntN(8)] + "'"
		}
		return k.name + "(" + args + ")"
	case untypedOK:
		return "'" + g.lit(k) + "'"
	}
	return "'empty'::" + k.name
}

// statement is one generated statement.
func (g rangeGen) statement() string {
	k := rangeKinds[g.r.IntN(len(rangeKinds))]
	other := k
	if g.r.IntN(12) == 0 {
		other = rangeKinds[g.r.IntN(len(rangeKinds))] // mismatched types: 42883
	}
	ops := []string{"=", "<>", "<", ">", "<=", ">=", "@>", "<@", "&&", "<<", ">>", "&<", "&>", "-|-", "+", "*", "-"}
	switch g.r.IntN(6) {
	case 0, 1:
		l, r := g.expr(k, false), g.expr(other, true)
		if g.r.IntN(2) == 0 {
			l, r = g.expr(k, true), g.expr(other, false)
		}
		return fmt.Sprintf("SELECT %s %s %s", l, ops[g.r.IntN(len(ops))], r)
	case 2:
		e := g.elem(k)
		if g.r.IntN(8) == 0 {
			e = g.elem(rangeKinds[g.r.IntN(len(rangeKinds))])
		}
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("SELECT %s @> %s", g.expr(k, false), e)
		}
		return fmt.Sprintf("SELECT %s <@ %s", e, g.expr(k, false))
	case 3:
		fns := []string{"lower", "upper", "isempty", "lower_inc", "upper_inc", "lower_inf", "upper_inf"}
		return fmt.Sprintf("SELECT %s(%s)", fns[g.r.IntN(len(fns))], g.expr(k, g.r.IntN(10) == 0))
	case 4:
		return fmt.Sprintf("SELECT range_merge(%s, %s)", g.expr(k, false), g.expr(other, true))
	}
	x, y := g.expr(k, false), g.expr(k, false)
	return fmt.Sprintf("SELECT %s, %s::text, lower(%s * %s), %s -|- %s, %s < %s", x, x, x, y, x, y, x, y)
}

// TestRangeStatementsMatchPostgres (issue 23): generated statements over
// the range types — literals, constructors with and without flags,
// every operator between two ranges and between a range and an element
// (mismatched types, untyped literals resolved as PostgreSQL resolves
// anyrange), the functions — run by sql/exec and by PostgreSQL: the
// same rows, or errors with the same SQLSTATE. A refusal (0A000) is
// counted and bounded.
func TestRangeStatementsMatchPostgres(t *testing.T) {
	ctx := context.Background()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	g := rangeGen{r: rand.New(rand.NewPCG(seed.New(t, seedFlag), 37))}
	var n, errs, refused int
	for range 3000 {
		sql := g.statement()
		want := pgAnswer(ctx, conn, sql)
		got := runSQL(cat, src, sql, 0)
		n++
		if strings.HasPrefix(want, "error ") {
			errs++
		}
		if strings.HasPrefix(got, "error 0A000") && !strings.HasPrefix(want, "error 0A000") {
			refused++
			t.Logf("refused: %s\n  %s", sql, got)
			continue
		}
		if normalize(got) != normalize(want) {
			t.Errorf("%s\nsidecar:\n%s\npostgres:\n%s", sql, got, want)
		}
	}
	t.Logf("%d statements, %d PostgreSQL errors, %d refused", n, errs, refused)
	if errs == 0 || errs == n || refused*20 > n {
		t.Errorf("generator: %d of %d statements failed on PostgreSQL, %d refused", errs, n, refused)
	}
}
