package exec

import (
	"context"
	"errors"

	"github.com/sidecar-dev/sidecar/types"
)

// rowMajorError is the error PostgreSQL raises for batch b where
// evaluating exprs column by column (each expression over every row,
// then the next) failed with err: PostgreSQL evaluates row by row, each
// row's expressions in order, so the first row that fails, and its
// first failing expression, decide which error the client sees (an
// overflow in row 7 of the first expression against a bad unit in row 1
// of the second: PostgreSQL reports the bad unit). The batch is
// re-evaluated one row at a time, on the error path only; err is
// returned when no single row fails (an error of the batch as a whole)
// or the statement was canceled.
func rowMajorError(b *Batch, exprs []vexpr, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || b.N <= 1 && len(exprs) <= 1 {
		return err
	}
	out := make([]types.Value, b.N)
	sel := make([]int, 1)
	for i := 0; i < b.N; i++ {
		sel[0] = i
		for _, x := range exprs {
			if e := x(b, sel, out); e != nil {
				if errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded) {
					return err
				}
				return e
			}
		}
	}
	return err
}
