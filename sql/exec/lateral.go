package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// lateralOp is a dependent join (FROM a, LATERAL (subquery), a function
// in FROM reading a's columns, [LEFT] JOIN LATERAL … ON): the right side
// runs once per left row with the left columns it reads
// bound to that row's values, and its rows are paired with the row as
// they come (nothing is held beyond one right batch). Cancel and
// statement_timeout are checked per left row.
type lateralOp struct {
	e           *env
	j           *plan.LateralJoin
	left, right operator
	outerIdx    []int // positions of j.Outer in left's batches
}

func (e *env) buildLateral(j *plan.LateralJoin) (operator, error) {
	left, err := e.build(j.Left)
	if err != nil {
		return nil, err
	}
	ll := layoutOf(left.cols())
	op := &lateralOp{e: e, j: j, left: left}
	for _, id := range j.Outer {
		i, ok := ll[id]
		if !ok {
			return nil, unsupported("this LATERAL subquery")
		}
		op.outerIdx = append(op.outerIdx, i)
	}
	saved := e.outerOK
	e.outerOK = map[plan.ColumnID]bool{}
	for id := range saved {
		e.outerOK[id] = true
	}
	for _, id := range j.Outer {
		e.outerOK[id] = true
	}
	op.right, err = e.build(j.Right)
	e.outerOK = saved
	if err != nil {
		return nil, err
	}
	return op, nil
}

func (l *lateralOp) cols() []plan.ColumnID {
	return append(append([]plan.ColumnID(nil), l.left.cols()...), l.right.cols()...)
}

func (l *lateralOp) run(emit func(*Batch) error) error {
	e := l.e
	nl, nr := len(l.left.cols()), len(l.right.cols())
	// unmatched collects LEFT JOIN LATERAL's left rows the right side
	// gave no row for, NULL-extended, a batch at a time.
	var unmatched *Batch
	flush := func() error {
		if unmatched == nil || unmatched.N == 0 {
			return nil
		}
		b := unmatched
		unmatched = nil
		return emit(b)
	}
	err := l.left.run(func(lb *Batch) error {
		for i := 0; i < lb.N; i++ {
			if err := e.check(); err != nil {
				return err
			}
			prev := make([]types.Value, len(l.j.Outer))
			for k, id := range l.j.Outer {
				prev[k] = e.outer[id]
				e.outer[id] = lb.Vecs[l.outerIdx[k]][i]
			}
			matched := false
			err := l.right.run(func(rb *Batch) error {
				if rb.N == 0 {
					return nil
				}
				matched = true
				if err := flush(); err != nil { // left's order kept
					return err
				}
				out := &Batch{N: rb.N, Vecs: make([][]types.Value, nl+len(rb.Vecs))}
				for c := 0; c < nl; c++ {
					v := make([]types.Value, rb.N)
					for r := range v {
						v[r] = lb.Vecs[c][i]
					}
					out.Vecs[c] = v
				}
				copy(out.Vecs[nl:], rb.Vecs)
				return emit(out)
			})
			for k, id := range l.j.Outer {
				e.outer[id] = prev[k]
			}
			if err != nil {
				return err
			}
			if matched || !l.j.LeftOuter {
				continue
			}
			if unmatched == nil {
				unmatched = &Batch{Vecs: make([][]types.Value, nl+nr)}
			}
			for c := 0; c < nl+nr; c++ {
				var v types.Value
				if c < nl {
					v = lb.Vecs[c][i]
				}
				unmatched.Vecs[c] = append(unmatched.Vecs[c], v)
			}
			if unmatched.N++; unmatched.N == BatchSize {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
