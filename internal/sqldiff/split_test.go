package sqldiff

import "testing"

// TestSplit checks the classification and line numbers, the psql
// meta-commands dropped, temporary tables made permanent, and the
// fallback for a script the scanner rejects as a whole.
func TestSplit(t *testing.T) {
	script := "-- header\n\\set x 1\nSELECT 1;\nCREATE TEMP TABLE t (a int);\nSELECT a FROM t ORDER BY a;\n" +
		"SET extra_float_digits = 0;\nBEGIN;\nDROP TABLE t;\nSELECT random() \\gset\nWITH d AS (DELETE FROM t RETURNING a) SELECT * FROM d;\n" +
		"SELECT U&'\\zzzz';\nVALUES (1), (2);\n"
	got, err := Split(script)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line     int
		kind     Kind
		ordered  bool
		volatile bool
		sql      string
	}{
		{3, Query, false, false, "SELECT 1"},
		{4, Setup, false, false, "CREATE TABLE t (a int)"},
		{5, Query, true, false, "SELECT a FROM t ORDER BY a"},
		{6, Set, false, false, "SET extra_float_digits = 0"},
		{7, Skip, false, false, "BEGIN"},
		{8, Skip, false, false, "DROP TABLE t"},
		{9, Query, false, true, "SELECT random()"},
		{10, Setup, false, false, "WITH d AS (DELETE FROM t RETURNING a) SELECT * FROM d"},
		{11, Setup, false, false, "SELECT U&'\\zzzz'"},
		{12, Query, false, false, "VALUES (1), (2)"},
	}
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("%d %s %q", g.Line, g.Kind, g.SQL)
		}
		t.Fatalf("%d statements, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Line != w.line || g.Kind != w.kind || g.Ordered != w.ordered || g.Volatile != w.volatile || g.SQL != w.sql {
			t.Errorf("statement %d: got line %d %s ordered %v volatile %v %q, want line %d %s %v %v %q", i, g.Line, g.Kind, g.Ordered, g.Volatile, g.SQL,
				w.line, w.kind, w.ordered, w.volatile, w.sql)
		}
	}
}

// TestClassifyAnswers checks the outcome classes.
func TestClassifyAnswers(t *testing.T) {
	q := Statement{SQL: "SELECT 1", Kind: Query}
	ord := Statement{SQL: "SELECT 1 ORDER BY 1", Kind: Query, Ordered: true}
	a := func(rows ...string) answer { return answer{cols: []string{"x:23"}, rows: rows} }
	for _, c := range []struct {
		st        Statement
		want, got answer
		class     Class
	}{
		{q, a("1", "2"), a("2", "1"), Identical},
		{ord, a("1", "2"), a("2", "1"), OrderOnly},
		{ord, a("1", "2"), a("1", "3"), Different},
		{q, a("1"), answer{cols: []string{"y:23"}, rows: []string{"1"}}, Columns},
		{q, a("1"), a("1", "1"), Different},
	} {
		if got := classifyAnswers(c.st, c.want, c.got).Class; got != c.class {
			t.Errorf("%v vs %v: %s, want %s", c.want.rows, c.got.rows, got, c.class)
		}
	}
}
