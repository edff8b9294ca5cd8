package exec

import (
	"hash/maphash"

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
	residual    vexpr // over pair batches (left columns then right); nil: none
	out         []plan.ColumnID
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
	lset, rset := plan.SetOf(left.cols()), plan.SetOf(right.cols())
	lc := &compiler{e: e, lay: layoutOf(left.cols())}
	rc := &compiler{e: e, lay: layoutOf(right.cols())}
	var rest []plan.Scalar
	for _, p := range plan.Conjuncts(j.On) {
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
					lcv, rcv := converter(a.Type(), t), converter(b.Type(), t)
					if a.Type().OID == plan.Bpchar && b.Type().OID == plan.Bpchar {
						t, lcv, rcv = plan.T(plan.Bpchar), nil, nil
					}
					op.lkeys, op.rkeys = append(op.lkeys, lk), append(op.rkeys, rk)
					op.keyTypes = append(op.keyTypes, t.OID)
					op.lconv, op.rconv = append(op.lconv, lcv), append(op.rconv, rcv)
					continue
				}
			}
		}
		rest = append(rest, p)
	}
	if len(rest) > 0 {
		pc := &compiler{e: e, lay: layoutOf(append(append([]plan.ColumnID(nil), left.cols()...), right.cols()...))}
		if op.residual, err = pc.compile(plan.And(rest)); err != nil {
			return nil, err
		}
	}
	return op, nil
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

// hashTable holds the build side's rows by the hash of their keys.
type hashTable struct {
	seed    maphash.Seed
	buckets map[uint64][]int
	rows    [][]types.Value
	keys    [][]types.Value // each row's key values (converted)
	matched []bool
}

// keysOf evaluates key expressions over b, converted to the key types;
// ok[i] is false where a key is NULL (such a row matches nothing).
func keysOf(b *Batch, exprs []vexpr, convs []conv) ([][]types.Value, []bool, error) {
	sel := allRows(b.N)
	vecs := make([][]types.Value, len(exprs))
	for k, x := range exprs {
		vecs[k] = make([]types.Value, b.N)
		if err := x(b, sel, vecs[k]); err != nil {
			return nil, nil, err
		}
	}
	keys := make([][]types.Value, b.N)
	ok := make([]bool, b.N)
	for i := 0; i < b.N; i++ {
		row := make([]types.Value, len(exprs))
		ok[i] = true
		for k := range exprs {
			v, err := applyConv(convs[k], vecs[k][i])
			if err != nil {
				return nil, nil, err
			}
			if v == nil {
				ok[i] = false
			}
			row[k] = v
		}
		keys[i] = row
	}
	return keys, ok, nil
}

func hashKey(seed maphash.Seed, oids []plan.OID, key []types.Value) uint64 {
	var h uint64 = 14695981039346656037
	for k, v := range key {
		h = (h ^ types.Hash(seed, oids[k], v)) * 1099511628211
	}
	return h
}

func keysEqual(oids []plan.OID, a, b []types.Value) bool {
	for k := range a {
		if types.Compare(oids[k], a[k], b[k]) != 0 {
			return false
		}
	}
	return true
}

func (j *joinOp) build(mem *memAcct) (*hashTable, error) {
	ht := &hashTable{seed: maphash.MakeSeed(), buckets: map[uint64][]int{}}
	keepNull := j.kind == plan.RightJoin || j.kind == plan.FullJoin
	err := j.right.run(func(b *Batch) error {
		keys, ok, err := keysOf(b, j.rkeys, j.rconv)
		if err != nil {
			return err
		}
		for i := 0; i < b.N; i++ {
			if !ok[i] && !keepNull {
				continue
			}
			row := b.Row(i)
			if err := mem.grow("hash join", rowBytes(row)+rowBytes(keys[i])+16); err != nil {
				return err
			}
			idx := len(ht.rows)
			ht.rows = append(ht.rows, row)
			ht.keys = append(ht.keys, keys[i])
			if ok[i] {
				h := hashKey(ht.seed, j.keyTypes, keys[i])
				ht.buckets[h] = append(ht.buckets[h], idx)
			}
		}
		return nil
	})
	ht.matched = make([]bool, len(ht.rows))
	return ht, err
}

