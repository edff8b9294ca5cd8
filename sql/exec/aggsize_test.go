package exec

import (
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/types"
)

// TestStringAggLimit: a string_agg result of 1 GB fails 54000 as
// PostgreSQL's enlargeStringInfo does ("out of memory"; seen on 15 with
// string_agg(repeat('x', 1000), ',') over 1.1M rows); below it,
// answered; within the first delimiter of it, refused (0A000).
func TestStringAggLimit(t *testing.T) {
	code := func(err error) string {
		var te *types.Error
		if errors.As(err, &te) {
			return te.Code
		}
		return ""
	}
	const m = maxAllocSize
	for _, c := range []struct {
		pieces []int64
		first  int64
		want   string
	}{
		{[]int64{m - 1000, 1, 999}, 0, "54000"},
		{[]int64{m - 1000, 1, 998}, 0, ""},
		{[]int64{m - 1000, 1, 998}, 1, "0A000"},
		{[]int64{m + 5}, 0, "54000"},
		{[]int64{100, 1, 100}, 1, ""},
	} {
		if got := code(stringAggLimit(c.pieces, c.first)); got != c.want {
			t.Errorf("pieces %v, first delimiter %d: %q, want %q", c.pieces, c.first, got, c.want)
		}
	}
}
