package tpch

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteDeterministicAndConsistent checks that the same scale factor
// and seed give the same rows, that the cardinalities follow the
// specification, that every line's supplier is one of its part's four
// suppliers and that orders and lineitem agree on the order keys.
func TestWriteDeterministicAndConsistent(t *testing.T) {
	const sf = 0.002
	gen := func(table string) []string {
		var b bytes.Buffer
		if err := Write(&b, table, sf, 7); err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	}
	sz := SizesFor(sf)
	want := map[string]int{"region": 5, "nation": 25, "part": sz.Part, "supplier": sz.Supplier, "partsupp": 4 * sz.Part, "customer": sz.Customer, "orders": sz.Orders}
	rows := map[string][]string{}
	for _, tb := range Tables {
		rows[tb] = gen(tb)
		if n, ok := want[tb]; ok && len(rows[tb]) != n {
			t.Errorf("%s: %d rows, want %d", tb, len(rows[tb]), n)
		}
		if again := gen(tb); strings.Join(again, "\n") != strings.Join(rows[tb], "\n") {
			t.Errorf("%s: two runs with the same seed differ", tb)
		}
	}
	supp := map[string]bool{}
	for _, r := range rows["partsupp"] {
		f := strings.Split(r, "\t")
		if supp[f[0]+"/"+f[1]] {
			t.Fatalf("partsupp key %s/%s twice", f[0], f[1])
		}
		supp[f[0]+"/"+f[1]] = true
	}
	orderKeys := map[string]bool{}
	for _, r := range rows["orders"] {
		orderKeys[strings.Split(r, "\t")[0]] = true
	}
	if n := len(rows["lineitem"]); n < sz.Orders || n > 7*sz.Orders {
		t.Errorf("lineitem: %d rows for %d orders", n, sz.Orders)
	}
	for _, r := range rows["lineitem"] {
		f := strings.Split(r, "\t")
		if !supp[f[1]+"/"+f[2]] {
			t.Fatalf("line %q: supplier %s is not one of part %s's", r, f[2], f[1])
		}
		if !orderKeys[f[0]] {
			t.Fatalf("line %q: no order %s", r, f[0])
		}
	}
	if len(Queries) != 22 {
		t.Errorf("%d queries, want 22", len(Queries))
	}
}

// TestFoldDates checks the date arithmetic folded into literals.
func TestFoldDates(t *testing.T) {
	for in, want := range map[string]string{
		"x <= date '1998-12-01' - interval '90' day":        "x <= date '1998-09-02'",
		"x < date '1993-07-01' + interval '3' month":        "x < date '1993-10-01'",
		"x < date '1994-01-01' + interval '1' year":         "x < date '1995-01-01'",
		"x between date '1995-01-01' and date '1996-12-31'": "x between date '1995-01-01' and date '1996-12-31'",
	} {
		if got := FoldDates(in); got != want {
			t.Errorf("FoldDates(%q) = %q, want %q", in, got, want)
		}
	}
	for i, q := range Queries {
		if f := FoldDates(q); strings.Contains(f, "interval") {
			t.Errorf("Q%d keeps an interval after folding: %s", i+1, f)
		}
	}
}
