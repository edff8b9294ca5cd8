package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Hash joins inside a correlated subquery or a LATERAL's right side run
// once per outer row. A side that reads no outer column gives the same
// rows every time, so its hash table is built once per statement and
// kept (as PostgreSQL's hash join keeps its table on a rescan whose
// parameters do not reach the inner side):
//
//   - the right (build) side reads no outer column: its table is kept,
//     for inner, left, semi and anti joins (right and full joins mark
//     the rows matched, per run);
//   - an inner join whose left side reads no outer column while the
//     right side does (`orders o JOIN lineitem l ON … WHERE o.o_custkey
//     = c.c_custkey`, whichever side the planner put lineitem on): the
//     left side's table is kept and the right side's rows, read per run,
//     probe it. The pairs are the same; only the order they come in
//     differs, which a join never promised.
//
// The kept table is charged to the statement's working memory and
// memory.query until the statement ends; it is kept only while it fits
// half of one operator's share (spillShare). Past that, or when its
// build spills, the join runs as before, building per run.

// joinKeep is a join's kept side.
type joinKeep struct {
	// left: the left side is kept and the right side probes it.
	left bool
	// keepL marks the left columns a kept left table holds (emitted or
	// read by the residual).
	keepL []bool
	ht    *hashTable
	// off: the kept side did not fit; the join runs as usual.
	off bool
}

// keepFor is the side of j (built as op) to keep, nil when none: j runs
// inside a correlated subquery (e.outerOK set) and that side reads no
// outer column.
func (e *env) keepFor(j *plan.Join, op *joinOp) *joinKeep {
	if len(e.outerOK) == 0 || op.buildLeft {
		return nil
	}
	switch j.Kind {
	case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
	default:
		return nil
	}
	if len(e.cteOuterReads(j.Right)) == 0 {
		return &joinKeep{}
	}
	if j.Kind != plan.InnerJoin || len(op.lkeys) == 0 || len(e.cteOuterReads(j.Left)) > 0 {
		return nil
	}
	k := &joinKeep{left: true, keepL: make([]bool, len(op.left.cols()))}
	for _, c := range op.outL {
		k.keepL[c] = true
	}
	if op.residual != nil {
		for c := range k.keepL {
			if op.resCols == nil || op.resCols[c] {
				k.keepL[c] = true
			}
		}
	}
	return k
}

// runKept runs j with its kept side, building it on the first run.
// done=false: the side does not fit (j.keep.off is set, nothing was
// emitted); run the join as usual.
func (j *joinOp) runKept(left, right operator, emit func(*Batch) error) (done bool, err error) {
	k := j.keep
	if k.ht == nil {
		side, keys, conv, keep := right, j.rkeys, j.rconv, j.keepR
		if k.left {
			side, keys, conv, keep = left, j.lkeys, j.lconv, k.keepL
		}
		ht, err := j.buildKept(side, keys, conv, keep)
		if err != nil || ht == nil {
			return err != nil, err
		}
		k.ht = ht
	}
	if !k.left {
		mem := &memAcct{e: j.e}
		defer mem.done()
		return true, j.probe(mem, k.ht, left, emit)
	}
	return true, j.probeKeptLeft(k.ht, right, emit)
}

// buildKept reads side into a hash table held until the statement ends
// (nil: it passed half an operator's share; the memory is given back and
// j.keep is off).
func (j *joinOp) buildKept(side operator, keys []vexpr, conv []conv, keep []bool) (*hashTable, error) {
	e, k := j.e, j.keep
	e.hashBuilds++
	mem := &memAcct{e: e}
	ht := &hashTable{h: newValueHasher(), oids: j.keyTypes, cols: make([]chunked, len(side.cols())), keys: make([]chunked, len(keys))}
	budget := e.spillShare() / 2
	full := &stopSignal{}
	err := side.run(func(b *Batch) error {
		kv, ok, err := keysOf(b, allRows(b.N), keys, conv)
		if err != nil {
			return err
		}
		n := ht.bytesOf(b, kv, ok, keep, false)
		if mem.n+n > budget || !mem.tryGrowKeeping(n, 0) {
			return full
		}
		ht.add(b, kv, ok, keep, false)
		return nil
	})
	if err != nil {
		mem.done()
		if isStop(err, full) {
			k.off = true
			return nil, nil
		}
		return nil, err
	}
	ht.index()
	e.held = append(e.held, mem)
	return ht, nil
}

// probeKeptLeft streams right through ht (the kept left rows), emitting
// each pair whose keys are equal and whose residual holds: the left
// columns j.outL from ht, the right ones j.outR from the right batch.
func (j *joinOp) probeKeptLeft(ht *hashTable, right operator, emit func(*Batch) error) error {
	var ol, or []int // pairs passed, not yet emitted
	flush := func(b *Batch) error {
		for start := 0; start < len(ol); start += BatchSize {
			pl, pr := ol[start:min(start+BatchSize, len(ol))], or[start:min(start+BatchSize, len(or))]
			out := &Batch{N: len(pl), Vecs: make([][]types.Value, len(j.outL)+len(j.outR))}
			for x, c := range j.outL {
				v, src := make([]types.Value, len(pl)), ht.cols[c]
				for i, r := range pl {
					v[i] = src.at(r)
				}
				out.Vecs[x] = v
			}
			for x, c := range j.outR {
				v, src := make([]types.Value, len(pr)), b.Vecs[c]
				for i, r := range pr {
					v[i] = src[r]
				}
				out.Vecs[len(j.outL)+x] = v
			}
			if err := emit(out); err != nil {
				return err
			}
		}
		ol, or = ol[:0], or[:0]
		return nil
	}
	return j.streamBuiltLeft(ht, right, false, func(b *Batch, l, r int) error {
		ol, or = append(ol, l), append(or, r)
		if len(ol) >= BatchSize {
			return flush(b)
		}
		return nil
	}, flush)
}
