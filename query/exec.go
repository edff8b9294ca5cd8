package query

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/types"
)

// Source is what the engine scans: one table's pages of typed segments and
// their summaries, all at one LSN. heap.Snapshot provides it (FromSnapshot).
type Source interface {
	NumPages() int
	Page(i int) heap.PageView
	PageLive(i int) int
	PageStats(i, c int) heap.ColStats
	Stats(c int) heap.ColStats
	Rows() int64
	LSN() uint64
}

// FromSnapshot adapts a heap snapshot (the caller still Releases it).
func FromSnapshot(s *heap.Snapshot) Source { return s }

// Options tune a run.
type Options struct {
	// Workers is the number of scan goroutines (default GOMAXPROCS).
	Workers int
	// NoSummaries forces a scan even where the summaries would answer
	// (tests compare both paths).
	NoSummaries bool
	// Only, when set, limits the scan to these rows (a primary-key range
	// read from the index at the snapshot's version): only their pages
	// are touched. They must include every row WHERE can accept.
	Only *[]heap.RowID
}

// Result is a query's answer.
type Result struct {
	Columns []ResultColumn `json:"columns"`
	Rows    [][]Value      `json:"-"`
	LSN     uint64         `json:"lsn"`
	// FromSummaries: answered from the summaries, no value read.
	FromSummaries bool `json:"from_summaries"`
	PagesScanned  int  `json:"pages_scanned"`
	PagesSkipped  int  `json:"pages_skipped"`
	// Read is where the rows were read: ReadHead or ReadTree ("" from Run
	// on a Source).
	Read string `json:"read,omitempty"`
}

// acc is one aggregate's running state for one group.
type acc struct {
	n   int64
	si  heap.Int128
	f64 float64
	f32 float32
	has bool // min/max seen
	mi  int64
	mf  float64
	ms  string
	nx  *numSum // numeric sum, avg, min, max
	// fg: whether a float sum/avg is the same in PostgreSQL's order of
	// rows (types.FloatSumGuard); nil for other aggregates.
	fg *types.FloatSumGuard
	// mixed: min/max saw a value equal to its extreme that prints
	// otherwise (0 and -0, 1.0 and 1.00): minmaxties.go.
	mixed bool
}

// partial is one worker's groups and states.
type partial struct {
	na     int
	index  map[string]int32 // hash grouping: encoded key -> group id
	arr    []int32          // array grouping: value-base (+1 slot for NULL at the end) -> group id + 1
	keys   [][]Value
	accs   []acc
	skip   int
	scan   int
	keybuf []byte
	slab   []Value // backing of array groups' keys
	// fn, fs: per group and aggregate (index g*na+a), counts and int2/int4
	// sums not yet added to accs (plain int64 adds in the grouped loops);
	// flushed into accs at the end of a range and before they could
	// overflow (pending rows < 2^31: |sum| < 2^62).
	fn, fs  []int64
	pending int64
	// mem is the statement's working memory (membudget.AccountFrom the
	// run's context; nil: unbounded); charged the groups paid for.
	mem     *membudget.Account
	charged int
}

// groupBytes estimates one group's memory: its key values, its index
// entry and its aggregate states.
func (p *partial) groupBytes(ngroups int) int64 {
	return int64(96 + 40*ngroups + p.na*int(unsafe.Sizeof(acc{})))
}

// chargeGroups charges the groups added since the last call.
func (p *partial) chargeGroups(ngroups int) error {
	if n := len(p.keys) - p.charged; n > 0 && p.mem != nil {
		if err := p.mem.Grow(int64(n) * p.groupBytes(ngroups)); err != nil {
			return err
		}
		p.charged = len(p.keys)
	}
	return nil
}

// grow makes fn and fs as long as accs.
func (p *partial) grow() {
	if n, want := len(p.fn), len(p.accs); n < want {
		p.fn = slices.Grow(p.fn, want-n)[:want]
		p.fs = slices.Grow(p.fs, want-n)[:want]
		clear(p.fn[n:])
		clear(p.fs[n:])
	}
}

