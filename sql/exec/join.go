package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// joinOp is a hash join on the equality conjuncts of the join condition
// between a left and a right expression (none: every right row is a
// candidate, a nested-loop join), the rest of the condition evaluated a
// batch of candidate pairs at a time. The right side is built into the
// hash table; the left side streams through it.
type joinOp struct {
	e           *env
	kind        plan.JoinKind
	left, right operator
	lkeys       []vexpr // over left batches
	rkeys       []vexpr // over right batches
	keyTypes    []plan.OID
	lconv       []conv
	rconv       []conv
	// lkeyCols are the left keys' columns where a key is one (0: an
	// expression), for the probe side's key filter (joinfilter.go);
	// rkeyCols the right keys', for a semi or anti join built on its
	// left side (semibuild.go).
	lkeyCols, rkeyCols []plan.ColumnID
	residual           vexpr // over pair batches (left columns then right); nil: none
	// resCols are the pair batch's columns the residual reads (nil:
	// every one, a residual with a subquery): check gathers only those.
	resCols []bool
	// chk are check's pair vectors, reused call after call (the residual
	// reads them; nothing keeps them).
	chk struct {
		vecs [][]types.Value
		res  []types.Value
	}
	out []plan.ColumnID
	// outL and outR are the left and right columns (indexes into each
	// side's columns) the join emits, in out's order; keepR marks the
	// right columns its hash table holds (emitted or read by the
	// residual). With joinNeeds (joinneed.go) they leave out what
	// nothing above reads.
	outL, outR []int
	keepR      []bool
	// buildLeft: a semi or anti join holding its left side in the hash
	// table (semibuild.go), the left columns it holds marked in keepL.
	buildLeft bool
	keepL     []bool
	// keep: in a correlated subquery or a LATERAL's right side, the
	// side reading no outer column is built once (joinkeep.go; nil:
	// none).
	keep *joinKeep
	// nullAware: an anti join for NOT IN, on its condition's equality
	// with PostgreSQL's NULL rules; na is what its build saw
	// (joinnull.go).
	nullAware bool
	na        naState
}