func (j *joinOp) run(emit func(*Batch) error) error {
	e := j.e
	mem := &memAcct{e: e}
	defer mem.done()
	ht, err := j.build(mem)
	if err != nil {
		return err
	}
	lw, rw := len(j.left.cols()), len(j.right.cols())
	all := make([]int, len(ht.rows))
	for i := range all {
		all[i] = i
	}
	semi := j.kind == plan.SemiJoin || j.kind == plan.AntiJoin
	outW := lw + rw
	if semi {
		outW = lw
	}
	var pending [][]types.Value
	flush := func(force bool) error {
		for len(pending) >= BatchSize || force && len(pending) > 0 {
			n := min(len(pending), BatchSize)
			if err := e.emitRows(pending[:n], outW, emit); err != nil {
				return err
			}
			pending = pending[n:]
		}
		return nil
	}
	nullRight := make([]types.Value, rw)
	err = j.left.run(func(b *Batch) error {
		if err := e.check(); err != nil {
			return err
		}
		keys, ok, err := keysOf(b, j.lkeys, j.lconv)
		if err != nil {
			return err
		}
		// candidate pairs of this batch, checked a batch of pairs at a
		// time (a cross join's pairs are never all held at once)
		hit := make([]bool, b.N)
		var pl, pr []int
		process := func() error {
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
						pending = append(pending, b.Row(i))
					}
					hit[i] = true
					continue
				}
				hit[i] = true
				pending = append(pending, append(b.Row(i), ht.rows[r]...))
			}
			pl, pr = pl[:0], pr[:0]
			return flush(false)
		}
		for i := 0; i < b.N; i++ {
			if !ok[i] {
				continue
			}
			cands := all
			if len(j.lkeys) > 0 {
				cands = ht.buckets[hashKey(ht.seed, j.keyTypes, keys[i])]
			}
			for _, r := range cands {
				if len(j.lkeys) > 0 && !keysEqual(j.keyTypes, keys[i], ht.keys[r]) {
					continue
				}
				if semi && hit[i] {
					break
				}
				pl, pr = append(pl, i), append(pr, r)
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
		for i := 0; i < b.N; i++ {
			if hit[i] {
				continue
			}
			switch j.kind {
			case plan.AntiJoin:
				pending = append(pending, b.Row(i))
			case plan.LeftJoin, plan.FullJoin:
				pending = append(pending, append(b.Row(i), nullRight...))
			}
		}
		return flush(false)
	})
	if err != nil {
		return err
	}
	if j.kind == plan.RightJoin || j.kind == plan.FullJoin {
		nullLeft := make([]types.Value, lw)
		for r, m := range ht.matched {
			if !m {
				pending = append(pending, append(append([]types.Value(nil), nullLeft...), ht.rows[r]...))
				if err := flush(false); err != nil {
					return err
				}
			}
		}
	}
	return flush(true)
}

// check evaluates the residual condition over the candidate pairs
// (left row pl[k] of b, right row pr[k]), a batch of pairs at a time.
func (j *joinOp) check(b *Batch, ht *hashTable, pl, pr []int, lw, rw int) ([]bool, error) {
	pass := make([]bool, len(pl))
	if j.residual == nil {
		for k := range pass {
			pass[k] = true
		}
		return pass, nil
	}
	for start := 0; start < len(pl); start += BatchSize {
		if err := j.e.check(); err != nil {
			return nil, err
		}
		end := min(start+BatchSize, len(pl))
		pb := &Batch{N: end - start, Vecs: make([][]types.Value, lw+rw)}
		for c := 0; c < lw; c++ {
			v := make([]types.Value, pb.N)
			for k := range v {
				v[k] = b.Vecs[c][pl[start+k]]
			}
			pb.Vecs[c] = v
		}
		for c := 0; c < rw; c++ {
			v := make([]types.Value, pb.N)
			for k := range v {
				v[k] = ht.rows[pr[start+k]][c]
			}
			pb.Vecs[lw+c] = v
		}
		res := make([]types.Value, pb.N)
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