// flush adds fn and fs into accs.
func (p *partial) flush() {
	for i := range p.fn {
		if p.fn[i] != 0 {
			p.accs[i].n += p.fn[i]
			p.accs[i].si.Add(p.fs[i])
			p.fn[i], p.fs[i] = 0, 0
		}
	}
	p.pending = 0
}

func (p *partial) group(key []byte, vals func() []Value) int32 {
	if g, ok := p.index[string(key)]; ok {
		return g
	}
	g := int32(len(p.keys))
	p.index[string(key)] = g
	p.keys = append(p.keys, vals())
	p.addAccs()
	return g
}

// addAccs appends one group's zeroed aggregate states (no temporary
// slice: growing accs is most of a many-group run's cost).
func (p *partial) addAccs() {
	n := len(p.accs)
	p.accs = slices.Grow(p.accs, p.na)[:n+p.na]
	clear(p.accs[n:])
}

// reserve makes room for n more groups.
func (p *partial) reserve(n int) {
	p.keys = slices.Grow(p.keys, n)
	p.accs = slices.Grow(p.accs, n*p.na)
}

// Run executes p over src. Every scan worker checks ctx before each page:
// a cancelled or expired ctx stops the run within a page per worker, and
// Run returns ctx's error (wrapped) once every worker has stopped.
func Run(ctx context.Context, p *Plan, src Source, opt Options) (*Result, error) {
	res := &Result{Columns: p.Columns, LSN: src.LSN()}
	if !opt.NoSummaries && p.summarisable() {
		row := make([]Value, len(p.aggs))
		var err error
		for i, a := range p.aggs {
			if row[i], err = summaryValue(a, src); err != nil {
				break
			}
		}
		switch {
		case err == nil:
			res.FromSummaries = true
			res.Rows = [][]Value{row}
			return finish(p, res)
		case err != errSummaryZero:
			return nil, err
		} // a float min/max of 0: scan, which tells 0 from -0
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var rs *restriction
	if opt.Only != nil {
		rs = restrict(*opt.Only)
	} else {
		rs = &restriction{pages: make([]int, src.NumPages())}
		for i := range rs.pages {
			rs.pages[i] = i
		}
	}
	np := len(rs.pages)
	workers = max(1, min(workers, np))
	// Array grouping for one integer column of a small value range.
	var base, span int64 = 0, -1
	if len(p.groups) == 1 && kindVK(p.schema.Columns[p.groups[0]].Kind) == vInt {
		st := src.Stats(p.groups[0])
		if st.Count > 0 && st.MaxI-st.MinI >= 0 && st.MaxI-st.MinI < arraySpan(st.Count) {
			base, span = st.MinI, st.MaxI-st.MinI+1
		} else if st.Count == 0 {
			span = 0
		}
	}
	parts := make([]*partial, workers)
	errs := make([]error, workers)
	bugs := make([]any, workers)
	var wg sync.WaitGroup
	for w := range workers {
		from, to := np*w/workers, np*(w+1)/workers
		pt := &partial{na: len(p.aggs), index: map[string]int32{}, mem: membudget.AccountFrom(ctx)}
		if span >= 0 {
			pt.arr = make([]int32, span+1)
			// At most one group per slot and per row of the range.
			rows := int64(0)
			for _, pg := range rs.pages[from:to] {
				rows += int64(src.PageLive(pg))
			}
			pt.reserve(int(min(span+1, rows)))
		}
		parts[w] = pt
		wg.Add(1)
		go func() {
			defer wg.Done()
			scanWorker(&errs[w], &bugs[w], func() error { return scanRange(ctx, p, src, rs, from, to, pt, base, span) })
		}()
	}
	wg.Wait()
	raiseWorkerBug(bugs)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// Merge in range order.
	all := parts[0]
	for _, pt := range parts[1:] {
		all.skip += pt.skip
		all.scan += pt.scan
		if span >= 0 { // array groups: by slot
			all.reserve(len(pt.keys))
			for g, key := range pt.keys {
				idx := span // the NULL slot
				if !key[0].Null {
					idx = key[0].I - base
				}
				d := all.arr[idx]
				if d == 0 {
					d = all.addArrayGroup(idx, key)
				}
				for a := range p.aggs {
					mergeAcc(p.aggs[a], &all.accs[int(d-1)*all.na+a], &pt.accs[g*pt.na+a])
				}
			}
			continue
		}
		for g, key := range pt.keys {
			enc := encodeKey(all.keybuf[:0], key)
			all.keybuf = enc
			dst := all.group(enc, func() []Value { return key })
			for a := range p.aggs {
				mergeAcc(p.aggs[a], &all.accs[int(dst)*all.na+a], &pt.accs[g*pt.na+a])
			}
		}
	}
	res.PagesScanned, res.PagesSkipped = all.scan, all.skip
	if len(p.groups) == 0 && len(all.keys) == 0 {
		all.keys = append(all.keys, nil)
		all.accs = make([]acc, len(p.aggs))
	}
	for g, key := range all.keys {
		row := make([]Value, 0, len(p.Columns))
		row = append(row, key...)
		for a, ag := range p.aggs {
			v, err := final(ag, &all.accs[g*all.na+a])
			if err != nil {
				return nil, err
			}
			row = append(row, v)
		}
		res.Rows = append(res.Rows, row)
	}
	return finish(p, res)
}

// summarisable: no filter, no grouping, every aggregate kept in summaries.
func (p *Plan) summarisable() bool {
	if p.where != nil || len(p.groups) > 0 {
		return false
	}
	for _, a := range p.aggs {
		switch {
		case a.fn == "count":
		case a.fn == "sum" && kindVK(a.kind) == vInt:
		case (a.fn == "min" || a.fn == "max") && (kindVK(a.kind) == vInt || a.kind.IsFloat()):
		default:
			return false
		}
	}
	return true
}

func summaryValue(a boundAgg, src Source) (Value, error) {
	if a.col < 0 {
		return Value{K: vInt, I: src.Rows()}, nil
	}
	st := src.Stats(a.col)
	if a.fn == "count" {
		return Value{K: vInt, I: st.Count}, nil
	}
	if st.Count == 0 {
		return Value{Null: true}, nil
	}
	x := acc{n: st.Count, si: st.Sum, has: true}
	switch {
	case a.fn == "min" && a.kind.IsFloat():
		x.mf = st.MinF
		if x.mf == 0 {
			return Value{}, errSummaryZero // minmaxties.go: scan instead
		}
	case a.fn == "max" && a.kind.IsFloat():
		x.mf = st.MaxF
		if x.mf == 0 {
			return Value{}, errSummaryZero
		}
	case a.fn == "min":
		x.mi = st.MinI
	case a.fn == "max":
		x.mi = st.MaxI
	}
	return final(a, &x)
}

// scanRange scans pages rs.pages[from:to] into pt; it stops with ctx's
// error before the first page it reaches after ctx ends.
func scanRange(ctx context.Context, p *Plan, src Source, rs *restriction, from, to int, pt *partial, base, span int64) error {
	var ar arena
	var gids []int32
	var live []uint64
	grouped := len(p.groups) > 0
	if !grouped {
		pt.group(nil, func() []Value { return nil })
	}
	gcols := make([]heap.Kind, len(p.groups))
	for i, c := range p.groups {
		gcols[i] = p.schema.Columns[c].Kind
	}
	for pi := from; pi < to; pi++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("query: scan stopped at page %d of %d: %w", pi-from, to-from, err)
		}
		i := rs.pages[pi]
		if src.PageLive(i) == 0 {
			pt.skip++
			continue
		}
		if p.where != nil && !mayMatch(p.where, func(c int) heap.ColStats { return src.PageStats(i, c) }) {
			pt.skip++
			continue
		}
		if err := pt.chargeGroups(len(p.groups)); err != nil {
			return err
		}
		pt.scan++
		v := src.Page(i)
		slots := v.Slots()
		var sel []uint64
		sel, live = selectPage(v, rs, pi, p.where, live, &ar)
		if grouped {
			if cap(gids) < slots {
				gids = make([]int32, slots)
			}
			gids = gids[:slots]
			groupIDs(p, v, sel, gcols, pt, gids, base, span)
			pt.grow()
			if pt.pending += int64(slots); pt.pending >= 1<<31-1<<16 {
				pt.flush()
			}
		}
		for a, ag := range p.aggs {
			if ag.col < 0 {
				if !grouped {
					for _, w := range sel {
						pt.accs[a].n += int64(bits.OnesCount64(w))
					}
					continue
				}
				countGrouped(sel, nil, gids, pt.fn, a, pt.na)
				continue
			}
			nulls := v.Nulls(ag.col)
			gid := func(s int) *acc { return &pt.accs[a] }
			if grouped {
				gid = func(s int) *acc { return &pt.accs[int(gids[s])*pt.na+a] }
			}
			switch kindVK(ag.kind) {
			case vInt:
				vals := v.Int64s(ag.col)
				if ag.fn != "min" && ag.fn != "max" && ag.kind != heap.KindInt8 {
					// int2/int4: a page's sum fits an int64 (65536 × 2^31).
					if !grouped {
						n, sum := sumMasked(sel, nulls, vals)
						x := &pt.accs[a]
						x.n += n
						x.si.Add(sum)
						continue
					}
					sumGrouped(sel, nulls, vals, gids, pt.fn, pt.fs, a, pt.na)
					continue
				}
				if !grouped && ag.fn != "min" && ag.fn != "max" {
					x := &pt.accs[a]
					forEach(sel, nulls, func(s int) { x.n++; x.si.Add(vals[s]) })
					continue
				}
				forEach(sel, nulls, func(s int) { addInt(ag.fn, gid(s), vals[s]) })
			case vFloat:
				vals := v.Float64s(ag.col)
				f4 := ag.kind == heap.KindFloat4
				forEach(sel, nulls, func(s int) { addFloat(ag.fn, gid(s), vals[s], f4) })
			case vNumeric:
				exc := v.Exceptions(ag.col)
				forEach(sel, nulls, func(s int) { addNumeric(ag.fn, gid(s), numAt(v, ag.col, s, exc)) })
			case vText:
				off, ln, data := v.Varlen(ag.col)
				forEach(sel, nulls, func(s int) {
					x := gid(s)
					x.n++
					if ag.fn == "count" {
						return
					}
					b := data[off[s] : off[s]+ln[s]]
					if !x.has || ag.fn == "min" && string(b) < x.ms || ag.fn == "max" && string(b) > x.ms {
						x.has, x.ms = true, string(b)
					}
				})
			}
		}
	}
	pt.flush()
	return nil
}