func (e *env) buildJoin(j *plan.Join) (operator, error) {
	left, err := e.build(j.Left)
	if err != nil {
		return nil, err
	}
	right, err := e.build(j.Right)
	if err != nil {
		return nil, err
	}
	op := &joinOp{e: e, kind: j.Kind, left: left, right: right, out: j.Columns()}
	// The build copies the rows it holds, the probe the rows it emits
	// (joinOut.flush), a spill the rows it writes.
	streamInput(left)
	streamInput(right)
	lset, rset := plan.SetOf(left.cols()), plan.SetOf(right.cols())
	lc := &compiler{e: e, lay: layoutOf(left.cols())}
	rc := &compiler{e: e, lay: layoutOf(right.cols())}
	var rest []plan.Scalar
	var rkeyCols plan.ColSet // the right columns the keys read
	conjuncts := plan.Conjuncts(j.On)
	var naKey *plan.Op
	if j.Kind == plan.AntiJoin {
		naKey = plan.NotInEquality(j.On) // NOT IN: joinnull.go
	}
	if naKey != nil {
		conjuncts = []plan.Scalar{naKey}
	}
	for _, p := range conjuncts {
		o, ok := p.(*plan.Op)
		if ok && o.Op == "=" && len(o.Args) == 2 && !hasSubquery(p) {
			a, b := o.Args[0], o.Args[1]
			ac, bc := plan.ColumnsOf(a), plan.ColumnsOf(b)
			if ac.Len() > 0 && bc.Len() > 0 && ac.SubsetOf(rset) && bc.SubsetOf(lset) {
				a, b, ac, bc = b, a, bc, ac
			}
			if ac.Len() > 0 && bc.Len() > 0 && ac.SubsetOf(lset) && bc.SubsetOf(rset) {
				t, ok := cmpType(a.Type(), b.Type())
				if ok && types.Orderable(t.OID) {
					lk, err := lc.compile(a)
					if err != nil {
						return nil, err
					}
					rk, err := rc.compile(b)
					if err != nil {
						return nil, err
					}
					lcv, rcv := lc.converter(a.Type(), t), lc.converter(b.Type(), t)
					if a.Type().OID == plan.Bpchar && b.Type().OID == plan.Bpchar {
						t, lcv, rcv = plan.T(plan.Bpchar), nil, nil
					}
					op.lkeys, op.rkeys = append(op.lkeys, lk), append(op.rkeys, rk)
					var lcol plan.ColumnID
					if c, ok := a.(*plan.ColRef); ok {
						lcol = c.ID
					}
					op.lkeyCols = append(op.lkeyCols, lcol)
					var rcol plan.ColumnID
					if c, ok := b.(*plan.ColRef); ok {
						rcol = c.ID
					}
					op.rkeyCols = append(op.rkeyCols, rcol)
					rkeyCols.AddSet(bc)
					op.keyTypes = append(op.keyTypes, t.OID)
					op.lconv, op.rconv = append(op.lconv, lcv), append(op.rconv, rcv)
					continue
				}
			}
		}
		rest = append(rest, p)
	}
	switch {
	case naKey != nil && len(rest) > 0:
		rest = []plan.Scalar{j.On} // not a hash key: the whole condition, pair by pair
	case naKey != nil:
		op.nullAware = true
	}
	if len(rest) > 0 {
		pc := &compiler{e: e, lay: layoutOf(append(append([]plan.ColumnID(nil), left.cols()...), right.cols()...))}
		if op.residual, err = pc.quals(plan.And(rest)); err != nil { // qualorder.go
			return nil, err
		}
		if res := plan.And(rest); !hasSubquery(res) {
			op.resCols = make([]bool, len(left.cols())+len(right.cols()))
			for _, id := range plan.ColumnsOf(res).Sorted() {
				if idx, ok := pc.lay[id]; ok {
					op.resCols[idx] = true
				}
			}
		}
	}
	need, ok := e.joinNeed[j]
	op.narrow(need, !ok, rkeyCols, len(left.cols()), len(right.cols()))
	if j.BuildLeft && (j.Kind == plan.SemiJoin || j.Kind == plan.AntiJoin) && len(op.lkeys) > 0 && !op.nullAware {
		op.buildLeft = true
		op.keepL = make([]bool, len(left.cols()))
		for _, c := range op.outL {
			op.keepL[c] = true
		}
		for c := range op.keepL {
			if op.residual != nil && (op.resCols == nil || op.resCols[c]) {
				op.keepL[c] = true
			}
		}
	}
	if !op.nullAware {
		op.keep = e.keepFor(j, op)
	}
	return op, nil
}

// narrow sets the columns the join emits and holds: those of need
// (full: every one) among its output, and on the right also the ones
// the residual reads and the keys' (a spill writes the rows it holds
// to partition files and joins them again: joinspill.go).
func (j *joinOp) narrow(need plan.ColSet, full bool, rkeyCols plan.ColSet, lw, rw int) {
	semi := j.kind == plan.SemiJoin || j.kind == plan.AntiJoin
	j.out = j.out[:0:0]
	lcols, rcols := j.left.cols(), j.right.cols()
	for c := 0; c < lw; c++ {
		if full || need.Has(lcols[c]) {
			j.outL, j.out = append(j.outL, c), append(j.out, lcols[c])
		}
	}
	j.keepR = make([]bool, rw)
	for c := 0; c < rw; c++ {
		if !semi && (full || need.Has(rcols[c])) {
			j.outR, j.out = append(j.outR, c), append(j.out, rcols[c])
			j.keepR[c] = true
		}
		if rkeyCols.Has(rcols[c]) {
			j.keepR[c] = true
		}
	}
	if j.residual != nil {
		for c := 0; c < rw; c++ {
			if j.resCols == nil || j.resCols[lw+c] {
				j.keepR[c] = true
			}
		}
	}
}

func hasSubquery(s plan.Scalar) bool {
	found := false
	plan.Walk(s, func(x plan.Scalar) bool {
		if _, ok := x.(*plan.Subquery); ok {
			found = true
		}
		return !found
	})
	return found
}

