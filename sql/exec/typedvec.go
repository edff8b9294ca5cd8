package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Typed vectors from the scan to a partial aggregation. A hash
// aggregation reading a scan in the scan's workers (aggpartial.go) reads
// the integer and numeric columns of its sum/avg arguments through the
// small path (aggsmall.go: int64 digits at a scale). When every reader
// of such a column in the aggregation is that path, the scan need not
// box its values: it hands them as a SmallVec (the page's scaled
// integers, never a types.Value), and the column's Vecs slot stays nil
// for those rows. A value the page does not hold as a scaled integer
// (NULL, a numeric exception: NaN, ±Infinity, > 18 digits) is boxed as
// before and marked not OK. A row the small path cannot compute (an
// overflow of int64) is evaluated by the general expression after its
// typed values are boxed (Batch.boxSmall), and a batch the worker hands
// on to the aggregation's goroutine is boxed whole (BoxSmall): whatever
// reads Vecs sees exactly the values the boxed scan gives.

// SmallVec is one vector's values as scaled integers: row i is X[i] at
// Scale[i] when OK[i]; otherwise the vector's Vecs slot holds the value
// (nil: NULL).
type SmallVec struct {
	X     []int64
	Scale []int32
	OK    []bool
	// Numeric: the column is numeric (boxed as *types.Decimal), else an
	// integer (boxed as int64).
	Numeric bool
}

// NewSmallVec is a SmallVec of BatchSize rows.
func NewSmallVec(numeric bool) *SmallVec {
	return &SmallVec{X: make([]int64, BatchSize), Scale: make([]int32, BatchSize), OK: make([]bool, BatchSize), Numeric: numeric}
}

// move copies row i to row n (Compact).
func (sv *SmallVec) move(n, i int) {
	if sv != nil {
		sv.X[n], sv.Scale[n], sv.OK[n] = sv.X[i], sv.Scale[i], sv.OK[i]
	}
}

// box is row i's value as the boxed scan gives it.
func (sv *SmallVec) box(i int) types.Value {
	if sv.Numeric {
		return types.SmallDecimal(sv.X[i], sv.Scale[i])
	}
	return sv.X[i]
}

// boxSmall boxes the typed values of rows into their vectors (rows the
// general expression is about to read).
func (b *Batch) boxSmall(rows []int) {
	for c, sv := range b.Small {
		if sv == nil {
			continue
		}
		vec := b.Vecs[c]
		for _, i := range rows {
			if sv.OK[i] && vec[i] == nil {
				vec[i] = sv.box(i)
			}
		}
	}
}

// BoxSmall boxes every typed value of b and drops b's typed vectors
// (their storage stays in b.Small's capacity for the source to reuse):
// b is then an ordinary batch.
func (b *Batch) BoxSmall() {
	if len(b.Small) == 0 {
		return
	}
	b.boxSmall(allRows(b.N))
	b.Small = b.Small[:0]
}

// smallRead is x's typed vector in b when it is a column b carries so.
func smallRead(b *Batch, idx int) *SmallVec {
	if idx < len(b.Small) {
		return b.Small[idx]
	}
	return nil
}

// SmallCols says, per vector of the scan, whether the aggregation reads
// it only through the small path, so the scan may hand it typed: an
// integer or numeric column read by no grouping key, no FILTER, and no
// aggregate whose argument is not on the small path.
func (p *PartialAgg) SmallCols() []bool {
	return p.small
}

// smallCols computes PartialAgg.small for a over layout lay.
func (a *aggOp) smallOnly(lay layout) []bool {
	n := 0
	for _, idx := range lay {
		n = max(n, idx+1)
	}
	typed, other := make([]bool, n), make([]bool, n)
	for _, g := range a.group {
		if g < n {
			other[g] = true
		}
	}
	mark := func(x plan.Scalar, dst []bool) {
		if x == nil {
			return
		}
		plan.Walk(x, func(y plan.Scalar) bool {
			if r, ok := y.(*plan.ColRef); ok {
				if idx, in := lay[r.ID]; in {
					dst[idx] = true
				}
			}
			return true
		})
	}
	for _, f := range a.aggs {
		mark(f.a.Filter, other)
		for _, x := range f.a.Args {
			if f.small != nil {
				mark(x, typed)
			} else {
				mark(x, other)
			}
		}
	}
	for i := range typed {
		typed[i] = typed[i] && !other[i]
	}
	return typed
}
