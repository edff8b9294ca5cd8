package exec

import (
	"math"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// TestColCmpShapes: the conjuncts of TPC-H's scans are described as
// comparisons of scaled integers (scan_colcmp.go) with the constant
// folded to the column's terms — a date against date + interval (a
// timestamp at midnight), against a timestamp with a time of day (its
// day, equal counting as less), a numeric against an integer and a
// numeric, column against column, the constant on the left (operator
// flipped) — and the others are not (a float, text, a timestamp
// constant at infinity, a NULL constant).
func TestColCmpShapes(t *testing.T) {
	e := &env{}
	lay := layout{1: 0, 2: 1, 3: 2, 4: 3, 5: 4}
	col := func(id plan.ColumnID, oid plan.OID) *plan.ColRef { return &plan.ColRef{ID: id, T: plan.T(oid)} }
	cst := func(oid plan.OID, text string) *plan.Const { return &plan.Const{T: plan.T(oid), Text: text} }
	cmp := func(op string, l, r plan.Scalar) *plan.Op {
		return &plan.Op{Op: op, Args: []plan.Scalar{l, r}, T: plan.T(plan.Bool)}
	}
	date, num, i4 := col(1, plan.Date), col(2, plan.Numeric), col(3, plan.Int4)
	type want struct {
		col, col2 int
		c         int64
		scale     uint8
	}
	for _, tc := range []struct {
		name string
		cj   plan.Scalar
		want *want
	}{
		{"date < date", cmp("<", date, cst(plan.Date, "1994-01-01")), &want{0, -1, -2191, 0}},
		{"date < timestamp midnight", cmp("<", date, cst(plan.Timestamp, "1995-01-01 00:00:00")), &want{0, -1, -1826, 0}},
		{"date < timestamp noon", cmp("<", date, cst(plan.Timestamp, "1995-01-01 12:00:00")), &want{0, -1, -1826, 0}},
		{"numeric <= numeric", cmp("<=", num, cst(plan.Numeric, "0.07")), &want{1, -1, 7, 2}},
		{"numeric < int", cmp("<", num, cst(plan.Int4, "24")), &want{1, -1, 24, 0}},
		{"int > numeric", cmp(">", i4, cst(plan.Numeric, "10.5")), &want{2, -1, 105, 1}},
		{"const left", cmp(">", cst(plan.Int4, "24"), num), &want{1, -1, 24, 0}},
		{"col col", cmp("<", col(4, plan.Date), col(5, plan.Date)), &want{3, 4, 0, 0}},
		{"float", cmp("<", col(4, plan.Float8), cst(plan.Float8, "1")), nil},
		{"text", cmp("=", col(4, plan.Text), cst(plan.Text, "x")), nil},
		{"infinity", cmp("<", date, cst(plan.Timestamp, "infinity")), nil},
		{"null", cmp("<", num, &plan.Const{T: plan.T(plan.Numeric), Null: true}), nil},
		{"date int", cmp("<", date, cst(plan.Int4, "3")), nil},
	} {
		got := e.colCmp(tc.cj, lay)
		if (got == nil) != (tc.want == nil) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
			continue
		}
		if got == nil {
			continue
		}
		if got.Col != tc.want.col || got.Col2 != tc.want.col2 || got.Const != tc.want.c || got.Scale != tc.want.scale {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// Truth of the masks, the flip, and a time of day.
	noon := e.colCmp(cmp("<", date, cst(plan.Timestamp, "1995-01-01 12:00:00")), lay)
	if h, _ := noon.Holds(-1826, 0, noon.Const, 0); !h {
		t.Error("1995-01-01 < 1995-01-01 12:00 is true")
	}
	ge := e.colCmp(cmp(">=", date, cst(plan.Timestamp, "1995-01-01 12:00:00")), lay)
	if h, _ := ge.Holds(-1826, 0, ge.Const, 0); h {
		t.Error("1995-01-01 >= 1995-01-01 12:00 is false")
	}
	left := e.colCmp(cmp(">", cst(plan.Int4, "24"), num), lay) // num < 24
	for _, c := range []struct {
		v    int64
		s    uint8
		want bool
	}{{2399, 2, true}, {2400, 2, false}, {24, 0, false}, {23, 0, true}, {-5, 1, true}, {math.MaxInt64, 0, false}, {1, 30, true}} {
		h, ok := left.Holds(c.v, c.s, left.Const, left.Scale)
		if c.s == 30 {
			if ok {
				t.Errorf("scale 30 against 0 compared in 64 bits")
			}
			continue
		}
		if !ok || h != c.want {
			t.Errorf("%d/10^%d < 24: got %v (ok %v), want %v", c.v, c.s, h, ok, c.want)
		}
	}
}
