package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A semi or anti join built on its left side (plan.Join.BuildLeft, set
// by sql/opt where the left side is estimated the smaller): the hash
// table holds the left rows, the right side streams through it, each
// right row marking the left rows it matches (key equal, residual true),
// and at the end the left rows marked (semi) or not (anti) are emitted
// in the left side's order. A left row once marked is not checked again,
// so the residual runs at most until a left row's first match. The
// right side's scan gets the left keys' filter (joinfilter.go): TPC-H
// Q21's EXISTS and NOT EXISTS over all of lineitem then hold one
// nation's late lineitems and read only the lineitems of their orders,
// where building on the right held all of lineitem twice.
//
// A left row whose key is NULL matches nothing: an anti join keeps it
// (emitted), a semi join drops it at once. When the left side passes
// the join's share of working memory, nothing has been emitted yet:
// runBuildLeft gives up and the join runs as usual, building (and
// spilling) its right side and running its left side again.

// runBuildLeft runs j with its hash table on left. done=false: the left
// side did not fit, nothing was emitted.
func (j *joinOp) runBuildLeft(left, right operator, emit func(*Batch) error) (done bool, err error) {
	e := j.e
	mem := &memAcct{e: e}
	defer mem.done()
	anti := j.kind == plan.AntiJoin
	ht := &hashTable{h: newValueHasher(), oids: j.keyTypes, cols: make([]chunked, len(left.cols())), keys: make([]chunked, len(j.lkeys))}
	full := &stopSignal{}
	err = left.run(func(b *Batch) error {
		keys, ok, err := keysOf(b, allRows(b.N), j.lkeys, j.lconv)
		if err != nil {
			return err
		}
		if !mem.tryGrowKeeping(ht.bytesOf(b, keys, ok, j.keepL, anti), 0) {
			return full
		}
		ht.add(b, keys, ok, j.keepL, anti)
		return nil
	})
	if isStop(err, full) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	ht.index()
	if ht.n > 0 {
		if s, col, f := j.keyFilterFor(ht, right, j.rkeyCols, mem); f != nil {
			s.keySteps = append(s.keySteps, f.step(col))
			defer func() { s.keySteps = s.keySteps[:len(s.keySteps)-1] }()
		}
		if err := j.probeBuiltLeft(ht, right); err != nil {
			return true, err
		}
	}
	return true, j.emitBuiltLeft(ht, emit)
}

// probeBuiltLeft streams right through ht (the left rows), marking in
// ht.matched the left rows a right row matches.
func (j *joinOp) probeBuiltLeft(ht *hashTable, right operator) error {
	return j.streamBuiltLeft(ht, right, true, func(_ *Batch, l, _ int) error {
		ht.matched[l] = true
		return nil
	}, nil)
}

// streamBuiltLeft streams right through ht (left rows), calling pass
// for each pair of a left row and a row of the right batch b whose keys
// are equal and whose residual holds (a batch of candidate pairs at a
// time), and end (when set) after each right batch. skipMatched: a left
// row marked in ht.matched is not paired again.
func (j *joinOp) streamBuiltLeft(ht *hashTable, right operator, skipMatched bool, pass func(b *Batch, l, r int) error, end func(b *Batch) error) error {
	lw, rw := len(ht.cols), len(right.cols())
	return right.run(func(b *Batch) error {
		if err := j.e.check(); err != nil {
			return err
		}
		keys, ok, err := keysOf(b, allRows(b.N), j.rkeys, j.rconv)
		if err != nil {
			return err
		}
		var pl, pr []int // candidate pairs: left (built) row, right row of b
		process := func() error {
			passed, err := j.checkBuiltLeft(b, ht, pl, pr, lw, rw)
			if err != nil {
				return err
			}
			for k, p := range passed {
				if p {
					if err := pass(b, pl[k], pr[k]); err != nil {
						return err
					}
				}
			}
			pl, pr = pl[:0], pr[:0]
			return nil
		}
		for i := 0; i < b.N; i++ {
			if !ok[i] {
				continue
			}
			h := ht.hashRow(keys, i)
			for r := int(ht.head[h&ht.mask]) - 1; r >= 0; r = int(ht.next[r]) - 1 {
				if (skipMatched && ht.matched[r]) || !ht.sameKeys(r, h, keys, i) {
					continue
				}
				pl, pr = append(pl, r), append(pr, i)
				if len(pl) >= BatchSize {
					if err := process(); err != nil {
						return err
					}
				}
			}
		}
		if err := process(); err != nil {
			return err
		}
		if end != nil {
			return end(b)
		}
		return nil
	})
}

// checkBuiltLeft evaluates the residual over candidate pairs of left
// row pl[k] (in ht) and right row pr[k] (of b).
func (j *joinOp) checkBuiltLeft(b *Batch, ht *hashTable, pl, pr []int, lw, rw int) ([]bool, error) {
	return j.checkPairs(len(pl), lw, rw, func(c, start int, v []types.Value) {
		if c < lw {
			src := ht.cols[c]
			for k := range v {
				v[k] = src.at(pl[start+k])
			}
			return
		}
		src := b.Vecs[c-lw]
		for k := range v {
			v[k] = src[pr[start+k]]
		}
	})
}

// emitBuiltLeft emits, in build order, the left rows a semi join keeps
// (matched) or an anti join keeps (not matched), their columns j.outL.
func (j *joinOp) emitBuiltLeft(ht *hashTable, emit func(*Batch) error) error {
	keep := j.kind == plan.SemiJoin
	rows := make([]int, 0, BatchSize)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		out := &Batch{N: len(rows), Vecs: make([][]types.Value, len(j.outL))}
		for k, c := range j.outL {
			v := make([]types.Value, len(rows))
			src := ht.cols[c]
			for i, r := range rows {
				v[i] = src.at(r)
			}
			out.Vecs[k] = v
		}
		rows = rows[:0]
		return emit(out)
	}
	for r := 0; r < ht.n; r++ {
		if ht.matched[r] != keep {
			continue
		}
		rows = append(rows, r)
		if len(rows) == BatchSize {
			if err := j.e.check(); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
