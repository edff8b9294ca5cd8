package sqlfront

import (
	"strings"
	"testing"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// TestCatalogRowTests: the conjuncts a catalog row is dropped on are
// only those decidable exactly on its text; constants PostgreSQL would
// change on the way (a name or "char" truncating, a negative integer
// cast to oid) decide nothing.
func TestCatalogRowTests(t *testing.T) {
	rel := catalogDef("pg_catalog", "pg_class")
	ord := func(name string) int {
		for i, c := range rel.cols {
			if c.name == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return 0
	}
	ords := map[lplan.ColumnID]int{1: ord("relname"), 2: ord("relkind"), 3: ord("relnatts"), 4: ord("oid"), 5: ord("relispartition")}
	col := func(id lplan.ColumnID) *lplan.ColRef { return &lplan.ColRef{ID: id, T: rel.cols[ords[id]].typ} }
	konst := func(oid lplan.OID, text string) lplan.Scalar { return &lplan.Const{T: lplan.T(oid), Text: text} }
	cast := func(x lplan.Scalar, oid lplan.OID) lplan.Scalar { return &lplan.Cast{Arg: x, T: lplan.T(oid)} }
	row := make([]*string, len(rel.cols))
	row[ord("relname")], row[ord("relkind")], row[ord("relnatts")], row[ord("oid")], row[ord("relispartition")] = sv("items"), sv("r"), sv("3"), sv("16390"), sv("f")
	for _, c := range []struct {
		name    string
		x       lplan.Scalar
		decided bool
		drops   bool
	}{
		{"relkind = 'i'", &lplan.Op{Op: "=", Args: []lplan.Scalar{col(2), konst(oidCharType, "i")}}, true, true},
		{"relkind = 'r'", &lplan.Op{Op: "=", Args: []lplan.Scalar{col(2), konst(oidCharType, "r")}}, true, false},
		{"relkind = 'ri'::char", &lplan.Op{Op: "=", Args: []lplan.Scalar{col(2), cast(konst(oidText, "ri"), oidCharType)}}, false, false},
		{"relname = 'items'", &lplan.Op{Op: "=", Args: []lplan.Scalar{col(1), cast(konst(oidText, "items"), oidName)}}, true, false},
		{"relname <> 'items'", &lplan.Op{Op: "<>", Args: []lplan.Scalar{col(1), konst(oidName, "items")}}, true, true},
		{"relname = long", &lplan.Op{Op: "=", Args: []lplan.Scalar{col(1), cast(konst(oidText, "items"+strings.Repeat("x", 70)), oidName)}}, false, false},
		{"relname < 'a'", &lplan.Op{Op: "<", Args: []lplan.Scalar{col(1), konst(oidName, "a")}}, false, false},
		{"relnatts > 3", &lplan.Op{Op: ">", Args: []lplan.Scalar{cast(col(3), oidInt4), konst(oidInt4, "3")}}, true, true},
		{"3 < relnatts", &lplan.Op{Op: "<", Args: []lplan.Scalar{konst(oidInt4, "3"), col(3)}}, true, true},
		{"relnatts >= 3", &lplan.Op{Op: ">=", Args: []lplan.Scalar{col(3), konst(oidInt2, "3")}}, true, false},
		{"oid = 16390", &lplan.Op{Op: "=", Args: []lplan.Scalar{col(4), cast(konst(oidInt4, "16390"), oidOID)}}, true, false},
		{"oid <> -1::oid", &lplan.Op{Op: "<>", Args: []lplan.Scalar{col(4), cast(konst(oidInt4, "-1"), oidOID)}}, false, false},
		{"relispartition", col(5), true, true},
		{"NOT relispartition", &lplan.BoolOp{Op: "NOT", Args: []lplan.Scalar{col(5)}}, true, false},
		{"relname IS NULL", &lplan.IsNull{Arg: col(1)}, true, true},
		// IN lists of constants (a row none of them names is dropped).
		{"relname IN ('a', 'items')", &lplan.InList{Arg: col(1), List: []lplan.Scalar{konst(oidName, "a"), konst(oidName, "items")}}, true, false},
		{"relname IN ('a', 'b')", &lplan.InList{Arg: col(1), List: []lplan.Scalar{konst(oidName, "a"), cast(konst(oidText, "b"), oidName)}}, true, true},
		{"relnatts IN (1, 3)", &lplan.InList{Arg: col(3), List: []lplan.Scalar{konst(oidInt2, "1"), konst(oidInt4, "3")}}, true, false},
		{"oid IN (1, 2)", &lplan.InList{Arg: col(4), List: []lplan.Scalar{cast(konst(oidInt4, "1"), oidOID), cast(konst(oidInt4, "2"), oidOID)}}, true, true},
		{"relname NOT IN ('a')", &lplan.InList{Arg: col(1), List: []lplan.Scalar{konst(oidName, "a")}, Not: true}, false, false},
		{"relkind IN ('v', 'ri'::char)", &lplan.InList{Arg: col(2), List: []lplan.Scalar{konst(oidCharType, "v"), cast(konst(oidText, "ri"), oidCharType)}}, false, false},
		{"relname IN (long)", &lplan.InList{Arg: col(1), List: []lplan.Scalar{cast(konst(oidText, "items"+strings.Repeat("x", 70)), oidName)}}, false, false},
	} {
		rt, ok := decidable(c.x, ords, rel)
		if ok != c.decided || ok && rt.rejects(row) != c.drops {
			t.Errorf("%s: decided %v (want %v), drops %v (want %v)", c.name, ok, c.decided, ok && rt.rejects(row), c.drops)
		}
	}
	// An unknown value decides nothing.
	row[ord("relkind")] = pgUnknown
	if rt, ok := decidable(&lplan.Op{Op: "=", Args: []lplan.Scalar{col(2), konst(oidCharType, "i")}}, ords, rel); !ok || rt.rejects(row) {
		t.Error("an unknown relkind dropped the row")
	}
}