func (j *joinOp) cols() []plan.ColumnID { return j.out }

// hashTable holds the build side's rows column-wise, chained by the
// hash of their keys: head[h&mask] is the first row (plus one) of a
// chain, next[r] the row after r (plus one); chains keep build order.
// Nothing is allocated per row: values stay in the column vectors.
type hashTable struct {
	h       valueHasher
	oids    []plan.OID
	n       int
	cols    []chunked // the right side's columns
	keys    []chunked // each key's converted values
	hashes  []uint64
	hasKey  []bool // false: a key is NULL (kept for RIGHT/FULL joins only)
	head    []int32
	next    []int32
	mask    uint64
	matched []bool
	// nonIntKey: a row's single key was not an int64 (joinhashkey.go).
	nonIntKey bool
}

// chunked is a column of values in chunks of BatchSize, so that a
// growing build side never copies what it holds (a slice that doubled
// would move every value, and each move is a pointer write the garbage
// collector sees).
type chunked [][]types.Value

func (c *chunked) add(v types.Value) {
	n := len(*c)
	if n == 0 || len((*c)[n-1]) == BatchSize {
		*c = append(*c, make([]types.Value, 0, BatchSize))
		n++
	}
	(*c)[n-1] = append((*c)[n-1], v)
}

// at is value r (BatchSize is a power of two).
func (c chunked) at(r int) types.Value { return c[r/BatchSize][r%BatchSize] }

// keysOf evaluates key expressions over b, converted to the key types,
// one vector per key; ok[i] is false where a key is NULL (such a row
// matches nothing).
func keysOf(b *Batch, sel []int, exprs []vexpr, convs []conv) ([][]types.Value, []bool, error) {
	vecs := make([][]types.Value, len(exprs))
	ok := make([]bool, b.N)
	for i := range ok {
		ok[i] = true
	}
	for k, x := range exprs {
		v := make([]types.Value, b.N)
		if err := x(b, sel, v); err != nil {
			return nil, nil, err
		}
		for i, x := range v {
			if x == nil {
				ok[i] = false
				continue
			}
			if convs[k] != nil {
				y, err := convs[k](x)
				if err != nil {
					return nil, nil, err
				}
				v[i] = y
			}
		}
		vecs[k] = v
	}
	return vecs, ok, nil
}

// hashRow is the hash of row i's keys (none NULL).
func (ht *hashTable) hashRow(keys [][]types.Value, i int) uint64 {
	var x uint64 = 14695981039346656037
	for k, v := range keys {
		x = (x ^ ht.h.hash(ht.oids[k], v[i])) * 1099511628211
	}
	return x
}

// equalTo reports whether build row r's keys equal row i of keys.
func (ht *hashTable) equalTo(r int, keys [][]types.Value, i int) bool {
	for k, v := range keys {
		a, b := ht.keys[k].at(r), v[i]
		if x, ok := a.(int64); ok { // the common case: integer keys
			if y, ok := b.(int64); ok {
				if x != y {
					return false
				}
				continue
			}
		}
		if types.Compare(ht.oids[k], a, b) != 0 {
			return false
		}
	}
	return true
}

// joinRowBytes is what a build row holds besides its values: its slots
// in the column chunks, hash, chain and flags, and its share of head.
const joinRowBytes = 24 + 16 + 24

