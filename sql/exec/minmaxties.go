package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// min and max keep one of the values that compare equal to the extreme,
// and some equal values print differently: 0 and -0 (float), 1.0 and
// 1.00 (numeric), '1 day' and '24 hours' (interval), 'a' and 'a  '
// (character). PostgreSQL's transition functions keep the later of two
// equal values (float8smaller, numeric_smaller, interval_smaller: "a < b
// ? a : b"), except character's, which keeps the earlier (bpchar_smaller:
// "cmp <= 0 ? a : b"); so its answer is the last (or first) such value
// in the order its plan reads the rows, which the sidecar does not
// share: `SELECT min(v) FROM (VALUES (1.00), (1.0))` answered 1.00 where
// PostgreSQL answers 1.0, and over a table either could be right. A
// state that saw such a tie keeps PostgreSQL's choice and answers it
// when the rows arrive in PostgreSQL's order (VALUES, set-returning
// functions: markInputOrder), and refuses (0A000) otherwise.

// tie takes v, equal to the current extreme m.v.
func (m *minMaxAgg) tie(v types.Value) {
	if !sameValue(m.t, m.v, v) {
		m.mixed = true
	}
	if m.t != plan.Bpchar {
		m.v = v // the later of equal values, as PostgreSQL's *smaller/*larger
	}
}

func (m *minMaxAgg) inputOrdered() { m.inOrder = true }

// minMaxUndetermined refuses a min/max whose value PostgreSQL's read
// order decides.
func minMaxUndetermined(max bool) error {
	name := "min"
	if max {
		name = "max"
	}
	return &types.Error{Code: types.CodeUnsupported,
		Message: "not supported yet: " + name + " choosing among values that compare equal but print differently (0 and -0, 1.0 and 1.00, '1 day' and '24 hours'): PostgreSQL's read order decides which"}
}

// inFrameOrder marks a window's min/max states as fed in PostgreSQL's
// order: a frame's rows arrive in the window's ORDER BY order, whose
// ties the window operator judges itself.
func inFrameOrder(init func() aggState) func() aggState {
	return func() aggState {
		st := init()
		if m, ok := st.(*minMaxAgg); ok {
			m.inOrder = true
		}
		return st
	}
}
