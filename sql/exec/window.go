package exec

import (
	"math"
	"math/big"
	"slices"
	"sort"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Window functions (plan.Window): the input is materialized (accounted
// against the statement's working memory), sorted by the partition then
// the order keys (stable), cut into partitions and peer groups (rows
// equal on every order key), and each function computed per row over
// its partition and frame as PostgreSQL's nodeWindowAgg defines them.
//
// PostgreSQL's sort does not keep the input order of rows the ORDER BY
// leaves tied, so a function whose value depends on the order among
// peers (row_number, ntile, lag/lead, first/last/nth_value, an
// aggregate over a ROWS frame, a float sum) has no one right answer
// when peers differ: such a statement is refused at run time (0A000)
// rather than answered in another order.

// winKey is a sort key over an input vector.
type winKey struct {
	idx        int
	oid        plan.OID
	desc       bool
	nullsFirst bool
	ord        TextOrder // text order of a text key (collate.go); nil: bytes
}

// winFn is one compiled window function.
type winFn struct {
	f      plan.WinFunc
	args   []int
	filter int // -1: none
	init   func() aggState
	// edge: first/last/nth_value over a frame of whole peer groups: the
	// value is determined when the peer group of the row it picks holds
	// one value (argOID: its type).
	edge   bool
	argOID plan.OID
	// keepNull: the aggregate gets NULL arguments too, as winNull
	// (array_agg, winarray.go).
	keepNull bool
}

type windowOp struct {
	e          *env
	in         operator
	w          *plan.Window
	out        []plan.ColumnID
	width      int
	part       []winKey
	order      []winKey
	funcs      []*winFn
	start, end vexpr // frame offsets
	sensitive  bool  // some function depends on the order among peers
	// slotCols are the input columns a window below over the same
	// partition and order computed (sameWindowBelow): peers may differ
	// in them without making the answer depend on PostgreSQL's sort;
	// and the columns nobody above reads (winneed.go).
	slotCols map[int]bool
	// then: the keys of the sort below past the window's own, which
	// order its peers as PostgreSQL reads them (winneed.go).
	then []winKey
	// trackTies and tieFlags: as sortOp's, for a Limit above reading
	// the window's output in its sort order (limitorder.go).
	trackTies bool
	tieFlags  []bool
}

func (e *env) buildWindow(w *plan.Window) (operator, error) {
	in, err := e.build(w.Input)
	if err != nil {
		return nil, err
	}
	lay := layoutOf(in.cols())
	op := &windowOp{e: e, in: in, w: w, out: w.Columns(), width: len(in.cols())}
	for _, id := range sameWindowBelow(w) {
		if op.slotCols == nil {
			op.slotCols = map[int]bool{}
		}
		op.slotCols[lay[id]] = true
	}
	key := func(id plan.ColumnID, desc, nullsFirst bool) (winKey, error) {
		idx, ok := lay[id]
		t := e.md.Column(id).Type
		if !ok {
			return winKey{}, unsupported("a window over a column its input does not have")
		}
		if !types.Orderable(t.OID) {
			return winKey{}, noOrdering(t, "a window PARTITION BY or ORDER BY of type "+t.String())
		}
		return winKey{idx, t.OID, desc, nullsFirst, e.keyOrder(t.OID)}, nil
	}
	for _, id := range w.Partition {
		k, err := key(id, false, false)
		if err != nil {
			return nil, err
		}
		op.part = append(op.part, k)
	}
	for _, s := range w.Order {
		k, err := key(s.Col, s.Desc, s.NullsFirst)
		if err != nil {
			return nil, err
		}
		op.order = append(op.order, k)
	}
	opts := w.Frame.Options
	rows := opts&plan.FrameRows != 0
	whole := opts&plan.FrameStartUnbounded != 0 && opts&plan.FrameEndUnbounded != 0 && opts&(plan.FrameExcludeCurrent|plan.FrameExcludeTies|plan.FrameExcludeGroup) == 0
	if err := op.narrowPeers(lay, key); err != nil {
		return nil, err
	}
	for _, f := range w.Funcs {
		fn := &winFn{f: f, filter: -1}
		for _, id := range f.Args {
			idx, ok := lay[id]
			if !ok {
				return nil, unsupported("a window function argument its input does not have")
			}
			fn.args = append(fn.args, idx)
		}
		if f.Filter != 0 {
			fn.filter = lay[f.Filter]
		}
		switch f.Name {
		case "first_value", "last_value", "nth_value":
			if rows || opts&(plan.FrameExcludeCurrent|plan.FrameExcludeTies) != 0 {
				op.sensitive = true
			} else {
				fn.edge, fn.argOID = true, e.md.Column(f.Args[0]).Type.OID
			}
		case "row_number", "ntile", "lag", "lead":
			op.sensitive = true
		case "rank", "dense_rank", "percent_rank", "cume_dist":
		case "array_agg": // winarray.go
			elem := e.md.Column(f.Args[0]).Type.OID
			fn.init, fn.keepNull, op.sensitive = func() aggState { return &winArrayAgg{elem: elem} }, true, true
		default:
			argT := plan.OID(0)
			if len(f.Args) > 0 {
				argT = e.md.Column(f.Args[0]).Type.OID
			}
			if fn.init, err = aggInit(f.Name, argT, f.T.OID, f.Star); err == nil {
				fn.init = inFrameOrder(e.collatedInit(fn.init)) // minmaxties.go
			} else {
				return nil, err
			}
			float := argT == plan.Float4 || argT == plan.Float8
			if rows && !whole || float && (f.Name == "sum" || f.Name == "avg" || libAggFloat(f.Name)) {
				op.sensitive = true
			}
		}
		op.funcs = append(op.funcs, fn)
	}
	c := &compiler{e: e, lay: layout{}}
	if w.Frame.Start != nil {
		if op.start, err = c.compile(w.Frame.Start); err != nil {
			return nil, err
		}
	}
	if w.Frame.End != nil {
		if op.end, err = c.compile(w.Frame.End); err != nil {
			return nil, err
		}
	}
	return op, nil
}

func (w *windowOp) cols() []plan.ColumnID { return w.out }

// compareKeys orders rows a and b by keys (NULLs as each key says).
func compareKeys(keys []winKey, a, b []types.Value) int {
	for _, k := range keys {
		x, y := a[k.idx], b[k.idx]
		if x == nil || y == nil {
			if c := nullOrder(x == nil, y == nil, k.nullsFirst); c != 0 {
				return c
			}
			continue
		}
		c := compareIn(k.ord, k.oid, x, y)
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func (w *windowOp) run(emit func(*Batch) error) error {
	e := w.e
	if e.tempDir != "" {
		return w.runSpilling(emit) // winspill.go
	}
	rs, err := e.collect(w.in, "window")
	if err != nil {
		return err
	}
	return w.runRows(rs, emit)
}

// runRows is the window over the rows of rs, held in memory.
func (w *windowOp) runRows(rs *rowSet, emit func(*Batch) error) error {
	e := w.e
	defer e.release(rs.bytes)
	mem := &memAcct{e: e}
	defer mem.done()
	if err := e.check(); err != nil {
		return err
	}
	keys := append(append([]winKey(nil), w.part...), w.order...)
	slices.SortStableFunc(rs.rows, func(a, b []types.Value) int { return compareKeys(keys, a, b) })
	rows := rs.rows
	f := &frameCalc{w: w}
	for ps := 0; ps < len(rows); {
		pe := ps + 1
		for pe < len(rows) && compareKeys(w.part, rows[ps], rows[pe]) == 0 {
			pe++
		}
		if err := w.computePartition(f, func(n int64) error { return mem.grow("window", n) }, rows[ps:pe], nil); err != nil {
			return err
		}
		ps = pe
	}
	if w.trackTies {
		emit = w.flagTies(keys, emit) // limitorder.go
	}
	return e.emitRows(rows, len(w.out), emit)
}

// computePartition computes the functions over rows, one partition
// (with carry, one chunk of whole peer groups of a partition too large
// to hold: winspill.go), appending their values to each row (each
// row's values charged by grow).
func (w *windowOp) computePartition(f *frameCalc, grow func(n int64) error, rows [][]types.Value, carry *winCarry) error {
	if err := w.e.check(); err != nil {
		return err
	}
	if err := f.partition(rows); err != nil {
		return err
	}
	res := make([][]types.Value, len(rows))
	for i := range res {
		res[i] = make([]types.Value, 0, len(w.funcs))
	}
	for k, fn := range w.funcs {
		var vals []types.Value
		var err error
		if carry != nil {
			vals, err = f.computeChunk(fn, k, carry)
		} else {
			vals, err = f.compute(fn)
		}
		if err != nil {
			return err
		}
		for i, v := range vals {
			res[i] = append(res[i], v)
		}
	}
	for i := range res {
		if err := grow(rowBytes(res[i])); err != nil {
			return err
		}
		rows[i] = append(rows[i][:w.width:w.width], res[i]...)
	}
	return nil
}

// frameCalc computes one partition's functions.
type frameCalc struct {
	w    *windowOp
	rows [][]types.Value
	grp  []int // peer group of each row
	gs   []int // start row of each group
	ge   []int // end row (exclusive) of each group
	// offsets, evaluated at the first partition
	offDone          bool
	startOff, endOff types.Value
}

// notDetermined refuses a function whose value depends on the order
// PostgreSQL's sort leaves peers in.
var notDetermined = &types.Error{Code: types.CodeUnsupported,
	Message: "not supported yet: a window function whose value depends on the order of rows its ORDER BY leaves tied (PostgreSQL's sort decides it)"}

func (f *frameCalc) partition(rows [][]types.Value) error {
	f.rows = rows
	f.grp = make([]int, len(rows))
	f.gs, f.ge = f.gs[:0], f.ge[:0]
	for i := range rows {
		if i == 0 || compareKeys(f.w.order, rows[i-1], rows[i]) != 0 {
			if i > 0 {
				f.ge = append(f.ge, i)
			}
			f.gs = append(f.gs, i)
		}
		f.grp[i] = len(f.gs) - 1
	}
	f.ge = append(f.ge, len(rows))
	if f.w.sensitive {
		for g := range f.gs {
			first := f.gs[g]
			for i := f.gs[g] + 1; i < f.ge[g]; i++ {
				if f.w.then != nil && compareKeys(f.w.then, rows[i-1], rows[i]) != 0 {
					first = i // ordered by the sort below (winneed.go)
					continue
				}
				if !sameRow(rows[first], rows[i], f.w) {
					return notDetermined
				}
			}
		}
	}
	if !f.offDone {
		f.offDone = true
		var err error
		if f.startOff, err = f.offset(f.w.start, "starting"); err != nil {
			return err
		}
		if f.endOff, err = f.offset(f.w.end, "ending"); err != nil {
			return err
		}
	}
	return nil
}

// sameRow says whether two input rows are identical (as PostgreSQL
// would print them), so their order cannot matter.
func sameRow(a, b []types.Value, w *windowOp) bool {
	cols := w.in.cols()
	for c := 0; c < w.width; c++ {
		if w.slotCols[c] {
			continue
		}
		x, y := a[c], b[c]
		if (x == nil) != (y == nil) {
			return false
		}
		if x != nil {
			oid := w.e.md.Column(cols[c]).Type.OID
			if types.Out(oid, x) != types.Out(oid, y) {
				return false
			}
		}
	}
	return true
}

// sameWindowBelow is the function columns of the window w reads when
// that window (under projections that only pass columns on) has w's
// partition and order: PostgreSQL runs the two over one sort, as the
// executor does (its sort is stable), so they see the rows in the same
// order. When every other column is equal among a peer group's rows,
// the rows at each position of the group are the same whichever order
// PostgreSQL's sort leaves them in — the window below's values
// included, as they are computed over those rows (it refuses itself
// when its own values depend on an order its input does not fix).
func sameWindowBelow(w *plan.Window) []plan.ColumnID {
	in := w.Input
	for {
		p, ok := in.(*plan.Project)
		if !ok {
			break
		}
		for i, x := range p.Exprs {
			if c, ok := x.(*plan.ColRef); !ok || c.ID != p.Cols[i] {
				return nil
			}
		}
		in = p.Input
	}
	below, ok := in.(*plan.Window)
	if !ok || !slices.Equal(below.Partition, w.Partition) || !slices.Equal(below.Order, w.Order) {
		return nil
	}
	var out []plan.ColumnID
	for _, f := range below.Funcs {
		out = append(out, f.Col)
	}
	return append(out, sameWindowBelow(below)...)
}

// offset evaluates a frame offset (NULL and, for ROWS and GROUPS,
// negative offsets are PostgreSQL's errors).
func (f *frameCalc) offset(x vexpr, which string) (types.Value, error) {
	if x == nil {
		return nil, nil
	}
	v, err := scalarOnce(x)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, &types.Error{Code: "22004", Message: "frame " + which + " offset must not be null"}
	}
	if f.w.w.Frame.Options&plan.FrameRange == 0 {
		if v.(int64) < 0 {
			return nil, &types.Error{Code: "22013", Message: "frame " + which + " offset must not be negative"}
		}
		return v, nil
	}
	neg := false
	switch x := v.(type) {
	case int64:
		neg = x < 0
	case float64:
		neg = math.IsNaN(x) || x < 0
	case *types.Decimal:
		neg = x.NaN || x.Inf < 0 || x.Inf == 0 && x.V.Sign() < 0
	case types.IntervalVal:
		neg = types.Compare(plan.Interval, x, types.IntervalVal{}) < 0
		if f.w.order[0].oid == plan.Time {
			neg = x.Micros < 0 // in_range_time_interval reads only the time part
		}
	}
	if neg {
		return nil, &types.Error{Code: "22013", Message: "invalid preceding or following size in window function"}
	}
	return v, nil
}

// segment is a run of rows [lo, hi) of a frame.
type segment struct{ lo, hi int }

// frame is row i's frame, after its exclusion.
func (f *frameCalc) frame(i int) ([]segment, error) {
	opts := f.w.w.Frame.Options
	n := len(f.rows)
	g := f.grp[i]
	s, e := 0, n
	var err error
	switch {
	case opts&plan.FrameStartCurrent != 0:
		s = i
		if opts&plan.FrameRows == 0 {
			s = f.gs[g]
		}
	case opts&(plan.FrameStartPreceding|plan.FrameStartFollowing) != 0:
		if s, err = f.bound(i, true, opts&plan.FrameStartPreceding != 0); err != nil {
			return nil, err
		}
	}
	switch {
	case opts&plan.FrameEndCurrent != 0:
		e = i + 1
		if opts&plan.FrameRows == 0 {
			e = f.ge[g]
		}
	case opts&(plan.FrameEndPreceding|plan.FrameEndFollowing) != 0:
		if e, err = f.bound(i, false, opts&plan.FrameEndPreceding != 0); err != nil {
			return nil, err
		}
	}
	if e < s {
		e = s
	}
	clip := func(lo, hi int) segment { return segment{max(lo, s), max(min(hi, e), max(lo, s))} }
	switch {
	case opts&plan.FrameExcludeCurrent != 0:
		return []segment{clip(s, i), clip(i+1, e)}, nil
	case opts&plan.FrameExcludeGroup != 0:
		return []segment{clip(s, f.gs[g]), clip(f.ge[g], e)}, nil
	case opts&plan.FrameExcludeTies != 0:
		return []segment{clip(s, f.gs[g]), clip(i, i+1), clip(f.ge[g], e)}, nil
	}
	return []segment{{s, e}}, nil
}

// bound is an offset bound's row: for a start bound the first row of
// the frame, for an end bound one past its last.
func (f *frameCalc) bound(i int, start, preceding bool) (int, error) {
	opts := f.w.w.Frame.Options
	n := len(f.rows)
	off := f.endOff
	if start {
		off = f.startOff
	}
	clampRow := func(x int64) int { return int(max(0, min(x, int64(n)))) }
	switch {
	case opts&plan.FrameRows != 0:
		o := off.(int64)
		if preceding {
			o = -o
		}
		pos := addSat(int64(i), o)
		if !start {
			pos = addSat(pos, 1)
		}
		return clampRow(pos), nil
	case opts&plan.FrameGroups != 0:
		o := off.(int64)
		if preceding {
			o = -o
		}
		g := addSat(int64(f.grp[i]), o)
		last := int64(len(f.gs) - 1)
		switch {
		case g < 0:
			return 0, nil
		case g > last:
			return n, nil
		case start:
			return f.gs[g], nil
		}
		return f.ge[g], nil
	}
	return f.rangeBound(i, off, start, preceding)
}

// addSat is a+b saturated at the int64 range.
func addSat(a, b int64) int64 {
	s := a + b
	if b > 0 && s < a {
		return math.MaxInt64
	}
	if b < 0 && s > a {
		return math.MinInt64
	}
	return s
}

// rangeBound is a RANGE offset bound: the rows whose ORDER BY value is
// within the offset of row i's (a NULL row's frame bound is its peer
// group's; NULLs are never within an offset of a value).
func (f *frameCalc) rangeBound(i int, off types.Value, start, preceding bool) (int, error) {
	k := f.w.order[0]
	v := f.rows[i][k.idx]
	if v == nil {
		if start {
			return f.gs[f.grp[i]], nil
		}
		return f.ge[f.grp[i]], nil
	}
	// The non-NULL rows, sorted by value (descending when desc).
	lo, hi := 0, len(f.rows)
	for lo < hi && f.rows[lo][k.idx] == nil {
		lo++
	}
	for hi > lo && f.rows[hi-1][k.idx] == nil {
		hi--
	}
	// As nodeWindowAgg: PRECEDING subtracts in ascending order, adds in
	// descending; a start bound is the first row in range, an end bound
	// one past the last.
	sub := preceding != k.desc
	less := k.desc != !start
	var rangeErr error
	in := func(j int) bool {
		ok, err := inRange(k.oid, f.rows[j][k.idx], v, off, sub, less, f.w.zone())
		if err != nil && rangeErr == nil {
			rangeErr = err
		}
		return ok
	}
	if start {
		return lo + sort.Search(hi-lo, func(j int) bool { return in(lo + j) }), rangeErr
	}
	return lo + sort.Search(hi-lo, func(j int) bool { return !in(lo + j) }), rangeErr
}

// inRange is PostgreSQL's in_range support function for the ORDER BY
// key's type: whether val <= base ± off (less) or val >= base ± off,
// exact (a bound past an integer type's range is infinitely far; NaN
// sorts after every number; an infinite bound that would be NaN lets
// every value in). z is the session's zone: a timestamptz key's bound is
// timestamptz_pl_interval's, whose days and months move the local time.
func inRange(oid plan.OID, val, base, off types.Value, sub, less bool, z *types.Zone) (bool, error) {
	cmpRes := func(c int) bool {
		if less {
			return c <= 0
		}
		return c >= 0
	}
	switch b := base.(type) {
	case int64:
		x, y := new(big.Int).SetInt64(b), new(big.Int).SetInt64(off.(int64))
		if sub {
			x.Sub(x, y)
		} else {
			x.Add(x, y)
		}
		return cmpRes(new(big.Int).SetInt64(val.(int64)).Cmp(x)), nil
	case float64:
		v, o := val.(float64), off.(float64)
		switch {
		case math.IsNaN(v) && math.IsNaN(b):
			return true, nil
		case math.IsNaN(v):
			return !less, nil
		case math.IsNaN(b):
			return less, nil
		case math.IsInf(o, 0) && math.IsInf(b, 0) && (sub && b > 0 || !sub && b < 0):
			return true, nil
		}
		sum := b + o
		if sub {
			sum = b - o
		}
		if less {
			return v <= sum, nil
		}
		return v >= sum, nil
	case *types.Decimal:
		v, o := val.(*types.Decimal), off.(*types.Decimal)
		switch {
		case v.NaN && b.NaN:
			return true, nil
		case v.NaN:
			return !less, nil
		case b.NaN:
			return less, nil
		case o.Inf > 0:
			// An infinite offset (PostgreSQL's in_range_numeric): when
			// base ± offset would be NaN every value is in; otherwise the
			// bound is -Infinity or +Infinity.
			switch {
			case sub && b.Inf > 0 || !sub && b.Inf < 0:
				return true, nil
			case sub:
				return !less || v.Inf < 0, nil
			default:
				return less || v.Inf > 0, nil
			}
		case v.Inf > 0:
			return b.Inf > 0 || !less, nil // +Infinity is past every other number
		case v.Inf < 0:
			return b.Inf < 0 || less, nil
		case b.Inf < 0:
			return !less, nil // a finite value is past -Infinity
		case b.Inf > 0:
			return less, nil
		}
		bound := types.AddDecimal(b, o)
		if sub {
			bound = types.SubDecimal(b, o)
		}
		return cmpRes(types.CompareDecimal(v, bound)), nil
	case types.DateVal, types.TimestampVal:
		toTS := func(x types.Value) types.TimestampVal {
			d, ok := x.(types.DateVal)
			switch {
			case !ok:
				return x.(types.TimestampVal)
			case d == types.DateNegInf:
				return types.TimestampNegInf
			case d == types.DatePosInf:
				return types.TimestampPosInf
			}
			return types.TimestampVal(int64(d) * usecsPerDay)
		}
		sign := int64(1)
		if sub {
			sign = -1
		}
		var sum types.TimestampVal
		var err error
		if oid == plan.Timestamptz && z != nil && !z.IsUTC() {
			sum, err = addIntervalIn(toTS(base), off.(types.IntervalVal), sign, z)
		} else {
			sum, err = addInterval(toTS(base), off.(types.IntervalVal), sign)
		}
		if err != nil {
			return false, err
		}
		return cmpRes(types.Compare(plan.Timestamp, toTS(val), sum)), nil
	case types.TimeVal:
		o := off.(types.IntervalVal).Micros
		sum := int64(b) + o
		if sub {
			sum = int64(b) - o
		}
		return cmpRes(cmpInt(int64(val.(types.TimeVal)), sum)), nil
	}
	return false, unsupported("a RANGE offset frame over type " + plan.T(oid).String())
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compute is fn's value for every row of the partition.
func (f *frameCalc) compute(fn *winFn) ([]types.Value, error) {
	n := len(f.rows)
	out := make([]types.Value, n)
	arg := func(k, i int) types.Value { return f.rows[i][fn.args[k]] }
	switch fn.f.Name {
	case "row_number":
		for i := range out {
			out[i] = int64(i + 1)
		}
	case "rank":
		for i := range out {
			out[i] = int64(f.gs[f.grp[i]] + 1)
		}
	case "dense_rank":
		for i := range out {
			out[i] = int64(f.grp[i] + 1)
		}
	case "percent_rank":
		for i := range out {
			out[i] = float64(0)
			if n > 1 {
				out[i] = float64(f.gs[f.grp[i]]) / float64(n-1)
			}
		}
	case "cume_dist":
		for i := range out {
			out[i] = float64(f.ge[f.grp[i]]) / float64(n)
		}
	case "ntile":
		return f.ntile(fn, out)
	case "lag", "lead":
		for i := range out {
			off := int64(1)
			if len(fn.args) > 1 {
				o := arg(1, i)
				if o == nil {
					continue
				}
				off = o.(int64)
			}
			if fn.f.Name == "lag" {
				off = -off
			}
			j := addSat(int64(i), off)
			switch {
			case j >= 0 && j < int64(n):
				out[i] = arg(0, int(j))
			case len(fn.args) > 2:
				out[i] = arg(2, i)
			}
		}
	case "first_value", "last_value", "nth_value":
		for i := range out {
			segs, err := f.frame(i)
			if err != nil {
				return nil, err
			}
			nth := int64(1)
			if fn.f.Name == "nth_value" {
				x := arg(1, i)
				if x == nil {
					continue
				}
				if nth = x.(int64); nth <= 0 {
					return nil, &types.Error{Code: "22016", Message: "argument of nth_value must be greater than zero"}
				}
			}
			p := -1
			if fn.f.Name == "last_value" {
				for k := len(segs) - 1; k >= 0 && p < 0; k-- {
					if segs[k].hi > segs[k].lo {
						p = segs[k].hi - 1
					}
				}
			} else {
				for _, s := range segs {
					if int64(s.hi-s.lo) >= nth {
						p = s.lo + int(nth) - 1
						break
					}
					nth -= int64(s.hi - s.lo)
				}
			}
			if p < 0 {
				continue
			}
			if fn.edge && !f.oneValue(fn, p) {
				return nil, notDetermined
			}
			out[i] = arg(0, p)
		}
	default:
		return f.aggregate(fn, out)
	}
	return out, nil
}

// oneValue says whether every row of row p's peer group has the same
// value of fn's first argument (as PostgreSQL prints it); with a sort
// below ordering the peers (windowOp.then), the rows of the group tied
// with p on its keys too.
func (f *frameCalc) oneValue(fn *winFn, p int) bool {
	g := f.grp[p]
	lo, hi := f.gs[g], f.ge[g]
	if t := f.w.then; t != nil {
		for lo < p && compareKeys(t, f.rows[lo], f.rows[p]) != 0 {
			lo++
		}
		for hi > p+1 && compareKeys(t, f.rows[hi-1], f.rows[p]) != 0 {
			hi--
		}
	}
	first := f.rows[lo][fn.args[0]]
	for i := lo + 1; i < hi; i++ {
		v := f.rows[i][fn.args[0]]
		if (v == nil) != (first == nil) || v != nil && types.Out(fn.argOID, v) != types.Out(fn.argOID, first) {
			return false
		}
	}
	return true
}

// ntile is PostgreSQL's window_ntile: the bucket count is read at the
// first row (again at later rows while it is NULL).
func (f *frameCalc) ntile(fn *winFn, out []types.Value) ([]types.Value, error) {
	n := int64(len(f.rows))
	var tile, perBucket, boundary, remainder int64
	for i := range out {
		if tile == 0 {
			x := f.rows[i][fn.args[0]]
			if x == nil {
				continue
			}
			buckets := x.(int64)
			if buckets <= 0 {
				return nil, &types.Error{Code: "22014", Message: "argument of ntile must be greater than zero"}
			}
			tile, perBucket = 1, 0
			if boundary = n / buckets; boundary <= 0 {
				boundary = 1
			} else if remainder = n % buckets; remainder != 0 {
				boundary++
			}
		}
		perBucket++
		if boundary < perBucket {
			if remainder != 0 && tile == remainder {
				remainder = 0
				boundary--
			}
			tile++
			perBucket = 1
		}
		out[i] = tile
	}
	return out, nil
}

// aggregate is an aggregate over each row's frame: the state grows with
// the frame while its start stays put, and is rebuilt when it moves.
func (f *frameCalc) aggregate(fn *winFn, out []types.Value) ([]types.Value, error) {
	var st aggState
	var stLo, stHi int
	var prev []segment
	var prevVal types.Value
	add := func(lo, hi int) error {
		for j := lo; j < hi; j++ {
			r := f.rows[j]
			if fn.filter >= 0 {
				if t, ok := r[fn.filter].(bool); !ok || !t {
					continue
				}
			}
			var v types.Value = true // count(*)
			if len(fn.args) > 0 {
				if v = r[fn.args[0]]; v == nil {
					if !fn.keepNull {
						continue
					}
					v = winNull{}
				}
			}
			if err := st.add(v); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range out {
		if i&1023 == 1023 {
			if err := f.w.e.check(); err != nil {
				return nil, err
			}
		}
		segs, err := f.frame(i)
		if err != nil {
			return nil, err
		}
		if prev != nil && slices.Equal(segs, prev) {
			out[i] = prevVal
			continue
		}
		if len(segs) == 1 && st != nil && segs[0].lo == stLo && segs[0].hi >= stHi {
			if err := add(stHi, segs[0].hi); err != nil {
				return nil, err
			}
			stHi = segs[0].hi
		} else {
			st = fn.init()
			inOrder(st) // the frame's rows in the window's order (peers: see the tie refusals)
			for _, s := range segs {
				if err := add(s.lo, s.hi); err != nil {
					return nil, err
				}
			}
			stLo, stHi = -1, -1
			if len(segs) == 1 {
				stLo, stHi = segs[0].lo, segs[0].hi
			}
		}
		v, err := st.result()
		if err != nil {
			return nil, err
		}
		out[i], prev, prevVal = v, segs, v
	}
	return out, nil
}

// zone is the session's time zone (nil: UTC).
func (w *windowOp) zone() *types.Zone {
	if w.e == nil || w.e.clock == nil {
		return nil
	}
	return w.e.clock.Zone
}
