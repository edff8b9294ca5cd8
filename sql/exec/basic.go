package exec

import (
	"errors"
	"fmt"
	"hash/maphash"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// rowSet is a materialized relation (rows in order) whose bytes are
// accounted in the env.
type rowSet struct {
	rows  [][]types.Value
	bytes int64
}

// memAcct is the memory one run of an operator holds: given back when
// the run ends (an operator inside a correlated subquery runs often).
type memAcct struct {
	e *env
	n int64
}

func (m *memAcct) grow(op string, n int64) error {
	m.n += n
	return m.e.grow(op, n)
}

func (m *memAcct) done() { m.e.release(m.n); m.n = 0 }

// valueBytes estimates the memory one value holds: its interface slot
// (16 bytes) and what the interface points to, as the Go heap holds them
// (an int64 or float64 is boxed in 8 bytes, a string in a 16-byte header
// and its bytes rounded to 8). Measured against runtime.MemStats in
// session 5: int64 25 B a value, a 20-byte text 58 B, numeric 74 B (the
// estimate was 16, 36 and 71 before: a held table was under-counted by
// about a third).
func valueBytes(v types.Value) int64 {
	switch x := v.(type) {
	case nil, bool:
		return 16
	case string:
		return 32 + (int64(len(x))+7)&^7
	case []byte:
		return 40 + (int64(len(x))+7)&^7
	case *types.Decimal:
		return 64 + int64(len(x.V.Bits()))*8
	case types.EnumVal:
		return 40 + (int64(len(x.Label))+7)&^7
	case *types.Array:
		n := int64(48)
		for _, e := range x.Elems {
			n += 16 + valueBytes(e)
		}
		return n
	}
	return 24
}

func rowBytes(r []types.Value) int64 {
	n := int64(24)
	for _, v := range r {
		n += valueBytes(v)
	}
	return n
}

// add appends r, accounting it to operator op.
func (s *rowSet) add(e *env, op string, r []types.Value) error {
	n := rowBytes(r)
	if err := e.grow(op, n); err != nil {
		return err
	}
	s.bytes += n
	s.rows = append(s.rows, r)
	return nil
}

// collect runs op and keeps its rows.
func (e *env) collect(op operator, name string) (*rowSet, error) {
	s := &rowSet{}
	err := op.run(func(b *Batch) error {
		for i := 0; i < b.N; i++ {
			if err := s.add(e, name, b.Row(i)); err != nil {
				return err
			}
		}
		return nil
	})
	return s, err
}

// emitRows pushes rows as batches.
func (e *env) emitRows(rows [][]types.Value, width int, emit func(*Batch) error) error {
	for start := 0; start < len(rows); start += BatchSize {
		if err := e.check(); err != nil {
			return err
		}
		end := min(start+BatchSize, len(rows))
		b := &Batch{N: end - start, Vecs: make([][]types.Value, width)}
		for c := range b.Vecs {
			v := make([]types.Value, b.N)
			for i := range v {
				v[i] = rows[start+i][c]
			}
			b.Vecs[c] = v
		}
		if err := emit(b); err != nil {
			return err
		}
	}
	return nil
}

// allRows is the selection of every row of a batch.
func allRows(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// scanOp reads a table, decoding the columns it produces from their
// stored text through types.In, in batches; its filter runs per batch.
type scanOp struct {
	e      *env
	s      *plan.Scan
	filter vexpr
	// late is filter split for a LateSource (nil: none, or not splittable).
	late *LateFilter
	// keySteps are the key filters of the hash joins above running
	// this scan on their probe side (joinfilter.go), outermost first.
	keySteps []lateStep
	// repeat: the scan is inside a correlated subquery and runs once per
	// outer value: its decoded rows are kept (cache, while they fit in a
	// quarter of the working memory) and, when its filter has a conjunct
	// own column = outer column, indexed by that column.
	repeat bool
	// transient: the operator reading the scan keeps no batch of it past
	// its call (streamInput): the source may reuse them (ScanRequest.Reuse).
	transient bool
	cache     []*Batch
	noCache   bool
	keyReads  int           // runs that read the outer value's key range (scan_outerkey.go)
	idxCol    int           // vector of the indexed column (-1: none)
	idxOut    plan.ColumnID // the outer column it equals
	idxOID    plan.OID      // their type
	index     map[uint64][]int32
	rowAt     [][2]int32 // row number → batch, row
	seed      maphash.Seed

	// partial: the hash aggregation reading the scan, offered to the
	// source's workers (ScanRequest.Partial; aggpartial.go).
	partial *PartialAgg
	// small: the vectors asked of the source typed for the joins and
	// aggregation above (ScanRequest.Small; joinvec.go).
	small []bool
	// sorted: for a scan in key order, the scan under a sort on the key
	// that runs when the source cannot read in key order; want: the rows
	// a LIMIT above needs (0: unknown) (scan_ordered.go).
	sorted *sortOp
	want   int64
	skip   int64 // the rows of the key order to pass over (a LIMIT's OFFSET)
}

func (e *env) buildScan(s *plan.Scan) (operator, error) {
	op := &scanOp{e: e, s: s, repeat: len(e.outerOK) > 0, idxCol: -1}
	e.countScan(s.Table) // scan_share.go
	for i, id := range s.Cols {
		t := e.md.Column(id).Type
		if t.OID == plan.Record || !types.Known(t.OID) && !enumColumn(s, i, t) { // enum.go: an enum's labels are read
			return nil, unsupported("a column of type " + t.String())
		}
	}
	if s.Filter != nil {
		c := &compiler{e: e, lay: layoutOf(s.Cols)}
		f, err := c.quals(s.Filter) // qualorder.go: PostgreSQL's order
		if err != nil {
			return nil, err
		}
		op.filter = f
		if op.late, err = e.lateFilter(s); err != nil {
			return nil, err
		}
		if op.repeat {
			op.findIndex()
		}
	}
	if s.Order != plan.NoKeyOrder {
		if err := e.keyOrderFallback(op); err != nil { // scan_ordered.go
			return nil, err
		}
	}
	return op, nil
}

// streamInput marks op, when it is a scan, as read by an operator that
// keeps no batch of it, nor a batch's vectors, once its call returns:
// the values it keeps it copies (a hash join's build and probe, a hash
// aggregation). Its source may then refill the same batches
// (ScanRequest.Reuse).
func streamInput(op operator) {
	if s, ok := op.(*scanOp); ok {
		s.transient = true
	}
}

// findIndex picks a filter conjunct own column = outer column of one
// type for the cached scan's index.
func (s *scanOp) findIndex() {
	lay := layoutOf(s.s.Cols)
	for _, p := range plan.Conjuncts(s.s.Filter) {
		o, ok := p.(*plan.Op)
		if !ok || o.Op != "=" || len(o.Args) != 2 {
			continue
		}
		a, ok1 := o.Args[0].(*plan.ColRef)
		b, ok2 := o.Args[1].(*plan.ColRef)
		if !ok1 || !ok2 {
			continue
		}
		if _, own := lay[b.ID]; own {
			a, b = b, a
		}
		idx, own := lay[a.ID]
		if !own || !s.e.outerOK[b.ID] || a.T.OID != b.T.OID || !types.Orderable(a.T.OID) {
			continue
		}
		s.idxCol, s.idxOut, s.idxOID = idx, b.ID, a.T.OID
		return
	}
}

// runCached serves a repeated scan from its cache (ok=false: the rows
// do not fit; read the table).
func (s *scanOp) runCached(emit func(*Batch) error) (bool, error) {
	e := s.e
	if s.cache == nil {
		var held int64
		budget := e.limit / 4
		var batches []*Batch
		saved, transient := s.filter, s.transient
		s.filter, s.repeat, s.transient = nil, false, false // the cache keeps the batches
		err := s.run(func(b *Batch) error {
			n := int64(0)
			for _, v := range b.Vecs {
				for _, x := range v[:b.N] {
					n += valueBytes(x)
				}
			}
			if held+n > budget {
				return errTooBig
			}
			if err := e.grow("a scan inside a correlated subquery", n); err != nil {
				return err
			}
			held += n
			batches = append(batches, b)
			return nil
		})
		s.filter, s.repeat, s.transient = saved, true, transient
		if err != nil {
			e.release(held)
			if err == errTooBig {
				s.noCache = true
				return false, nil
			}
			return true, err
		}
		s.cache = batches
		if s.idxCol >= 0 {
			seed := maphash.MakeSeed()
			s.index = map[uint64][]int32{}
			for bi, b := range s.cache {
				for i := 0; i < b.N; i++ {
					v := b.Vecs[s.idxCol][i]
					if v == nil {
						continue
					}
					h := types.Hash(seed, s.idxOID, v)
					s.index[h] = append(s.index[h], int32(len(s.rowAt)))
					s.rowAt = append(s.rowAt, [2]int32{int32(bi), int32(i)})
				}
			}
			s.seed = seed
		}
	}
	if s.index != nil {
		v := e.outer[s.idxOut]
		if v == nil {
			return true, nil // = NULL is never true
		}
		var rows [][]types.Value
		for _, r := range s.index[types.Hash(s.seed, s.idxOID, v)] {
			at := s.rowAt[r]
			b := s.cache[at[0]]
			if types.Compare(s.idxOID, b.Vecs[s.idxCol][at[1]], v) == 0 {
				rows = append(rows, b.Row(int(at[1])))
			}
		}
		return true, e.emitRows(rows, len(s.s.Cols), func(b *Batch) error {
			out, err := filterBatch(b, s.filter)
			if err != nil || out.N == 0 {
				return err
			}
			return emit(out)
		})
	}
	for _, b := range s.cache {
		if err := e.check(); err != nil {
			return true, err
		}
		if s.filter == nil {
			if err := emit(b); err != nil {
				return true, err
			}
			continue
		}
		out, err := filterBatch(b, s.filter)
		if err != nil {
			return true, err
		}
		if out.N > 0 {
			if err := emit(out); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

// errTooBig stops filling a scan cache that would not fit.
var errTooBig = errors.New("scan cache too big")

func (s *scanOp) cols() []plan.ColumnID { return s.s.Cols }

func (s *scanOp) run(emit func(*Batch) error) error {
	e := s.e
	if s.s.Order != plan.NoKeyOrder {
		return s.runKeyOrder(emit) // scan_ordered.go
	}
	if s.repeat && !s.noCache {
		if s.readOuterKey() { // scan_outerkey.go: this run reads the outer value's key range
			s.noCache = true
			defer func() { s.noCache = false }()
		} else if done, err := s.runCached(emit); done {
			return err
		}
	}
	if done, err := s.runTyped(emit); done {
		return err
	}
	cols := s.s.Cols
	oids := make([]plan.OID, len(cols))
	for i, id := range cols {
		oids[i] = e.md.Column(id).Type.OID
	}
	newBatch := func() *Batch {
		b := &Batch{Vecs: make([][]types.Value, len(cols))}
		for c := range b.Vecs {
			b.Vecs[c] = make([]types.Value, BatchSize)
		}
		return b
	}
	b := newBatch()
	flush := func() error {
		if b.N == 0 {
			return nil
		}
		if err := s.emitFiltered(b, emit); err != nil {
			return err
		}
		b = newBatch()
		return nil
	}
	err := e.src.Scan(e.ctx, s.s.Table, func(row []*string) error {
		for c, ord := range s.s.Ords {
			if ord >= len(row) || row[ord] == nil {
				b.Vecs[c][b.N] = nil
				continue
			}
			v, err := DecodeColumn(&s.s.Table.Columns[ord], oids[c], *row[ord]) // enum.go
			if err != nil {
				return fmt.Errorf("decode %s.%s: %w", s.s.Table.Name, s.s.Table.Columns[ord].Name, err)
			}
			b.Vecs[c][b.N] = v
		}
		b.N++
		if b.N == BatchSize {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// filterBatch keeps the rows of b pred is true for.
func filterBatch(b *Batch, pred vexpr) (*Batch, error) {
	res := make([]types.Value, b.N)
	if err := pred(b, allRows(b.N), res); err != nil {
		return nil, rowMajorError(b, []vexpr{pred}, err) // errorder.go
	}
	keep := make([]int, 0, b.N)
	for i := 0; i < b.N; i++ {
		if t, ok := res[i].(bool); ok && t {
			keep = append(keep, i)
		}
	}
	if len(keep) == b.N {
		return b, nil
	}
	return pick(b, keep), nil
}

// filterOp keeps the rows its predicate is true for.
type filterOp struct {
	in   operator
	pred vexpr
	src  plan.Scalar // pred as planned (a partial aggregation's worker compiles it again: aggpipe.go)
}

func (e *env) newFilter(in operator, pred plan.Scalar) (operator, error) {
	c := &compiler{e: e, lay: layoutOf(in.cols())}
	f, err := c.quals(pred) // qualorder.go
	if err != nil {
		return nil, err
	}
	return &filterOp{in: in, pred: f, src: pred}, nil
}

func (f *filterOp) cols() []plan.ColumnID { return f.in.cols() }

// gateOp is PostgreSQL's One-Time Filter (plan.Filter.Gate): its
// predicate reads no column of the input, and is evaluated once each
// time the operator runs, before the input: an error in it (a scalar
// subquery returning two rows) is raised even when the input has no
// rows, and unless it is true the input does not run at all.
type gateOp struct {
	in   operator
	pred vexpr
}

func (e *env) newGate(in operator, pred plan.Scalar) (operator, error) {
	c := &compiler{e: e, lay: layout{}}
	f, err := c.quals(pred) // qualorder.go
	if err != nil {
		return nil, err
	}
	return &gateOp{in: in, pred: f}, nil
}

func (g *gateOp) cols() []plan.ColumnID { return g.in.cols() }

func (g *gateOp) run(emit func(*Batch) error) error {
	res := make([]types.Value, 1)
	if err := g.pred(&Batch{N: 1}, []int{0}, res); err != nil {
		return err
	}
	if t, ok := res[0].(bool); !ok || !t {
		return nil
	}
	return g.in.run(emit)
}

func (f *filterOp) run(emit func(*Batch) error) error {
	return f.in.run(func(b *Batch) error {
		out, err := filterBatch(b, f.pred)
		if err != nil || out.N == 0 {
			return err
		}
		return emit(out)
	})
}

// projectOp computes one vector per output expression.
type projectOp struct {
	in    operator
	out   []plan.ColumnID
	exprs []vexpr
	src   []plan.Scalar // exprs as planned (aggpipe.go)
}

func (e *env) newProject(in operator, cols []plan.ColumnID, exprs []plan.Scalar) (operator, error) {
	c := &compiler{e: e, lay: layoutOf(in.cols())}
	p := &projectOp{in: in, out: cols, src: exprs}
	for _, x := range exprs {
		f, err := c.compile(x)
		if err != nil {
			return nil, err
		}
		p.exprs = append(p.exprs, f)
	}
	return p, nil
}

func (p *projectOp) cols() []plan.ColumnID { return p.out }

func (p *projectOp) run(emit func(*Batch) error) error {
	return p.in.run(func(b *Batch) error {
		out, err := projectBatch(b, p.exprs)
		if err != nil {
			return err
		}
		return emit(out)
	})
}

// projectBatch is a new batch of one vector per expression over b's rows.
func projectBatch(b *Batch, exprs []vexpr) (*Batch, error) {
	out := &Batch{N: b.N, Vecs: make([][]types.Value, len(exprs))}
	sel := allRows(b.N)
	for k, x := range exprs {
		v := make([]types.Value, b.N)
		if err := x(b, sel, v); err != nil {
			return nil, rowMajorError(b, exprs, err) // errorder.go
		}
		out.Vecs[k] = v
	}
	return out, nil
}

// valuesOp is VALUES (and SELECT without FROM: one row).
type valuesOp struct {
	e    *env
	v    *plan.Values
	rows [][]vexpr
}

func (e *env) buildValues(v *plan.Values) (operator, error) {
	op := &valuesOp{e: e, v: v}
	c := &compiler{e: e, lay: layout{}}
	for _, r := range v.Rows {
		var row []vexpr
		for k, x := range r {
			f, err := c.compile(x)
			if err != nil {
				return nil, err
			}
			if t := e.md.Column(v.Cols[k]).Type; x.Type().OID != t.OID && x.Type().OID != plan.Unknown {
				f = c.castTo(f, x.Type(), t)
			}
			row = append(row, f)
		}
		op.rows = append(op.rows, row)
	}
	return op, nil
}

func (v *valuesOp) cols() []plan.ColumnID { return v.v.Cols }

func (v *valuesOp) run(emit func(*Batch) error) error {
	one := &Batch{N: 1}
	sel := []int{0}
	var rows [][]types.Value
	for _, r := range v.rows {
		row := make([]types.Value, len(r))
		for k, f := range r {
			out := make([]types.Value, 1)
			if err := f(one, sel, out); err != nil {
				return err
			}
			row[k] = out[0]
		}
		rows = append(rows, row)
	}
	return v.e.emitRows(rows, len(v.v.Cols), emit)
}

// limitOp skips Offset rows and passes at most Count.
type limitOp struct {
	e             *env
	in            operator
	count, offset vexpr
	top           *sortOp // the Sort right below, bounded on each run
	ties          []winKey
	// check: whether the rows kept must be shown not to depend on the
	// order the input arrives in (limitorder.go); oids are the input's
	// column types.
	check bool
	oids  []plan.OID
	// tieSrc: the Sort or Window under projections below (no top-N: a
	// Sort right below is top), whose flags tell tied rows apart.
	tieSrc tieFlagger
	// unsure: an error from the input may be on a row PostgreSQL's plan
	// never reads (limiterr.go).
	unsure bool
	// keyScan: the scan in key order under projections below, told the
	// rows the cut needs (scan_ordered.go).
	keyScan *scanOp
}

func (e *env) buildLimit(l *plan.Limit) (operator, error) {
	in, err := e.build(l.Input)
	if err != nil {
		return nil, err
	}
	op := &limitOp{e: e, in: in}
	op.top, _ = in.(*sortOp) // top-N: the sort keeps Count+Offset rows (topn.go)
	if len(l.Ties) > 0 {
		if op.top == nil {
			return nil, unsupported("FETCH … WITH TIES over this input")
		}
		lay := layoutOf(in.cols())
		for _, k := range l.Ties {
			idx, ok := lay[k.Col]
			if !ok {
				return nil, unsupported("FETCH … WITH TIES over this input")
			}
			op.ties = append(op.ties, winKey{idx, e.md.Column(k.Col).Type.OID, k.Desc, k.NullsFirst, nil})
		}
		op.top = nil // the rows tied with the last one are past any bound
	}
	op.keyScan = keyOrderedScan(in)                                                                                           // scan_ordered.go
	if len(l.Ties) == 0 && !pgOrdered(l.Input, nil) && !catalogOnly(l.Input) && !alikeRows(l.Input) && !keyOrdered(l.Input) { // limitalike.go
		op.check = true
		for _, id := range in.cols() {
			op.oids = append(op.oids, e.md.Column(id).Type.OID)
		}
		if op.top != nil {
			op.top.oids = op.oids
		} else if src := e.tieSource(in); src != nil {
			op.tieSrc = src
			src.trackTieFlags()
		}
		op.unsure = !readsAll(l.Input)
	}
	c := &compiler{e: e, lay: layout{}}
	if l.Count != nil {
		if op.count, err = c.compile(castInt8(l.Count)); err != nil {
			return nil, err
		}
	}
	if l.Offset != nil {
		if op.offset, err = c.compile(castInt8(l.Offset)); err != nil {
			return nil, err
		}
	}
	return op, nil
}

// castInt8 is s as bigint (LIMIT and OFFSET take bigint).
func castInt8(s plan.Scalar) plan.Scalar {
	if isInt(s.Type().OID) {
		return s
	}
	return &plan.Cast{Arg: s, T: plan.T(plan.Int8)}
}

// scalarOnce evaluates an expression without input columns.
func scalarOnce(f vexpr) (types.Value, error) {
	out := make([]types.Value, 1)
	err := f(&Batch{N: 1}, []int{0}, out)
	return out[0], err
}

func (l *limitOp) cols() []plan.ColumnID { return l.in.cols() }

func (l *limitOp) run(emit func(*Batch) error) error {
	count, offset := int64(-1), int64(0)
	if l.count != nil {
		v, err := scalarOnce(l.count)
		if err != nil {
			return err
		}
		if v != nil {
			if count = v.(int64); count < 0 {
				return &types.Error{Code: "2201W", Message: "LIMIT must not be negative"}
			}
		}
	}
	if l.offset != nil {
		v, err := scalarOnce(l.offset)
		if err != nil {
			return err
		}
		if v != nil {
			if offset = v.(int64); offset < 0 {
				return &types.Error{Code: "2201X", Message: "OFFSET must not be negative"}
			}
		}
	}
	if count == 0 {
		return nil
	}
	if l.top != nil {
		l.top.bound, _ = topNBound(count, offset)
	}
	if l.keyScan != nil {
		l.keyScan.want, _ = topNBound(count, offset)
		offset = l.keyScan.takeOffset(offset) // scan_ordered.go
	}
	if l.unsure && count >= 0 {
		return guardUnread(func(emit func(*Batch) error) error { return l.cut(count, offset, emit) }, emit)
	}
	return l.cut(count, offset, emit)
}

// cut passes on the rows from offset on, at most count of them (count
// < 0: all).
func (l *limitOp) cut(count, offset int64, emit func(*Batch) error) error {
	if l.ties != nil {
		return l.runTies(count, offset, emit)
	}
	if l.check && (offset > 0 || count >= 0) {
		return l.runChecked(count, offset, emit)
	}
	stop := &stopSignal{}
	err := l.in.run(func(b *Batch) error {
		lo := skipOffset(b, &offset)
		hi := b.N
		if count >= 0 && int64(hi-lo) > count {
			hi = lo + int(count)
		}
		if hi > lo {
			if count >= 0 {
				count -= int64(hi - lo)
			}
			if err := emit(slice(b, lo, hi)); err != nil {
				return err
			}
		}
		if count == 0 {
			return stop
		}
		return nil
	})
	if isStop(err, stop) {
		return nil
	}
	return err
}

// runTies is FETCH FIRST count ROWS WITH TIES: after the count-th row,
// the rows equal to it on the ORDER BY keys, up to the first that is not.
func (l *limitOp) runTies(count, offset int64, emit func(*Batch) error) error {
	stop := &stopSignal{}
	var last []types.Value
	err := l.in.run(func(b *Batch) error {
		lo := skipOffset(b, &offset)
		hi := lo
		for ; hi < b.N; hi++ {
			if count == 0 {
				if compareKeys(l.ties, last, b.Row(hi)) != 0 {
					break
				}
				continue
			}
			if count > 0 {
				count--
			}
			if count == 0 {
				last = b.Row(hi)
			}
		}
		if hi > lo {
			if err := emit(slice(b, lo, hi)); err != nil {
				return err
			}
		}
		if hi < b.N {
			return stop
		}
		return nil
	})
	if isStop(err, stop) {
		return nil
	}
	return err
}

// skipOffset is the first row of b past the rows OFFSET still skips
// (*offset, lowered by those of b).
func skipOffset(b *Batch, offset *int64) int {
	skip := min(int64(b.N), *offset)
	*offset -= skip
	return int(skip)
}

// slice is rows [lo, hi) of b.
func slice(b *Batch, lo, hi int) *Batch {
	if lo == 0 && hi == b.N {
		return b
	}
	out := &Batch{N: hi - lo, Vecs: make([][]types.Value, len(b.Vecs))}
	for c, v := range b.Vecs {
		out.Vecs[c] = v[lo:hi]
	}
	return out
}

// cteRefOp reads a CTE, computed once on its first reference.
type cteRefOp struct {
	e   *env
	ref *plan.CTERef
}

func (c *cteRefOp) cols() []plan.ColumnID { return c.ref.Cols }

func (c *cteRefOp) run(emit func(*Batch) error) error {
	e := c.e
	rs := e.ctes[c.ref.CTE]
	if ids := e.cteOuter[c.ref.CTE]; ids != nil {
		// A CTE reading outer columns (ctecorr.go): built while they may
		// be read, its rows kept while their values stay.
		saved := e.outerOK
		e.outerOK = map[plan.ColumnID]bool{}
		for _, id := range ids {
			e.outerOK[id] = true
		}
		defer func() { e.outerOK = saved }()
		if !e.cteCurrent(c.ref.CTE) {
			rs = nil
		}
	}
	if rec := plan.Recursive(c.ref.CTE.Plan); rec != nil && rs == nil && c.ref.CTE.Refs == 1 {
		return e.streamRecursive(c.ref.CTE, emit) // recursive.go: LIMIT may stop it
	}
	if rs == nil {
		op, err := e.build(c.ref.CTE.Plan)
		if err != nil {
			return err
		}
		if rs, err = e.collect(op, "WITH query "+c.ref.CTE.Name); err != nil {
			return err
		}
		e.ctes[c.ref.CTE] = rs
	}
	return e.emitRows(rs.rows, len(c.ref.Cols), emit)
}

// funcScanOp is generate_series(start, stop[, step]) over integers,
// streamed in batches.
type funcScanOp struct {
	e    *env
	f    *plan.FuncScan
	args []vexpr
}

func (e *env) buildFuncScan(f *plan.FuncScan) (operator, error) {
	if f.Name != "generate_series" || f.Ordinality || !isInt(e.md.Column(f.Cols[0]).Type.OID) {
		return e.buildSRF(f) // srf.go
	}
	if f.Name != "generate_series" {
		return nil, unsupported("the function " + f.Name + " in FROM")
	}
	args, err := e.compileFuncArgs(f) // srf.go
	if err != nil {
		return nil, err
	}
	return &funcScanOp{e: e, f: f, args: args}, nil
}

func (f *funcScanOp) cols() []plan.ColumnID { return f.f.Cols }

func (f *funcScanOp) run(emit func(*Batch) error) error {
	vals := make([]int64, 3)
	vals[2] = 1
	for k, a := range f.args {
		v, err := scalarOnce(a)
		if err != nil {
			return err
		}
		if v == nil {
			return nil // strict: no rows
		}
		vals[k] = v.(int64)
	}
	start, stop, step := vals[0], vals[1], vals[2]
	if step == 0 {
		return &types.Error{Code: types.CodeInvalidParam, Message: "step size cannot equal zero"}
	}
	b := &Batch{Vecs: [][]types.Value{make([]types.Value, 0, BatchSize)}}
	for i := start; step > 0 && i <= stop || step < 0 && i >= stop; {
		b.Vecs[0] = append(b.Vecs[0], i)
		if len(b.Vecs[0]) == BatchSize {
			if err := f.e.check(); err != nil {
				return err
			}
			b.N = BatchSize
			if err := emit(b); err != nil {
				return err
			}
			b = &Batch{Vecs: [][]types.Value{make([]types.Value, 0, BatchSize)}}
		}
		next := i + step
		if (step > 0) != (next > i) {
			break // the next value would overflow: the series ends
		}
		i = next
	}
	if b.N = len(b.Vecs[0]); b.N > 0 {
		return emit(b)
	}
	return nil
}