// sumMasked sums vals where sel is set and nulls is not (small integer
// kinds: the sum of one page fits an int64); full words take a branchless
// loop.
func sumMasked(sel, nulls []uint64, vals []int64) (n, sum int64) {
	for i, w := range sel {
		w &^= nulls[i]
		if w == 0 {
			continue
		}
		base := i << 6
		if w == ^uint64(0) {
			seg := vals[base : base+64]
			var s0, s1, s2, s3 int64
			for j := 0; j < 64; j += 4 {
				s0 += seg[j]
				s1 += seg[j+1]
				s2 += seg[j+2]
				s3 += seg[j+3]
			}
			sum += s0 + s1 + s2 + s3
			n += 64
			continue
		}
		n += int64(bits.OnesCount64(w))
		for w != 0 {
			sum += vals[base+bits.TrailingZeros64(w)]
			w &= w - 1
		}
	}
	return n, sum
}

// sumGrouped adds vals into each selected row's group: fn and fs are
// indexed group*stride+a (small integer kinds, plain int64 adds; the
// caller flushes them into the accumulators before they could overflow).
func sumGrouped(sel, nulls []uint64, vals []int64, gids []int32, fn, fs []int64, a, stride int) {
	for i, w := range sel {
		w &^= nulls[i]
		base := i << 6
		if w == ^uint64(0) {
			seg, gs := vals[base:base+64:base+64], gids[base:base+64:base+64]
			for j, x := range seg {
				k := int(gs[j])*stride + a
				fn[k]++
				fs[k] += x
			}
			continue
		}
		for w != 0 {
			s := base + bits.TrailingZeros64(w)
			k := int(gids[s])*stride + a
			fn[k]++
			fs[k] += vals[s]
			w &= w - 1
		}
	}
}

