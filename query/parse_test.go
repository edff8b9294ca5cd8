package query

import (
	"errors"
	"strings"
	"testing"
)

func TestParseExpr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"score > 10", "score > '10'"},
		{"a = 1 AND b <> 'x''y' OR NOT c IS NULL", "((a = '1' AND b <> 'x''y') OR NOT c IS NULL)"},
		{"(a = 1 OR b = 2) AND c != -3", "((a = '1' OR b = '2') AND c <> '-3')"},
		{"k LIKE 'ab%' AND g BETWEEN 1 AND 5 AND h NOT IN (1, 'two')", "(k LIKE 'ab%' AND g BETWEEN '1' AND '5' AND NOT h IN ('1', 'two'))"},
		{"sum(score) > 0 and count(*) >= 2", "(sum(score) > '0' AND count(*) >= '2')"},
		{"f = NaN or x is not null", "(f = 'NaN' OR x IS NOT NULL)"},
	} {
		e, err := ParseExpr(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := e.String(); got != c.want {
			t.Errorf("%s: got %s want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "a =", "a = 1 AND", "(a = 1", "a ~ 1", "'x' = 1", "a IN (1", "a BETWEEN 1", "a = 1 b", "a = 'open"} {
		if _, err := ParseExpr(bad); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%q: got %v, want a bad-query error", bad, err)
		}
	}
}

func TestBindErrors(t *testing.T) {
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Aggs: []Agg{{Func: "sum", Col: "nope"}}}, `no column "nope"`},
		{Request{Aggs: []Agg{{Func: "sum", Col: "t"}}}, "sum(text) does not exist"},
		{Request{Aggs: []Agg{{Func: "min", Col: "bl"}}}, "min(boolean) does not exist"},
		{Request{Aggs: []Agg{{Func: "median", Col: "a"}}}, "unknown aggregate"},
		{Request{Aggs: []Agg{{Func: "count"}}, Where: &Expr{Op: "=", Col: "a", Values: []string{"x"}}}, `"x" is not an integer`},
		{Request{Aggs: []Agg{{Func: "count"}}, Where: &Expr{Op: "like", Col: "t", Values: []string{"a%b"}}}, "literal prefix"},
		{Request{Aggs: []Agg{{Func: "count"}}, Having: &Expr{Op: ">", Col: "sum(a)", Values: []string{"1"}}}, `no output column "sum(a)"`},
		{Request{Aggs: []Agg{{Func: "count"}}, OrderBy: []Order{{Key: "a"}}}, `no output column "a"`},
		{Request{}, "nothing to compute"},
	} {
		_, err := Bind(c.req, modelSchema)
		if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.req, err, c.want)
		}
	}
}
