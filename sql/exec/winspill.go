package exec

import (
	"errors"
	"slices"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Windows past the working memory. With a temporary directory
// (Options.TempDir) a window holds its input while it fits, as before;
// past the working memory it writes sorted runs (the external sort's
// files and encoding, extsort.go: stable runs, ties by run) and merges
// them, so its rows arrive sorted by partition and order keys as the
// in-memory stable sort would give them, and holds one partition at a
// time: computed as in memory, emitted, given back. PostgreSQL's
// WindowAgg does the same over a sort that spills, its partition in a
// tuplestore.
//
// A partition that does not fit either is computed a chunk of whole peer
// groups at a time when every function's value at a row depends only on
// the rows up to the end of its peer group and on counts (row_number,
// rank, dense_rank, and aggregates over a frame from UNBOUNDED PRECEDING
// to CURRENT ROW without exclusion: the running aggregate's state is
// carried from chunk to chunk, winCarry). Otherwise — or when one peer
// group alone is past the working memory — the window fails with 53200
// as before.

// winCarry is what a partition's earlier chunks leave to the next: the
// rows and peer groups before it, and each aggregate's running state.
type winCarry struct {
	rows, groups int64
	states       []aggState
}

// chunkable says whether the window can be computed a chunk of whole
// peer groups at a time (see above).
func (w *windowOp) chunkable() bool {
	opts := w.w.Frame.Options
	running := opts&plan.FrameStartUnbounded != 0 && opts&plan.FrameEndCurrent != 0 &&
		opts&(plan.FrameExcludeCurrent|plan.FrameExcludeGroup|plan.FrameExcludeTies) == 0
	for _, fn := range w.funcs {
		switch fn.f.Name {
		case "row_number", "rank", "dense_rank":
		default:
			if fn.init == nil || fn.keepNull || !running {
				return false
			}
		}
	}
	return true
}

// computeChunk is fn's value (the k-th function) at each row of a chunk
// of whole peer groups of a partition, after the chunks carry tells of.
func (f *frameCalc) computeChunk(fn *winFn, k int, carry *winCarry) ([]types.Value, error) {
	out := make([]types.Value, len(f.rows))
	switch fn.f.Name {
	case "row_number":
		for i := range out {
			out[i] = carry.rows + int64(i) + 1
		}
		return out, nil
	case "rank":
		for i := range out {
			out[i] = carry.rows + int64(f.gs[f.grp[i]]) + 1
		}
		return out, nil
	case "dense_rank":
		for i := range out {
			out[i] = carry.groups + int64(f.grp[i]) + 1
		}
		return out, nil
	}
	st := carry.states[k]
	if st == nil {
		st = fn.init()
		inOrder(st) // the frame's rows in the window's order
		carry.states[k] = st
	}
	add := func(r []types.Value) error {
		if fn.filter >= 0 {
			if t, ok := r[fn.filter].(bool); !ok || !t {
				return nil
			}
		}
		var v types.Value = true // count(*)
		if len(fn.args) > 0 {
			if v = r[fn.args[0]]; v == nil {
				return nil
			}
		}
		return st.add(v)
	}
	rows := f.w.w.Frame.Options&plan.FrameRows != 0
	for g := range f.gs {
		if err := f.w.e.check(); err != nil {
			return nil, err
		}
		// ROWS: each row's frame ends at it; RANGE, GROUPS: at its
		// peer group's end
		for i := f.gs[g]; i < f.ge[g]; i++ {
			if err := add(f.rows[i]); err != nil {
				return nil, err
			}
			if rows {
				v, err := st.result()
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
		}
		if !rows {
			v, err := st.result()
			if err != nil {
				return nil, err
			}
			for i := f.gs[g]; i < f.ge[g]; i++ {
				out[i] = v
			}
		}
	}
	return out, nil
}

// runSpilling is run with a temporary directory: in memory while the
// input fits, otherwise over sorted runs a partition (or chunk) at a
// time.
func (w *windowOp) runSpilling(emit func(*Batch) error) error {
	e := w.e
	keys := append(append([]winKey(nil), w.part...), w.order...)
	sp := &spill{e: e, oids: e.oidsOfCols(w.in.cols()), op: "window"}
	defer sp.remove()
	var buf [][]types.Value
	// The rows held are charged to the window's own share (as
	// PostgreSQL's work_mem is each operator's), with memory.query.
	held := &memAcct{e: e}
	defer held.done()
	cmp := func(a, b []types.Value) int { return compareKeys(keys, a, b) }
	flush := func() error {
		slices.SortStableFunc(buf, cmp)
		err := sp.writeRun(buf)
		e.spillRuns++
		clear(buf)
		buf = buf[:0]
		held.done()
		return err
	}
	err := w.in.run(func(b *Batch) error {
		for i := 0; i < b.N; i++ {
			row := b.Row(i)
			n := rowBytes(row)
			if !held.tryGrowKeeping(n, 0) {
				if len(buf) == 0 {
					return e.spillRefusal("window") // not even one row fits
				}
				if err := flush(); err != nil {
					return err
				}
				if !held.tryGrowKeeping(n, 0) {
					return e.spillRefusal("window")
				}
			}
			buf = append(buf, row)
		}
		return e.check()
	})
	if err == nil && len(sp.runs) > 0 && len(buf) > 0 {
		err = flush()
	}
	if errors.Is(err, errNoSpill) {
		return e.grow("window", e.limit+1) // the working-memory refusal
	}
	if err != nil {
		return err
	}
	if len(sp.runs) == 0 {
		rs := &rowSet{rows: buf, bytes: held.n}
		held.n = 0 // runRows gives it back
		return w.runRows(rs, emit)
	}
	if err := w.mergeDown(sp, keys); err != nil {
		return err
	}
	if w.trackTies {
		emit = w.flagTies(keys, emit) // limitorder.go
	}
	pw := &winPartitions{w: w, emit: emit, f: &frameCalc{w: w}, chunks: w.chunkable()}
	if err := pw.reserve(); err != nil {
		return err
	}
	defer pw.release()
	if err := sp.merge(keys, sp.runs, pw.add); err != nil {
		return err
	}
	if err := pw.endPartition(); err != nil {
		return err
	}
	return pw.flushOut()
}

// mergeDown merges sp's runs in passes until one merge can read them
// all (as the external sort does; the merged run goes first, holding
// the earliest input).
func (w *windowOp) mergeDown(sp *spill, keys []winKey) error {
	for len(sp.runs) > mergeFanIn {
		group := slices.Clone(sp.runs[:mergeFanIn])
		rest := slices.Clone(sp.runs[mergeFanIn:])
		sp.runs = nil
		if err := sp.beginRun(); err != nil {
			return err
		}
		var rows [][]types.Value
		err := sp.merge(keys, group, func(r []types.Value) error {
			rows = append(rows, r)
			if len(rows) < BatchSize {
				return nil
			}
			err := sp.appendRows(rows)
			rows = rows[:0]
			return err
		})
		if err == nil {
			err = sp.appendRows(rows)
		}
		if err2 := sp.endRun(); err == nil {
			err = err2
		}
		if err != nil {
			return spillErr(w.e, "window", err)
		}
		sp.runs = append(sp.runs, rest...)
	}
	return nil
}

// winPartitions takes the window's sorted rows one at a time, holding
// the current partition (or chunk) and the computed rows not yet
// emitted.
//
// Its memory is the window's share (spillShare), taken from memory.query
// once when the merge starts and given back at its end, and not counted
// against the statement's working memory (an operator above that holds
// what it can — a sort — cannot starve it; PostgreSQL gives each
// operator its work_mem): the rows held are counted within it (used),
// each with room for its computed values (resultRoom); values past that
// room are charged to memory.query on top (over).
type winPartitions struct {
	w      *windowOp
	emit   func(*Batch) error
	f      *frameCalc
	cur    [][]types.Value
	sizes  []int64 // each held row's charge
	held   int64   // cur's charge
	carry  *winCarry
	chunks bool // the window may be computed in chunks (chunkable)
	out    [][]types.Value
	budget int64 // the share reserved
	used   int64 // the bytes of cur and out
	over   int64 // used past budget, charged to memory.query too
}

// reserve takes the window's share from memory.query.
func (p *winPartitions) reserve() error {
	e := p.w.e
	p.budget = e.spillShare()
	if err := e.acct.Grow(p.budget); err != nil {
		p.budget = 0
		return &types.Error{Code: "53200", Message: "out of memory: window needs more working memory than memory.query leaves",
			Detail: err.Error()}
	}
	return nil
}

// resultRoom is the room a held row keeps for its computed values
// (rowBytes of one value a function, a number's or a short text's).
func (p *winPartitions) resultRoom() int64 { return 24 + 48*int64(len(p.w.funcs)) }

// fits says whether n more bytes fit the share.
func (p *winPartitions) fits(n int64) bool { return p.used+n <= p.budget }

// charge counts n more bytes, charging what passes the share.
func (p *winPartitions) charge(n int64) error {
	p.used += n
	if x := p.used - p.budget - p.over; x > 0 {
		e := p.w.e
		if err := e.acct.Grow(x); err != nil {
			return &types.Error{Code: "53200", Message: "out of memory: window needs more working memory than memory.query leaves",
				Detail: err.Error()}
		}
		p.over += x
	}
	return nil
}

// uncharge gives n bytes back (what passed the share to memory.query).
func (p *winPartitions) uncharge(n int64) {
	p.used -= n
	if x := min(p.over, p.budget+p.over-p.used); x > 0 {
		p.w.e.acct.Shrink(x)
		p.over -= x
	}
}

// add takes the next row.
func (p *winPartitions) add(r []types.Value) error {
	e := p.w.e
	if len(p.cur) > 0 && compareKeys(p.w.part, p.cur[0], r) != 0 {
		if err := p.endPartition(); err != nil {
			return err
		}
	}
	n := rowBytes(r) + p.resultRoom()
	if !p.fits(n) {
		// the whole peer groups held first (emitted holding little),
		// then the rows computed
		if err := p.chunk(r); err != nil {
			return err
		}
		if !p.fits(n) {
			if err := p.flushOut(); err != nil {
				return err
			}
			if !p.fits(n) {
				return e.spillRefusal("window") // a peer group past the share, or a partition that cannot be chunked
			}
		}
	}
	if err := p.charge(n); err != nil {
		return err
	}
	p.held += n
	p.cur = append(p.cur, r)
	p.sizes = append(p.sizes, n)
	return nil
}

// chunk computes and emits the whole peer groups held of a partition
// too large to hold (next, of the same partition, is the row that did
// not fit); nothing when the window cannot be chunked or the rows held
// are one peer group.
func (p *winPartitions) chunk(next []types.Value) error {
	w := p.w
	j := len(p.cur)
	for j > 0 && compareKeys(w.order, p.cur[j-1], next) == 0 {
		j--
	}
	if !p.chunks || j == 0 {
		return nil
	}
	if p.carry == nil {
		p.carry = &winCarry{states: make([]aggState, len(w.funcs))}
	}
	if err := p.compute(j, p.carry); err != nil {
		return err
	}
	p.carry.rows += int64(j)
	p.carry.groups += int64(len(p.f.gs))
	return p.flushOut()
}

// endPartition computes and passes on the partition held.
func (p *winPartitions) endPartition() error {
	if len(p.cur) == 0 {
		return nil
	}
	err := p.compute(len(p.cur), p.carry)
	p.carry = nil
	return err
}

// compute computes the first j rows held (a partition, or a chunk of
// one with carry) and moves them to out.
func (p *winPartitions) compute(j int, carry *winCarry) error {
	rows := p.cur[:j]
	credit := int64(j) * p.resultRoom() // the room the rows hold for their values
	charge := func(n int64) error {
		if credit >= n {
			credit -= n
			return nil
		}
		n, credit = n-credit, 0
		return p.charge(n)
	}
	if err := p.w.computePartition(p.f, charge, rows, carry); err != nil {
		return err
	}
	for _, n := range p.sizes[:j] {
		p.held -= n
	}
	p.out = append(p.out, rows...)
	p.cur = append([][]types.Value(nil), p.cur[j:]...)
	p.sizes = append([]int64(nil), p.sizes[j:]...)
	if len(p.out) >= BatchSize {
		return p.flushOut()
	}
	return nil
}

// flushOut emits the computed rows and gives their memory back.
func (p *winPartitions) flushOut() error {
	if len(p.out) == 0 {
		return nil
	}
	// Given back before they are passed on (the operator above charges
	// what it keeps); what stays charged is the rows held, not computed.
	p.uncharge(p.used - p.held)
	err := p.w.e.emitRows(p.out, len(p.w.out), p.emit)
	clear(p.out)
	p.out = p.out[:0]
	return err
}

// release gives the share back.
func (p *winPartitions) release() {
	p.w.e.acct.Shrink(p.budget + p.over)
	p.budget, p.over, p.used, p.held = 0, 0, 0, 0
}