// countGrouped counts each selected row (not in nulls, when given) in its
// group (fn indexed group*stride+a).
func countGrouped(sel, nulls []uint64, gids []int32, fn []int64, a, stride int) {
	for i, w := range sel {
		if nulls != nil {
			w &^= nulls[i]
		}
		base := i << 6
		for w != 0 {
			fn[int(gids[base+bits.TrailingZeros64(w)])*stride+a]++
			w &= w - 1
		}
	}
}

// forEach calls fn for every slot set in sel and not in nulls.
func forEach(sel, nulls []uint64, fn func(s int)) {
	for i, w := range sel {
		if nulls != nil {
			w &^= nulls[i]
		}
		for w != 0 {
			b := bits.TrailingZeros64(w)
			fn(i<<6 | b)
			w &= w - 1
		}
	}
}

func addInt(fn string, x *acc, v int64) {
	x.n++
	switch fn {
	case "sum", "avg":
		x.si.Add(v)
	case "min":
		if !x.has || v < x.mi {
			x.has, x.mi = true, v
		}
	case "max":
		if !x.has || v > x.mi {
			x.has, x.mi = true, v
		}
	}
}

func addNumeric(fn string, x *acc, n numv) {
	x.n++
	if fn == "count" {
		return
	}
	if x.nx == nil {
		x.nx = &numSum{}
	}
	switch fn {
	case "sum", "avg":
		x.nx.add(n)
	case "min", "max":
		c := 0
		if x.has {
			c = numCmp(n, x.nx.best)
		}
		switch {
		case !x.has || fn == "min" && c < 0 || fn == "max" && c > 0:
			x.has, x.nx.best, x.mixed = true, n, false
		case c == 0 && !numSamePrint(n, x.nx.best):
			x.mixed = true
		}
	}
}

