package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// DISTINCT and set operations past the working memory (spillpart.go),
// as the spilling hash aggregation (aggspill.go): the rows already held
// keep counting their copies from each side; a row not held is written
// with its counts (one copy from its side) to the partition file its
// hash chooses. The held rows are answered and given back, then each
// file on its own: all copies of a row meet in one file, the first in
// input order first, so DISTINCT keeps the row PostgreSQL's hash keeps.

// countSpill is the spill of one DISTINCT or set operation.
type countSpill struct {
	e     *env
	op    string // names the operator in errors and file names
	h     *rowHasher
	width int
	// kind and all say how many copies of a row the counts give (a
	// DISTINCT is a UNION of one side).
	kind plan.SetOpKind
	all  bool
	// loose are the columns of an INTERSECT whose equal values can
	// print differently (looseCols); mixed the groups where the two
	// sides' copies do.
	loose []int
	mixed map[int]bool
}

// looseCols are the columns of types whose equal values can print
// differently: numeric 1.0 and 1.00, bpchar under different lengths,
// float -0 and 0, interval '1 day' and '24 hours', jsonb 1.0 and 1 (and
// arrays of them).
func looseCols(oids []plan.OID) []int {
	var out []int
	for k, o := range oids {
		if types.IsArray(o) {
			o = types.ElemOf(o)
		}
		switch o {
		case plan.Numeric, plan.Bpchar, plan.Float4, plan.Float8, plan.Interval, plan.JSONB:
			out = append(out, k)
		}
	}
	return out
}

// noteMixed records that right-side row matched group g, whose held
// row (from the left) prints differently: PostgreSQL's INTERSECT
// answers the copy of whichever side its planner puts first (the one
// with fewer groups), which sidecar does not model.
func (c *countSpill) noteMixed(g int, held, row []types.Value) {
	for _, k := range c.loose {
		if held[k] != nil && row[k] != nil && types.Out(c.h.oids[k], held[k]) != types.Out(c.h.oids[k], row[k]) {
			if c.mixed == nil {
				c.mixed = map[int]bool{}
			}
			c.mixed[g] = true
			return
		}
	}
}

// copies is how many times a row seen cl times on the left and cr times
// on the right is in the answer.
func (c *countSpill) copies(cl, cr int64) int64 {
	switch c.kind {
	case plan.Intersect:
		if c.all {
			return min(cl, cr)
		}
		if cl > 0 && cr > 0 {
			return 1
		}
	case plan.Except:
		if c.all {
			return max(cl-cr, 0)
		}
		if cl > 0 && cr == 0 {
			return 1
		}
	default:
		return 1
	}
	return 0
}

// start opens the partition files, charging their buffers.
func (c *countSpill) start(mem *memAcct) (*partFiles, error) {
	if err := mem.growReserve(c.op); err != nil {
		return nil, err
	}
	oids := append(append([]plan.OID(nil), c.h.oids...), plan.Int8, plan.Int8)
	return c.e.newPartFiles(c.op, oids, partFanout)
}

// write puts row (copies cl and cr) in its partition at level depth.
func (c *countSpill) write(parts *partFiles, row []types.Value, cl, cr int64, depth int) error {
	rec := append(append(make([]types.Value, 0, c.width+2), row[:c.width]...), cl, cr)
	return parts.add(partOf(c.h.hash(row[:c.width]), depth), rec)
}

// emit answers rows (counts[g] their copies), a batch at a time.
func (c *countSpill) emit(rows [][]types.Value, counts [][2]int64, emit func(*Batch) error) error {
	var out [][]types.Value
	for g, r := range rows {
		if c.mixed[g] && c.copies(counts[g][0], counts[g][1]) > 0 {
			return unsupported("INTERSECT of equal values written differently on its two sides (PostgreSQL answers the side its planner puts first)")
		}
		for n := c.copies(counts[g][0], counts[g][1]); n > 0; n-- {
			out = append(out, r)
			if len(out) == BatchSize {
				if err := c.e.emitRows(out, c.width, emit); err != nil {
					return err
				}
				out = out[:0]
			}
		}
	}
	return c.e.emitRows(out, c.width, emit)
}

// drain answers each partition of parts (written at level depth).
func (c *countSpill) drain(parts *partFiles, depth int, emit func(*Batch) error) error {
	if err := parts.finish(); err != nil {
		return err
	}
	for i := range parts.rows {
		if err := c.replay(parts, i, depth, emit); err != nil {
			return err
		}
	}
	return nil
}

// replay answers partition i of parts, spilling to the next level what
// does not fit.
func (c *countSpill) replay(parts *partFiles, i, depth int, emit func(*Batch) error) error {
	mem := &memAcct{e: c.e}
	defer mem.done()
	c.mixed = nil
	m := &rowMap{h: c.h}
	var counts [][2]int64
	var sub *partFiles
	defer func() {
		if sub != nil {
			sub.remove()
		}
	}()
	err := parts.each(i, func(rec []types.Value) error {
		row := rec[:c.width]
		cl, cr := rec[c.width].(int64), rec[c.width+1].(int64)
		g, _ := m.find(row, false)
		if g < 0 {
			if sub == nil && mem.tryGrowKeeping(rowBytes(row)+16, partReserve) {
				g, _ = m.find(append([]types.Value(nil), row...), true)
				counts = append(counts, [2]int64{})
			} else {
				if sub == nil {
					if depth+1 >= maxSpillDepth {
						return c.e.spillRefusal(c.op)
					}
					var err error
					if sub, err = c.start(mem); err != nil {
						return err
					}
				}
				return c.write(sub, row, cl, cr, depth+1)
			}
		}
		if cr > 0 && len(c.loose) > 0 {
			c.noteMixed(g, m.rows[g], row)
		}
		counts[g][0] += cl
		counts[g][1] += cr
		return nil
	})
	if err != nil {
		return err
	}
	if err := c.emit(m.rows, counts, emit); err != nil {
		return err
	}
	if sub == nil {
		return nil
	}
	m, counts = nil, nil
	mem.done()
	return c.drain(sub, depth+1, emit)
}
