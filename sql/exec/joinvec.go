package exec

import "github.com/sidecar-dev/sidecar/sql/plan"

// Typed vectors through hash joins' probe sides (typedvec.go is the
// scan-to-partial-aggregation case). A hash aggregation reading a join
// — TPC-H Q3, Q5, Q18, Q19: sum(l_extendedprice * (1 - l_discount)) over
// lineitem joined to other tables — reads the probe side's numeric
// columns through its small path (int64 digits at a scale) only. Such a
// column is asked of the scan at the bottom of the joins' probe sides
// typed (ScanRequest.Small: the pages' scaled integers, no
// *types.Decimal per row), and each join on the way hands it on typed:
// joinOut.flush gathers the typed rows of the left columns it emits
// (gatherSmall) as it gathers their Vecs.
//
// A column is typed only where nothing on the way reads its Vecs: not a
// join key (keysOf, the key filter), not read by a join's residual
// condition, not by the scan's filter, not by a grouping key, FILTER or
// other aggregate argument (aggOp.smallOnly). A join that holds its
// left rows (a semi/anti join built on its left side, a side kept for a
// correlated subquery) passes nothing typed; a join that spills boxes
// the left batches it writes (joinspill.go). Where the aggregation's
// small path cannot compute a row (NULL, NaN, overflow) it boxes the
// typed operands first (evalArg → boxSmall), so every value read is the
// boxed scan's.

// typeJoinInput asks the joins under a (its input, when a join) to hand
// a's small-path-only columns typed. Not for an aggregation running in a
// scan's workers (partial: the worker's own typed path).
func (a *aggOp) typeJoinInput() {
	j, ok := a.in.(*joinOp)
	if !ok || a.partial != nil {
		return
	}
	j.passSmall(a.smallOnly(layoutOf(j.cols())))
}

// passSmall marks the left columns behind the output vectors want says
// to pass typed, less those the join reads itself, and asks its left
// input (a join: the same again; a scan: its source) for them.
func (j *joinOp) passSmall(want []bool) {
	if j.buildLeft || j.keep != nil || (j.residual != nil && j.resCols == nil) {
		return
	}
	switch j.kind {
	case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
	default:
		return
	}
	lcols := j.left.cols()
	lwant := make([]bool, len(lcols))
	any := false
	for k, c := range j.outL {
		if k < len(want) && want[k] {
			lwant[c], any = true, true
		}
	}
	lay := layoutOf(lcols)
	for _, id := range j.lkeyCols {
		idx, ok := lay[id]
		if !ok {
			return // a key expression: its columns are not known here
		}
		lwant[idx] = false
	}
	if j.resCols != nil {
		for c := range lcols {
			if j.resCols[c] {
				lwant[c] = false
			}
		}
	}
	if !any {
		return
	}
	switch l := j.left.(type) {
	case *joinOp:
		l.passSmall(lwant)
	case *scanOp:
		l.wantSmall(lwant)
	}
}

// wantSmall sets the vectors the scan asks its source for typed
// (ScanRequest.Small): those of want its filter does not read. Not for
// a scan run again per outer row (its batches are cached), a scan in
// key order or one read by a partial aggregation.
func (s *scanOp) wantSmall(want []bool) {
	if s.repeat || s.partial != nil || s.s.Order != plan.NoKeyOrder {
		return
	}
	small := append([]bool(nil), want...)
	lay := layoutOf(s.s.Cols)
	for _, id := range plan.ColumnsOf(s.s.Filter).Sorted() {
		if idx, ok := lay[id]; ok && idx < len(small) {
			small[idx] = false
		}
	}
	for c, id := range s.s.Cols {
		if c < len(small) && small[c] && !smallType(s.e.md.Column(id).Type.OID) {
			small[c] = false
		}
	}
	for _, x := range small {
		if x {
			s.small = small
			return
		}
	}
}

// gatherSmall gives out (the rows pl of b, in joinOut.flush) the typed
// vectors of b's left columns outL: row k of the output is row pl[k].
func gatherSmall(out, b *Batch, outL []int, pl []int) {
	if b == nil || len(b.Small) == 0 {
		return
	}
	for k, c := range outL {
		sv := smallRead(b, c)
		if sv == nil {
			continue
		}
		if out.Small == nil {
			out.Small = make([]*SmallVec, len(out.Vecs))
		}
		o := &SmallVec{X: make([]int64, len(pl)), Scale: make([]int32, len(pl)), OK: make([]bool, len(pl)), Numeric: sv.Numeric}
		for n, i := range pl {
			o.X[n], o.Scale[n], o.OK[n] = sv.X[i], sv.Scale[i], sv.OK[i]
		}
		out.Small[k] = o
	}
}