// addFloat adds v to x. A float sum or average is answered only when its
// value is the same in every order of addition (x.fg, checked in final):
// PostgreSQL adds in its plan's order (heap order, a sort's), not the
// key order read here; such a sum is also the same when partial sums of
// several workers are merged, so float sums run on every worker.
func addFloat(fn string, x *acc, v float64, f4 bool) {
	x.n++
	switch fn {
	case "sum", "avg":
		if x.fg == nil {
			x.fg = &types.FloatSumGuard{}
		}
		x.fg.Add(v)
		if f4 && fn == "sum" {
			x.f32 += float32(v)
		} else {
			x.f64 += v
		}
	case "min", "max":
		c := 0
		if x.has {
			c = floatCmp(v, x.mf)
		}
		switch {
		case !x.has || fn == "min" && c < 0 || fn == "max" && c > 0:
			x.has, x.mf, x.mixed = true, v, false
		case c == 0 && math.Signbit(v) != math.Signbit(x.mf):
			x.mixed = true // 0 and -0
		}
	}
}

func mergeAcc(a boundAgg, dst, src *acc) {
	if src.n == 0 {
		return
	}
	dst.n += src.n
	dst.si.AddInt128(src.si)
	dst.f64 += src.f64
	dst.f32 += src.f32
	if src.fg != nil {
		if dst.fg == nil {
			dst.fg = &types.FloatSumGuard{}
		}
		dst.fg.Merge(src.fg)
	}
	if src.nx != nil && (a.fn == "sum" || a.fn == "avg") {
		if dst.nx == nil {
			dst.nx = &numSum{}
		}
		dst.nx.merge(src.nx)
	}
	if !src.has {
		return
	}
	better := !dst.has
	tied := false
	if !better {
		c := 0
		switch kindVK(a.kind) {
		case vInt:
			c = cmp64(src.mi, dst.mi)
		case vFloat:
			c = floatCmp(src.mf, dst.mf)
		case vNumeric:
			c = numCmp(src.nx.best, dst.nx.best)
		case vText:
			switch {
			case src.ms < dst.ms:
				c = -1
			case src.ms > dst.ms:
				c = 1
			}
		}
		better = a.fn == "min" && c < 0 || a.fn == "max" && c > 0
		tied = c == 0
	}
	if tied {
		dst.mixed = dst.mixed || src.mixed || !sameExtreme(a, dst, src) // minmaxties.go
	}
	if better {
		dst.mixed = src.mixed
		dst.has, dst.mi, dst.mf, dst.ms = true, src.mi, src.mf, src.ms
		if src.nx != nil {
			if dst.nx == nil {
				dst.nx = &numSum{}
			}
			dst.nx.best = src.nx.best
		}
	}
}