// build reads right into the hash table. Past the working memory, when
// the join may spill (joinspill.go), it moves what it holds and the rest
// of right into partition files instead and returns those (ht nil).
func (j *joinOp) build(mem *memAcct, right operator, depth int) (*hashTable, *joinSpill, error) {
	j.e.hashBuilds++
	rw := len(right.cols())
	ht := &hashTable{h: newValueHasher(), oids: j.keyTypes, cols: make([]chunked, rw), keys: make([]chunked, len(j.rkeys))}
	keepNull := j.kind == plan.RightJoin || j.kind == plan.FullJoin
	spillable := j.e.canSpill() && len(j.rkeys) > 0 && depth < maxSpillDepth
	var sp *joinSpill
	if depth == 0 {
		j.na = naState{}
	}
	err := right.run(func(b *Batch) error {
		keys, ok, err := keysOf(b, allRows(b.N), j.rkeys, j.rconv)
		if err != nil {
			return err
		}
		if j.noteNullAware(depth, b.N, ok) { // joinnull.go
			return j.e.check()
		}
		if sp != nil {
			return sp.addBatch(sp.right, b, keys, ok, keepNull)
		}
		bytes := ht.bytesOf(b, keys, ok, j.keepR, keepNull)
		if spillable && !mem.tryGrowKeeping(bytes, partReserve) {
			if sp, err = j.startSpill(mem, ht, right); err != nil {
				return err
			}
			ht = nil
			return sp.addBatch(sp.right, b, keys, ok, keepNull)
		}
		if !spillable {
			if err := mem.grow("hash join", bytes); err != nil {
				return err
			}
		}
		ht.add(b, keys, ok, j.keepR, keepNull)
		return nil
	})
	if err != nil || sp != nil {
		return nil, sp, err
	}
	ht.index()
	return ht, nil, nil
}

// bytesOf is the memory the rows of b that add would add hold.
func (ht *hashTable) bytesOf(b *Batch, keys [][]types.Value, ok []bool, keep []bool, keepNull bool) int64 {
	var bytes int64
	for i := 0; i < b.N; i++ {
		if !ok[i] && !keepNull {
			continue
		}
		bytes += joinRowBytes
		for c := range ht.cols {
			if keep[c] {
				bytes += valueBytes(b.Vecs[c][i])
			}
		}
		for k := range ht.keys {
			bytes += valueBytes(keys[k][i])
		}
	}
	return bytes
}

// add appends the rows of b (their columns marked in keep; the others
// are never read) with their keys; a row whose key is NULL (ok false)
// only when keepNull.
func (ht *hashTable) add(b *Batch, keys [][]types.Value, ok []bool, keep []bool, keepNull bool) {
	for i := 0; i < b.N; i++ {
		if !ok[i] && !keepNull {
			continue
		}
		for c := range ht.cols {
			if keep[c] {
				ht.cols[c].add(b.Vecs[c][i])
			}
		}
		for k := range ht.keys {
			ht.keys[k].add(keys[k][i])
		}
		var h uint64
		if ok[i] {
			h = ht.hashRow(keys, i)
			ht.noteKey(keys, i)
		}
		ht.hashes = append(ht.hashes, h)
		ht.hasKey = append(ht.hasKey, ok[i])
		ht.n++
	}
}

// index chains the rows added to ht by their hashes.
func (ht *hashTable) index() {
	size := 1
	for size < ht.n {
		size <<= 1
	}
	ht.head, ht.next, ht.mask = make([]int32, size), make([]int32, ht.n), uint64(size-1)
	for r := ht.n - 1; r >= 0; r-- { // backwards: each chain in build order
		if !ht.hasKey[r] {
			continue
		}
		slot := ht.hashes[r] & ht.mask
		ht.next[r] = ht.head[slot]
		ht.head[slot] = int32(r + 1)
	}
	ht.matched = make([]bool, ht.n)
}

// joinOut gathers output batches: left row pl[k] of the current left
// batch (or NULLs) beside right row pr[k] (-1: NULLs), or the left row
// alone for semi and anti joins, emitted BatchSize rows at a time.
type joinOut struct {
	// outL and outR are the left and right columns emitted (joinOp's).
	outL, outR []int
	ht         *hashTable
	emit       func(*Batch) error
	pl, pr     []int
}

func (o *joinOut) add(l, r int) { o.pl, o.pr = append(o.pl, l), append(o.pr, r) }

