package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Which rows LIMIT and OFFSET pick depends on the order their input
// arrives in. PostgreSQL answers a LIMIT without an ORDER BY that fixes
// the rows (none, or one that leaves rows tied across the cut) with the
// rows its plan happens to produce first: the heap's physical order, a
// hash table's, a sort's among ties. The sidecar reads its own storage
// in another order, so such a LIMIT is refused at run time (0A000) when
// the rows it could pick differ — more candidate rows than the cut
// keeps, not all identical — rather than answered with other rows. The
// same rule the window functions (window.go), string_agg/array_agg
// (aggextra.go, array.go) and ARRAY(SELECT …) (arraysub.go) follow.
//
// Inputs whose order PostgreSQL fixes and the executor reproduces
// (pgOrdered: VALUES, set-returning functions, UNION ALL and recursive
// unions of those, filters and projections over them) need no check.

// limitUndetermined refuses a LIMIT/OFFSET whose rows depend on
// PostgreSQL's order of rows.
var limitUndetermined = &types.Error{Code: types.CodeUnsupported,
	Message: "not supported yet: LIMIT or OFFSET whose rows depend on the order PostgreSQL's plan reads them in (no ORDER BY, or one leaving different rows tied across the cut); add ORDER BY keys that tell the rows apart"}

// pgOrdered reports whether rel produces its rows in an order that
// PostgreSQL's plan for it produces too: literal rows and set-returning
// functions in their own order, and what keeps it (filters,
// projections, UNION ALL of such branches in turn, a recursive union
// whose terms are such; work lists the working tables of the recursive
// unions above).
func pgOrdered(rel plan.Rel, work map[*plan.CTE]bool) bool {
	switch x := rel.(type) {
	case *plan.Values, *plan.FuncScan, *plan.RowsFrom:
		return true
	case *plan.Filter:
		return pgOrdered(x.Input, work)
	case *plan.Project:
		return pgOrdered(x.Input, work)
	case *plan.SetOp:
		return x.Kind == plan.Union && x.All && pgOrdered(x.Left, work) && pgOrdered(x.Right, work)
	case *plan.With:
		return pgOrdered(x.Body, work)
	case *plan.CTERef:
		if work[x.CTE] {
			return true
		}
		if rec := plan.Recursive(x.CTE.Plan); rec != nil {
			return pgOrdered(rec, work)
		}
		return pgOrdered(x.CTE.Plan, work)
	case *plan.RecursiveUnion:
		if !pgOrdered(x.Init, work) {
			return false
		}
		w := map[*plan.CTE]bool{x.Work: true}
		for c := range work {
			w[c] = true
		}
		return pgOrdered(x.Rec, w)
	}
	return false
}

// catalogOnly reports whether every table rel reads is a catalog
// relation (pg_catalog, information_schema): their rows are the
// front end's own, not PostgreSQL's heap, so there is no order of
// PostgreSQL's to follow (the flat planner answers such a LIMIT too).
func catalogOnly(rel plan.Rel) bool {
	scans := 0
	ok := true
	var walk func(r plan.Rel)
	walk = func(r plan.Rel) {
		if s, is := r.(*plan.Scan); is {
			scans++
			if s.Table == nil || s.Table.Schema != "pg_catalog" && s.Table.Schema != "information_schema" {
				ok = false
			}
		}
		for _, in := range r.Inputs() {
			walk(in)
		}
	}
	walk(rel)
	return ok && scans > 0
}

// sameVals says whether two rows print the same in every column (their
// order between each other cannot change an answer).
func sameVals(oids []plan.OID, a, b []types.Value) bool {
	for c, t := range oids {
		if !sameValue(t, a[c], b[c]) {
			return false
		}
	}
	return true
}

// limitCheck follows the rows a limitOp reads to decide whether the
// rows it keeps are the same in any order PostgreSQL could read them
// in.
type limitCheck struct {
	oids []plan.OID
	// keys are the ORDER BY keys of the Sort right below (nil: none
	// there); sorted: the input is sorted (the Sort right below, or one
	// under projections whose tieFlags say which rows tie), so only
	// rows tied on its keys are candidates for each other's positions.
	keys   []winKey
	sorted bool
	// start and end are the cut positions (end < 0: none).
	start, end int64
	pos        int64
	// the run of rows tied on keys that the current row belongs to:
	// its first row, whether its rows differ, whether it holds rows on
	// both sides of a cut.
	first     []types.Value
	mixed     bool
	straddles bool
	prevPos   int64
}

// crosses says whether positions a < b lie on different sides of a cut.
func (c *limitCheck) crosses(a, b int64) bool {
	side := func(p int64) int {
		switch {
		case p < c.start:
			return 0
		case c.end < 0 || p < c.end:
			return 1
		}
		return 2
	}
	return side(a) != side(b)
}

// check takes the input's next row (tied: whether it ties with the row
// before it on the ORDER BY; always for an input without one); it fails
// when the rows seen so far show the cut depends on their order.
func (c *limitCheck) check(r []types.Value, tied bool) error {
	p := c.pos
	c.pos++
	if c.first == nil || !tied {
		c.first, c.mixed, c.straddles, c.prevPos = r, false, false, p
		return nil
	}
	if !c.mixed && !sameVals(c.oids, c.first, r) {
		c.mixed = true
	}
	if c.crosses(c.prevPos, p) {
		c.straddles = true
	}
	if c.mixed && c.straddles {
		return limitUndetermined
	}
	return nil
}