// groupIDs sets gids[s] for every selected slot.
func groupIDs(p *Plan, v heap.PageView, sel []uint64, kinds []heap.Kind, pt *partial, gids []int32, base, span int64) {
	if pt.arr != nil {
		c := p.groups[0]
		vals, nulls := v.Int64s(c), v.Nulls(c)
		for i, w := range sel {
			if w == ^uint64(0) && nulls[i] == 0 {
				b := i << 6
				seg := vals[b : b+64 : b+64]
				for j, x := range seg {
					idx := x - base
					g := pt.arr[idx]
					if g == 0 {
						g = pt.arrayGroup(idx, x, false)
					}
					gids[b+j] = g - 1
				}
				continue
			}
			for w != 0 {
				s := i<<6 | bits.TrailingZeros64(w)
				w &= w - 1
				idx := span // the NULL slot
				null := nulls[s>>6]&(1<<(s&63)) != 0
				if !null {
					idx = vals[s] - base
				}
				g := pt.arr[idx]
				if g == 0 {
					g = pt.arrayGroup(idx, vals[s], null)
				}
				gids[s] = g - 1
			}
		}
		return
	}
	var exc [][]uint64 // numeric group columns' exceptions
	for i, c := range p.groups {
		if kindVK(kinds[i]) == vNumeric {
			if exc == nil {
				exc = make([][]uint64, len(p.groups))
			}
			exc[i] = v.Exceptions(c)
		}
	}
	forEach(sel, nil, func(s int) {
		key := pt.keybuf[:0]
		for i, c := range p.groups {
			if v.Nulls(c)[s>>6]&(1<<(s&63)) != 0 {
				key = append(key, 0)
				continue
			}
			key = append(key, 1)
			switch kindVK(kinds[i]) {
			case vInt:
				key = binary.BigEndian.AppendUint64(key, uint64(v.Int64s(c)[s]))
			case vFloat:
				key = binary.BigEndian.AppendUint64(key, floatKey(v.Float64s(c)[s]))
			case vNumeric:
				key = numKey(key, numAt(v, c, s, exc[i]))
			case vText:
				t := v.Text(c, s)
				key = binary.BigEndian.AppendUint32(key, uint32(len(t)))
				key = append(key, t...)
			}
		}
		pt.keybuf = key
		gids[s] = pt.group(key, func() []Value {
			vals := make([]Value, len(p.groups))
			for i, c := range p.groups {
				vals[i] = cellAt(v, c, kinds[i], s)
			}
			return vals
		})
	})
}

// arrayGroup creates the group of array slot idx (value x, or NULL) and
// returns its id + 1.
func (pt *partial) arrayGroup(idx, x int64, null bool) int32 {
	// Keys come from a slab: one allocation per 1024 groups, not one each.
	if len(pt.slab) == cap(pt.slab) {
		pt.slab = make([]Value, 0, 1024)
	}
	v := Value{Null: true}
	if !null {
		v = Value{K: vInt, I: x}
	}
	pt.slab = append(pt.slab, v)
	n := len(pt.slab)
	return pt.addArrayGroup(idx, pt.slab[n-1:n:n])
}

// addArrayGroup appends the group of array slot idx with key and returns
// its id + 1. Array partials are merged by slot (Run), so they keep no
// hash index.
func (pt *partial) addArrayGroup(idx int64, key []Value) int32 {
	pt.keys = append(pt.keys, key)
	pt.addAccs()
	g := int32(len(pt.keys))
	pt.arr[idx] = g
	return g
}

// arraySpan is the largest value range (max − min + 1) of an integer
// GROUP BY column that array grouping takes for a column of count
// non-NULL values: 64 Ki slots always, up to 4 Mi (16 MiB of int32 per
// worker) when the range is at most 4 slots per value, as for a dense
// key.
func arraySpan(count int64) int64 {
	return max(1<<16, min(1<<22, 4*count))
}

// floatKey maps floats that PostgreSQL groups together to one key.
func floatKey(f float64) uint64 {
	if f != f {
		return math.Float64bits(math.NaN())
	}
	if f == 0 {
		return 0
	}
	return math.Float64bits(f)
}