// flush emits the gathered rows (left ones from b; b nil: NULLs).
func (o *joinOut) flush(b *Batch) error {
	for start := 0; start < len(o.pl); start += BatchSize {
		end := min(start+BatchSize, len(o.pl))
		pl, pr := o.pl[start:end], o.pr[start:end]
		lw := len(o.outL)
		out := &Batch{N: len(pl), Vecs: make([][]types.Value, lw+len(o.outR))}
		for k, c := range o.outL {
			v := make([]types.Value, len(pl))
			if b != nil {
				src := b.Vecs[c]
				for k, i := range pl {
					v[k] = src[i]
				}
			}
			out.Vecs[k] = v
		}
		for k, c := range o.outR {
			v := make([]types.Value, len(pr))
			src := o.ht.cols[c]
			for k, r := range pr {
				if r >= 0 {
					v[k] = src.at(r)
				}
			}
			out.Vecs[lw+k] = v
		}
		gatherSmall(out, b, o.outL, pl) // joinvec.go
		if err := o.emit(out); err != nil {
			return err
		}
	}
	o.pl, o.pr = o.pl[:0], o.pr[:0]
	return nil
}

func (j *joinOp) run(emit func(*Batch) error) error {
	return j.runOn(j.left, j.right, 0, emit)
}

// runOn joins left and right (the join's inputs, or one pair of their
// partition files at a level of partitioning: depth).
func (j *joinOp) runOn(left, right operator, depth int, emit func(*Batch) error) error {
	if j.buildLeft {
		if done, err := j.runBuildLeft(left, right, emit); done || err != nil {
			return err
		}
		// The left side passed the working memory: join as usual.
	}
	if depth == 0 && j.keep != nil && !j.keep.off {
		if done, err := j.runKept(left, right, emit); done || err != nil { // joinkeep.go
			return err
		}
		// The side kept did not fit its share: join as usual.
	}
	e := j.e
	mem := &memAcct{e: e}
	defer mem.done()
	ht, sp, err := j.build(mem, right, depth)
	if sp != nil {
		defer sp.remove()
	}
	if err != nil {
		return spillErr(e, "hash join", err)
	}
	if j.nullAware && j.na.null {
		mem.done()
		return j.drainNullAware(left) // joinnull.go
	}
	if sp != nil {
		return spillErr(e, "hash join", sp.join(mem, left, right, depth, emit))
	}
	return j.probe(mem, ht, left, emit)
}

// probe streams left through ht (the right side's rows), emitting the
// pairs that pass and, per the join's kind, the rows left unmatched.
func (j *joinOp) probe(mem *memAcct, ht *hashTable, left operator, emit func(*Batch) error) error {
	e := j.e
	switch j.kind {
	case plan.InnerJoin, plan.SemiJoin, plan.RightJoin:
		if s, col, f := j.keyFilterFor(ht, left, j.lkeyCols, mem); f != nil {
			s.keySteps = append(s.keySteps, f.step(col))
			defer func() { s.keySteps = s.keySteps[:len(s.keySteps)-1] }()
		}
	}
	lw, rw := len(left.cols()), len(ht.cols)
	semi := j.kind == plan.SemiJoin || j.kind == plan.AntiJoin
	out := &joinOut{outL: j.outL, outR: j.outR, ht: ht, emit: emit}
	err := left.run(func(b *Batch) error {
		if err := e.check(); err != nil {
			return err
		}
		sel := allRows(b.N)
		keys, ok, err := keysOf(b, sel, j.lkeys, j.lconv)
		if err != nil {
			return err
		}
		// candidate pairs of this batch, checked a batch of pairs at a
		// time (a cross join's pairs are never all held at once)
		hit := make([]bool, b.N)
		var pl, pr []int
		process := func() error {
			// A left row matching many build rows (a key repeated
			// 100,000 times) makes one left batch millions of pairs: the
			// statement's cancel and timeout are seen per batch of pairs,
			// not per left batch (a 200 ms statement_timeout took 31 s).
			if err := e.check(); err != nil {
				return err
			}
			pass, err := j.check(b, ht, pl, pr, lw, rw)
			if err != nil {
				return err
			}
			for k, okp := range pass {
				if !okp {
					continue
				}
				i, r := pl[k], pr[k]
				ht.matched[r] = true
				if semi {
					if !hit[i] && j.kind == plan.SemiJoin {
						out.add(i, -1)
					}
					hit[i] = true
					continue
				}
				hit[i] = true
				out.add(i, r)
			}
			pl, pr = pl[:0], pr[:0]
			if len(out.pl) >= BatchSize {
				return out.flush(b)
			}
			return nil
		}
		candidate := func(i, r int) error {
			pl, pr = append(pl, i), append(pr, r)
			if len(pl) >= BatchSize {
				return process()
			}
			return nil
		}
		for i := 0; i < b.N; i++ {
			if !ok[i] {
				continue
			}
			if len(j.lkeys) == 0 {
				for r := 0; r < ht.n && !(semi && hit[i]); r++ {
					if err := candidate(i, r); err != nil {
						return err
					}
				}
				continue
			}
			h := ht.hashRow(keys, i)
			for r := int(ht.head[h&ht.mask]) - 1; r >= 0; r = int(ht.next[r]) - 1 {
				if !ht.sameKeys(r, h, keys, i) {
					continue
				}
				if semi && hit[i] {
					break
				}
				if err := candidate(i, r); err != nil {
					return err
				}
			}
		}
		if err := process(); err != nil {
			return err
		}
		j.dropNullAware(hit, ok) // joinnull.go
		for i := 0; i < b.N; i++ {
			if hit[i] {
				continue
			}
			switch j.kind {
			case plan.AntiJoin, plan.LeftJoin, plan.FullJoin:
				out.add(i, -1)
			}
		}
		return out.flush(b)
	})
	if err != nil {
		return err
	}
	if j.kind == plan.RightJoin || j.kind == plan.FullJoin {
		for r, m := range ht.matched {
			if !m {
				out.add(-1, r)
				if len(out.pl) >= BatchSize {
					if err := out.flush(nil); err != nil {
						return err
					}
				}
			}
		}
	}
	return out.flush(nil)
}