// done says whether reading more rows can no longer change the verdict:
// past the last cut with the run there ended (a row with other keys).
func (c *limitCheck) done() bool {
	return c.end >= 0 && c.pos > c.end && c.sorted && c.prevPos >= c.end
}

// overflow takes what a bounded sort dropped (topn.go): a row tied on
// the keys with its last kept row, and whether the dropped rows so tied
// differ among themselves.
func (c *limitCheck) overflow(over []types.Value, overMixed bool) error {
	if over == nil || c.first == nil || compareKeys(c.keys, c.first, over) != 0 {
		return nil
	}
	if c.mixed || overMixed || !sameVals(c.oids, c.first, over) {
		return limitUndetermined
	}
	return nil
}

// noteDropped records a row the top-N sort dropped that ties on the keys
// with its worst kept row (top).
func (s *sortOp) noteDropped(keys []winKey, oids []plan.OID, d, top []types.Value, copyRow bool) {
	if compareKeys(keys, d, top) != 0 {
		return
	}
	if s.over == nil || compareKeys(keys, s.over, d) != 0 {
		if copyRow {
			d = append([]types.Value(nil), d...)
		}
		s.over, s.overMixed = d, false
		return
	}
	if !s.overMixed && !sameVals(oids, s.over, d) {
		s.overMixed = true
	}
}

// runChecked is LIMIT count OFFSET offset over an input whose order
// PostgreSQL's plan decides: the rows are passed on as run does, and the
// input read on past the cut as far as it takes to show the rows kept
// cannot differ (limitCheck), or refused.
func (l *limitOp) runChecked(count, offset int64, emit func(*Batch) error) error {
	c := &limitCheck{oids: l.oids, start: offset, end: -1}
	if count >= 0 {
		c.end = offset + count
	}
	c.sorted = l.top != nil || l.tieSrc != nil
	stop := &stopSignal{}
	err := l.in.run(func(b *Batch) error {
		if l.top != nil {
			c.keys = l.top.keyed // set by the sort's run, before its first batch
		}
		lo, hi := -1, -1
		for i := 0; i < b.N; i++ {
			p := c.pos
			r := b.Row(i)
			tied := true
			switch {
			case l.top != nil:
				tied = c.first != nil && compareKeys(c.keys, c.first, r) == 0
			case l.tieSrc != nil:
				tied = l.tieSrc.flags()[i] // the projections pass the batches on one for one
			}
			if err := c.check(r, tied); err != nil {
				return err
			}
			if p >= c.start && (c.end < 0 || p < c.end) {
				if lo < 0 {
					lo = i
				}
				hi = i + 1
			}
			if c.done() {
				break
			}
		}
		if lo >= 0 {
			if err := emit(slice(b, lo, hi)); err != nil {
				return err
			}
		}
		if c.done() {
			return stop
		}
		return nil
	})
	if isStop(err, stop) {
		err = nil
	}
	if err == nil && l.top != nil {
		err = c.overflow(l.top.over, l.top.overMixed)
	}
	return err
}

// tieFlagger is an operator emitting its rows sorted, which can say for
// each row of the batch it is emitting whether it ties with the row
// before it on its keys: a Sort, or a Window alone over its input (its
// output in its PARTITION BY, ORDER BY order, as PostgreSQL's).
type tieFlagger interface {
	trackTieFlags()
	flags() []bool
}

func (s *sortOp) trackTieFlags()   { s.trackTies = true }
func (s *sortOp) flags() []bool    { return s.tieFlags }
func (w *windowOp) trackTieFlags() { w.trackTies = true }
func (w *windowOp) flags() []bool  { return w.tieFlags }

// flagTies wraps emit to set s.tieFlags for each batch before it passes
// it on.
func (s *sortOp) flagTies(keys []winKey, emit func(*Batch) error) func(*Batch) error {
	return flagTies(keys, &s.tieFlags, emit)
}

// flagTies wraps emit to set the window's tieFlags (its partition and
// order keys).
func (w *windowOp) flagTies(keys []winKey, emit func(*Batch) error) func(*Batch) error {
	return flagTies(keys, &w.tieFlags, emit)
}

// flagTies wraps emit to set *dst for each batch before passing it on.
func flagTies(keys []winKey, dst *[]bool, emit func(*Batch) error) func(*Batch) error {
	var last []types.Value
	return func(b *Batch) error {
		flags := make([]bool, b.N)
		for i := 0; i < b.N; i++ {
			r := b.Row(i)
			flags[i] = last != nil && compareKeys(keys, last, r) == 0
			last = r
		}
		*dst = flags
		return emit(b)
	}
}

// tieSource is the operator under projections below in whose tie flags
// a Limit can read which rows are interchangeable (nil: none).
func (e *env) tieSource(in operator) tieFlagger {
	for {
		p, ok := in.(*projectOp)
		if !ok {
			break
		}
		in = p.in
	}
	switch x := in.(type) {
	case *sortOp:
		return x
	case *distinctOp:
		if x.sorted != nil { // DISTINCT ON over a sort (distincton.go)
			return x
		}
	case *windowOp:
		if _, below := underProjects(x.w.Input).(*plan.Window); !below && !e.winStacked[x.w] {
			return x
		}
	}
	return nil
}