func cellAt(v heap.PageView, c int, k heap.Kind, s int) Value {
	if v.Nulls(c)[s>>6]&(1<<(s&63)) != 0 {
		return Value{Null: true}
	}
	switch kindVK(k) {
	case vInt:
		return Value{K: vInt, I: v.Int64s(c)[s]}
	case vFloat:
		return Value{K: vFloat, F: v.Float64s(c)[s]}
	case vNumeric:
		return numValue(numAt(v, c, s, v.Exceptions(c)))
	}
	return Value{K: vText, S: string(v.Text(c, s))}
}

// encodeKey encodes group values as groupIDs does from a page.
func encodeKey(dst []byte, key []Value) []byte {
	for _, v := range key {
		if v.Null {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, 1)
		switch v.K {
		case vInt:
			dst = binary.BigEndian.AppendUint64(dst, uint64(v.I))
		case vFloat:
			dst = binary.BigEndian.AppendUint64(dst, floatKey(v.F))
		case vNumeric:
			dst = numKey(dst, valueNumv(v))
		case vText:
			dst = binary.BigEndian.AppendUint32(dst, uint32(len(v.S)))
			dst = append(dst, v.S...)
		}
	}
	return dst
}

// final turns a state into the aggregate's PostgreSQL value.
func final(a boundAgg, x *acc) (Value, error) {
	if a.fn == "count" {
		return Value{K: vInt, I: x.n}, nil
	}
	if x.n == 0 {
		return Value{Null: true}, nil
	}
	vk := kindVK(a.kind)
	if (a.fn == "min" || a.fn == "max") && x.mixed {
		return Value{}, errMinMaxTies(a.fn) // minmaxties.go
	}
	if vk == vNumeric {
		switch a.fn {
		case "min", "max":
			return numValue(x.nx.best), nil
		case "sum":
			return numValue(x.nx.total()), nil
		case "avg":
			return x.nx.avg(x.n), nil
		}
	}
	switch a.fn {
	case "min", "max":
		return Value{K: vk, I: x.mi, F: x.mf, S: x.ms}, nil
	case "sum":
		if vk == vFloat {
			if a.kind == heap.KindFloat4 {
				if err := x.fg.Check("sum", 24); err != nil {
					return Value{}, err
				}
				return Value{K: vFloat, F: float64(x.f32)}, nil
			}
			if err := x.fg.Check("sum", 53); err != nil {
				return Value{}, err
			}
			return Value{K: vFloat, F: x.f64}, nil
		}
		if a.kind == heap.KindInt8 {
			return Value{K: vNumeric, Num: x.si.Big()}, nil
		}
		b := x.si.Big()
		if !b.IsInt64() {
			return Value{}, fmt.Errorf("sum(%s): bigint out of range", a.kind)
		}
		return Value{K: vInt, I: b.Int64()}, nil
	case "avg":
		if vk == vFloat {
			if err := x.fg.Check("avg", 53); err != nil {
				return Value{}, err
			}
			return Value{K: vFloat, F: x.f64 / float64(x.n)}, nil
		}
		return numericDiv(x.si.Big(), 0, x.n), nil
	}
	return Value{}, fmt.Errorf("unknown aggregate %q", a.fn)
}

// selectPage is the selection of page v (rs's pi-th page): its live
// slots, within rs's mask for it, that where (nil: all) accepts. live is
// reused as the live-slot buffer (returned for the next page) and ar is
// reset for v; sel is valid until either is used again.
func selectPage(v heap.PageView, rs *restriction, pi int, where *node, live []uint64, ar *arena) (sel, buf []uint64) {
	slots := v.Slots()
	words := (slots + 63) / 64
	ar.reset(words)
	live = append(live[:0], v.Live()[:words]...)
	if r := slots & 63; r != 0 {
		live[words-1] &= 1<<r - 1
	}
	if rs.masks != nil {
		m := rs.masks[pi]
		for w := range live {
			if w < len(m) {
				live[w] &= m[w]
			} else {
				live[w] = 0
			}
		}
	}
	sel = live
	if where != nil {
		sel, _ = eval(where, v, live, ar)
	}
	return sel, live
}
