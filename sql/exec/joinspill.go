package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Grace hash join (spillpart.go). When the build side passes the working
// memory, the rows built so far and the rest of the build side are
// written to partition files by the hash of their join keys, then the
// probe side is written the same way, and each pair of files is joined
// on its own (partitioned again, with a new hasher, when its build side
// still does not fit). Rows with equal keys meet in one pair, so every
// match is found; each row is in one file, so a LEFT/RIGHT/FULL/anti
// join's unmatched rows are found per pair. A row whose key is NULL
// matches nothing: a probe row is emitted or dropped at once (by the
// join's kind), a build row of a RIGHT/FULL join is kept in one more
// file and emitted with NULLs at the end. The answer's rows are the
// in-memory join's, in another order (which a join does not promise).

// joinSpill is one level of a spilling join's partitions.
type joinSpill struct {
	j     *joinOp
	h     valueHasher // chooses the partition of a key
	right *partFiles  // partFanout files, then the NULL-keyed rows
	left  *partFiles
}

// startSpill begins partitioning the build side: the rows ht holds move
// to the files, and their memory is given back.
func (j *joinOp) startSpill(mem *memAcct, ht *hashTable, right operator) (*joinSpill, error) {
	e := j.e
	mem.done()
	if err := mem.growReserve("hash join"); err != nil {
		return nil, err
	}
	parts, err := e.newPartFiles("hash join", e.oidsOfCols(right.cols()), partFanout+1)
	if err != nil {
		return nil, err
	}
	sp := &joinSpill{j: j, h: newValueHasher(), right: parts}
	row := make([]types.Value, len(ht.cols))
	key := make([]types.Value, len(ht.keys))
	for r := 0; r < ht.n; r++ {
		for c := range ht.cols {
			if j.keepR[c] { // the others nothing reads: NULL in the files
				row[c] = ht.cols[c].at(r)
			}
		}
		p := partFanout
		if ht.hasKey[r] {
			for k := range ht.keys {
				key[k] = ht.keys[k].at(r)
			}
			p = sp.part(func(k int) types.Value { return key[k] })
		}
		if err := parts.add(p, row); err != nil {
			return sp, err
		}
	}
	return sp, nil
}

// part is the partition of a key (none NULL) whose k-th value key(k) is.
func (sp *joinSpill) part(key func(k int) types.Value) int {
	x := hashStart
	for k, t := range sp.j.keyTypes {
		x = combine(x, sp.h.hash(t, key(k)))
	}
	return int(x >> 60)
}

// addBatch writes b's rows to parts by their keys; a row with a NULL key
// goes to the last file when keepNull, else nowhere.
func (sp *joinSpill) addBatch(parts *partFiles, b *Batch, keys [][]types.Value, ok []bool, keepNull bool) error {
	for i := 0; i < b.N; i++ {
		p := partFanout
		if ok[i] {
			p = sp.part(func(k int) types.Value { return keys[k][i] })
		} else if !keepNull {
			continue
		}
		if err := parts.add(p, b.Row(i)); err != nil {
			return err
		}
	}
	return sp.j.e.check()
}

// remove deletes the level's files.
func (sp *joinSpill) remove() {
	sp.right.remove()
	if sp.left != nil {
		sp.left.remove()
	}
}

// join partitions left like the build side and joins each pair.
func (sp *joinSpill) join(mem *memAcct, left, right operator, depth int, emit func(*Batch) error) error {
	j, e := sp.j, sp.j.e
	if err := sp.right.finish(); err != nil {
		return err
	}
	lparts, err := e.newPartFiles("hash join", e.oidsOfCols(left.cols()), partFanout)
	if err != nil {
		return err
	}
	sp.left = lparts
	out := &joinOut{outL: j.outL, outR: j.outR, ht: &hashTable{cols: make([]chunked, len(right.cols()))}, emit: emit}
	err = left.run(func(b *Batch) error {
		b.BoxSmall() // joinvec.go: the partition files hold Vecs
		keys, ok, err := keysOf(b, allRows(b.N), j.lkeys, j.lconv)
		if err != nil {
			return err
		}
		for i := 0; i < b.N; i++ {
			if ok[i] {
				continue
			}
			switch { // a NULL key matches nothing
			case j.nullAware:
				// NOT IN with rows on the right (it spilled): NULL
				// (joinnull.go)
			case j.kind == plan.AntiJoin, j.kind == plan.LeftJoin, j.kind == plan.FullJoin:
				out.add(i, -1)
			}
		}
		if err := out.flush(b); err != nil {
			return err
		}
		return sp.addBatch(lparts, b, keys, ok, false)
	})
	if err != nil {
		return err
	}
	if err := lparts.finish(); err != nil {
		return err
	}
	mem.done() // the writers are closed
	keepRight := j.kind == plan.RightJoin || j.kind == plan.FullJoin
	for p := 0; p < partFanout; p++ {
		if lparts.rows[p] == 0 && (!keepRight || sp.right.rows[p] == 0) {
			continue
		}
		if err := j.runOn(&partOp{p: lparts, i: p, colIDs: left.cols()}, &partOp{p: sp.right, i: p, colIDs: right.cols()}, depth+1, emit); err != nil {
			return err
		}
	}
	// The build rows whose key is NULL (RIGHT and FULL joins only).
	return (&partOp{p: sp.right, i: partFanout, colIDs: right.cols()}).run(func(b *Batch) error {
		lw := len(j.outL)
		w := &Batch{N: b.N, Vecs: make([][]types.Value, lw+len(j.outR))}
		for c := 0; c < lw; c++ {
			w.Vecs[c] = make([]types.Value, b.N)
		}
		for k, c := range j.outR {
			w.Vecs[lw+k] = b.Vecs[c]
		}
		return emit(w)
	})
}
