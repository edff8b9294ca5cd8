package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
)

// Partial aggregation through projections and filters. A hash
// aggregation reads its scan through a chain of Project and Filter
// operators whenever it groups by an expression (GROUP BY
// extract(year FROM d), date_trunc('day', ts)) or reads a subquery in
// FROM or a view: the projection computes the key. The aggregation still
// aggregates in the scan's workers (aggpartial.go) when every expression
// of the chain is safe off the statement's goroutine (workerSafe): each
// worker compiles the chain again and runs it on its batches (the same
// batches, so the same rows, values and errors as the operators give)
// before aggregating them. A batch the worker hands on (it holds
// partialGroups groups and the batch has a row of another) is handed on
// as the scan gave it: the chain's operators on the statement's
// goroutine compute it again, as they do every batch the workers leave.

// pipeStep is one operator of the chain, bottom up: a filter (pred) or
// a projection (exprs), over input columns lay.
type pipeStep struct {
	lay   layout
	pred  plan.Scalar
	exprs []plan.Scalar
}

// workerStep is a pipeStep compiled for one worker.
type workerStep struct {
	pred  vexpr
	exprs []vexpr
}

// partialInput finds the scan under in through projections and filters
// whose expressions are safe on a worker: the scan and the chain's steps
// bottom up (none when in is the scan; s nil when there is no such
// scan).
func partialInput(in operator) (s *scanOp, steps []pipeStep) {
	for {
		switch x := in.(type) {
		case *scanOp:
			slices.Reverse(steps)
			return x, steps
		case *filterOp:
			lay := layoutOf(x.in.cols())
			if x.src == nil || !workerSafe(x.src, lay) {
				return nil, nil
			}
			steps = append(steps, pipeStep{lay: lay, pred: x.src})
			in = x.in
		case *projectOp:
			lay := layoutOf(x.in.cols())
			for _, e := range x.src {
				if !workerSafe(e, lay) {
					return nil, nil
				}
			}
			steps = append(steps, pipeStep{lay: lay, exprs: x.src})
			in = x.in
		default:
			return nil, nil
		}
	}
}

// workerSafe says whether x may be evaluated on a scan's worker
// goroutine: it reads only columns of lay (no outer column), calls no
// subquery, and only immutable library functions.
func workerSafe(x plan.Scalar, lay layout) bool {
	if x == nil {
		return true
	}
	ok := true
	plan.Walk(x, func(y plan.Scalar) bool {
		switch y := y.(type) {
		case *plan.Subquery:
			ok = false
		case *plan.Func:
			ok = ok && y.Ext == nil && (y.Call == nil || y.Call.Func.Volatility == builtin.Immutable)
		case *plan.ColRef:
			_, in := lay[y.ID]
			ok = ok && in
		}
		return ok
	})
	return ok
}

// compilePipe compiles steps for one worker.
func compilePipe(e *env, steps []pipeStep) ([]workerStep, error) {
	out := make([]workerStep, len(steps))
	for k, st := range steps {
		c := &compiler{e: e, lay: st.lay}
		if st.pred != nil {
			f, err := c.quals(st.pred) // qualorder.go, as newFilter
			if err != nil {
				return nil, err
			}
			out[k].pred = f
			continue
		}
		for _, x := range st.exprs {
			f, err := c.compile(x)
			if err != nil {
				return nil, err
			}
			out[k].exprs = append(out[k].exprs, f)
		}
	}
	return out, nil
}

// runPipe runs the worker's chain over b: the batch the aggregation
// reads (b itself when there is no chain; a batch of no rows when a
// filter keeps none). b is left as it is.
func runPipe(pipe []workerStep, b *Batch) (*Batch, error) {
	out := b
	for _, st := range pipe {
		var err error
		if st.pred != nil {
			out.boxSmall(allRows(out.N)) // the filter reads Vecs
			if out, err = filterBatch(out, st.pred); err != nil {
				return nil, err
			}
		} else {
			out.boxSmall(allRows(out.N))
			if out, err = projectBatch(out, st.exprs); err != nil {
				return nil, err
			}
		}
		if out.N == 0 {
			return out, nil
		}
	}
	return out, nil
}
