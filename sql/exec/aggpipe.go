package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
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
	// typed, for a projection whose outputs may go typed (typedvec.go;
	// nil: none): per output, the input vector it passes through
	// (ColRef), typedSmall (an expression on the small path), or -1.
	typed []int
}

// typedSmall marks an output computed on the small path (pipeStep.typed).
const typedSmall = -2

// workerStep is a pipeStep compiled for one worker.
type workerStep struct {
	pred  vexpr
	exprs []vexpr
	typed []int
	// small, sa and sv: the small-path form of each typedSmall output,
	// its arguments and its typed vector, reused batch after batch (a
	// batch's are read before the next one comes).
	small []smallExpr
	sa    []smallArgs
	sv    []*SmallVec
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
		ws := &out[k]
		for _, x := range st.exprs {
			f, err := c.compile(x)
			if err != nil {
				return nil, err
			}
			ws.exprs = append(ws.exprs, f)
		}
		if st.typed == nil {
			continue
		}
		ws.typed = st.typed
		ws.small, ws.sa, ws.sv = make([]smallExpr, len(st.exprs)), make([]smallArgs, len(st.exprs)), make([]*SmallVec, len(st.exprs))
		for i, x := range st.exprs {
			if st.typed[i] == typedSmall {
				ws.small[i] = c.small(x, nil) // aggsmall.go: reads typed operands
				ws.sv[i] = NewSmallVec(true)
			}
		}
	}
	return out, nil
}

// pipeSmall marks the projections' outputs of pipe that go typed and is
// the scan's vectors the chain and the aggregation read only so (nil:
// none): want are the aggregation's (smallOnly over the top of the
// chain). Going down the chain, a projection's output the reader above
// wants typed is typed when it passes an integer or numeric input
// through, or is an expression the small path computes (+, -, * over
// such columns and constants, aggsmall.go); an input vector is wanted
// typed when every expression reading it is such an output. A filter
// reads Vecs: nothing below it goes typed.
func pipeSmall(e *env, pipe []pipeStep, want []bool) []bool {
	for k := len(pipe) - 1; k >= 0; k-- {
		st := &pipe[k]
		if st.pred != nil {
			return nil
		}
		n := 0
		for _, idx := range st.lay {
			n = max(n, idx+1)
		}
		typed, other := make([]bool, n), make([]bool, n)
		mark := func(x plan.Scalar, dst []bool) {
			plan.Walk(x, func(y plan.Scalar) bool {
				if r, ok := y.(*plan.ColRef); ok {
					if idx, in := st.lay[r.ID]; in {
						dst[idx] = true
					}
				}
				return true
			})
		}
		st.typed = make([]int, len(st.exprs))
		any := false
		c := &compiler{e: e, lay: st.lay}
		for i, x := range st.exprs {
			st.typed[i] = -1
			if i >= len(want) || !want[i] {
				mark(x, other)
				continue
			}
			if r, ok := x.(*plan.ColRef); ok && smallType(r.T.OID) {
				st.typed[i], any = st.lay[r.ID], true
				typed[st.lay[r.ID]] = true
				continue
			}
			if x.Type().OID == plan.Numeric && c.small(x, nil) != nil {
				st.typed[i], any = typedSmall, true
				mark(x, typed)
				continue
			}
			mark(x, other)
		}
		if !any {
			st.typed = nil
		}
		for i := range typed {
			typed[i] = typed[i] && !other[i]
		}
		want = typed
	}
	return want
}

// projectTyped is projectBatch of a worker's projection step whose
// outputs may go typed: a passed-through vector keeps its typed values,
// an expression on the small path gives them for the rows it computes
// (the general expression the others, their typed operands boxed first).
// On an error the batch is boxed and the projection's first error in
// row order is the one returned, as projectBatch's.
func projectTyped(b *Batch, ws *workerStep) (*Batch, error) {
	out := &Batch{N: b.N, Vecs: make([][]types.Value, len(ws.exprs)), Small: make([]*SmallVec, len(ws.exprs))}
	sel := allRows(b.N)
	fail := func(err error) (*Batch, error) {
		b.boxSmall(sel)
		return nil, rowMajorError(b, ws.exprs, err) // errorder.go
	}
	for k, x := range ws.exprs {
		switch t := ws.typed[k]; {
		case t >= 0:
			out.Vecs[k], out.Small[k] = b.Vecs[t], smallRead(b, t) // read before b is reused
		case t == typedSmall:
			sa, sv := &ws.sa[k], ws.sv[k]
			sa.size(b.N)
			clear(sa.ok)
			ws.small[k](b, sel, sa)
			copy(sv.X, sa.x)
			copy(sv.Scale, sa.scale)
			copy(sv.OK, sa.ok)
			rest := sa.rest[:0]
			for _, i := range sel {
				if !sa.ok[i] {
					rest = append(rest, i)
				}
			}
			sa.rest = rest
			v := make([]types.Value, b.N)
			if len(rest) > 0 {
				b.boxSmall(rest)
				if err := x(b, rest, v); err != nil {
					return fail(err)
				}
			}
			out.Vecs[k], out.Small[k] = v, sv
		default:
			v := make([]types.Value, b.N)
			if err := x(b, sel, v); err != nil {
				return fail(err)
			}
			out.Vecs[k] = v
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
		} else if st.typed != nil {
			if out, err = projectTyped(out, &st); err != nil {
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