// check evaluates the residual condition over the candidate pairs
// (left row pl[k] of b, right row pr[k]), a batch of pairs at a time.
func (j *joinOp) check(b *Batch, ht *hashTable, pl, pr []int, lw, rw int) ([]bool, error) {
	return j.checkPairs(len(pl), lw, rw, func(c, start int, v []types.Value) {
		if c < lw {
			src := b.Vecs[c]
			for k := range v {
				v[k] = src[pl[start+k]]
			}
			return
		}
		src := ht.cols[c-lw]
		for k := range v {
			v[k] = src.at(pr[start+k])
		}
	})
}

// checkPairs evaluates the residual over n candidate pairs, a batch of
// pairs at a time: fill(c, start, v) gathers column c (the left
// side's lw columns, then the right side's rw) of pairs start… into v.
// Only the columns the residual reads are gathered (the others are NULL
// in the pair batch and never read).
func (j *joinOp) checkPairs(n, lw, rw int, fill func(c, start int, v []types.Value)) ([]bool, error) {
	pass := make([]bool, n)
	if j.residual == nil {
		for k := range pass {
			pass[k] = true
		}
		return pass, nil
	}
	ck := &j.chk
	if ck.vecs == nil {
		ck.vecs = make([][]types.Value, lw+rw+1) // the last: NULLs, for the columns not read
		for c := range ck.vecs {
			ck.vecs[c] = make([]types.Value, BatchSize)
		}
		ck.res = make([]types.Value, BatchSize)
	}
	nulls := ck.vecs[lw+rw]
	for start := 0; start < n; start += BatchSize {
		if err := j.e.check(); err != nil {
			return nil, err
		}
		end := min(start+BatchSize, n)
		pb := &Batch{N: end - start, Vecs: make([][]types.Value, lw+rw)}
		for c := 0; c < lw+rw; c++ {
			if j.resCols != nil && !j.resCols[c] {
				pb.Vecs[c] = nulls[:pb.N]
				continue
			}
			v := ck.vecs[c][:pb.N]
			fill(c, start, v)
			pb.Vecs[c] = v
		}
		res := ck.res[:pb.N]
		clear(res)
		if err := j.residual(pb, allRows(pb.N), res); err != nil {
			return nil, err
		}
		for k := 0; k < pb.N; k++ {
			t, ok := res[k].(bool)
			pass[start+k] = ok && t
		}
	}
	return pass, nil
}
