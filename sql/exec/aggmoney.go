package exec

import (
	"math"
	"math/big"

	"github.com/sidecar-dev/sidecar/types"
)

// moneySumAgg is sum(money): cash_pl over the rows, "money out of
// range" when a running sum leaves int64. Which running sums PostgreSQL
// computes depends on its order of rows, which may differ from the
// executor's, so the positive and the negative amounts are summed apart:
// when neither sum leaves int64 no order overflows and the total is the
// answer; when the total itself does, every order overflows (22003);
// between the two the answer depends on the order, and the aggregate is
// refused (0A000) rather than answered either way.
type moneySumAgg struct {
	pos, neg big.Int // the positive and the negative amounts' sums
	n        int64
	fast     [2]int64 // pos, neg while they fit (spilled: big)
	spilled  bool
}

func (s *moneySumAgg) add(v types.Value) error {
	x := int64(v.(types.MoneyVal))
	s.n++
	if !s.spilled {
		if x >= 0 && s.fast[0] <= math.MaxInt64-x {
			s.fast[0] += x
			return nil
		}
		if x < 0 && s.fast[1] >= math.MinInt64-x {
			s.fast[1] += x
			return nil
		}
		s.spilled = true
		s.pos.SetInt64(s.fast[0])
		s.neg.SetInt64(s.fast[1])
	}
	if x >= 0 {
		s.pos.Add(&s.pos, big.NewInt(x))
	} else {
		s.neg.Add(&s.neg, big.NewInt(x))
	}
	return nil
}

func (s *moneySumAgg) result() (types.Value, error) {
	if s.n == 0 {
		return nil, nil
	}
	if !s.spilled {
		return types.MoneyVal(s.fast[0] + s.fast[1]), nil
	}
	total := new(big.Int).Add(&s.pos, &s.neg)
	if !total.IsInt64() {
		return nil, &types.Error{Code: types.CodeOutOfRange, Message: "money out of range"}
	}
	return nil, unsupported("sum(money) whose running sum overflows in some order of the rows and not in others")
}
