package exec

import (
	"cmp"
	"slices"

	"github.com/sidecar-dev/sidecar/types"
)

// The cheap path of a spilling DISTINCT aggregate's inputs
// (distinctspill.go) for the common form, count/sum/avg(DISTINCT x):
// an input is its own one-column row. count(DISTINCT x) over a million
// integers at 4 MB of working memory took 23× PostgreSQL's time, each
// input allocating its row, a key row of its own and, when written
// out, a file row and its encoded bytes (types.Send), sorted through
// the general comparison. Here an input's row is its key, a value of an
// integer-like type is found through an int64 index (intGroups), the
// held inputs of such a type sort on their int64s, and a run's rows are
// encoded from one reused row into reused bytes (spill.writeRow). The
// files' format, the order of their rows and the memory charged per
// held input (what it holds: its row and its index slots) are those of
// the general path's, less the key row it no longer has.

// singleBytes is what a held single input costs beyond its row: its
// place in the rows slice and in the set's index (two slots of 12
// bytes at most) or the set's rows and slots.
const singleBytes = 40

// addSingle is add for an input that is its own row.
func (s *spillDistinct) addSingle(v types.Value) error {
	if s.c.ints != nil {
		if s.ints == nil {
			s.ints = &intGroups{val: s.c.ints.val}
		}
		g, ok := s.ints.find(v)
		if ok && g >= 0 {
			return nil
		}
		if !ok {
			return s.addSingleGeneral(v) // not the column's Go type (none today)
		}
	} else {
		return s.addSingleGeneral(v)
	}
	r := []types.Value{v}
	if err := s.hold(rowBytes(r) + singleBytes); err != nil {
		return err
	}
	if s.ints == nil { // hold wrote the inputs out
		s.ints = &intGroups{val: s.c.ints.val}
	}
	s.ints.add(v, len(s.rows))
	s.appendHeld(r)
	return nil
}

// addSingleGeneral is addSingle through the set of rows, the input's row
// its own key.
func (s *spillDistinct) addSingleGeneral(v types.Value) error {
	s.ensureSet()
	if cap(s.key1) == 0 {
		s.key1 = make([]types.Value, 1)
	}
	s.key1[0] = v
	i, _ := s.set.find(s.key1, false)
	s.key1[0] = nil
	if i >= 0 {
		return nil
	}
	r := []types.Value{v}
	if err := s.hold(rowBytes(r) + singleBytes); err != nil {
		return err
	}
	s.ensureSet() // hold may have written the inputs out
	s.set.addHashed(s.set.h.hash(r), r)
	s.appendHeld(r)
	return nil
}

// appendHeld keeps r, a new input, and marks the state as holding
// inputs for its operator's next flush.
func (s *spillDistinct) appendHeld(r []types.Value) {
	s.rows = append(s.rows, r)
	if s.ds != nil && !s.dirty {
		s.dirty = true
		s.ds.dirty = append(s.ds.dirty, s)
	}
}

// sortRows sorts held inputs in the aggregate's order (stably: ties
// keep the order they were met in).
func (s *spillDistinct) sortRows(rows [][]types.Value) {
	if s.c.single && s.c.ints != nil {
		val := s.c.ints.val
		if slices.IndexFunc(rows, func(r []types.Value) bool { _, ok := val(r[0]); return !ok }) < 0 {
			// distinct integers: no ties
			slices.SortFunc(rows, func(a, b []types.Value) int {
				x, _ := val(a[0])
				y, _ := val(b[0])
				return cmp.Compare(x, y)
			})
			return
		}
	}
	slices.SortStableFunc(rows, func(a, b []types.Value) int { return compareKeys(s.c.memKeys, a, b) })
}

// writeRows writes the held inputs (sorted) as file rows (group number,
// the input's columns, the mixed flag on the first), through *row.
func (s *spillDistinct) writeRows(sp *spill, row *[]types.Value) error {
	var gid types.Value = s.gid // boxed once for the group
	for x, r := range s.rows {
		if x%BatchSize == 0 {
			if err := sp.e.check(); err != nil {
				return err
			}
		}
		*row = append(append(append((*row)[:0], gid), r...), x == 0 && s.mixed)
		if err := sp.writeRow(sp.w, *row); err != nil {
			return err
		}
	}
	clear(*row)
	return nil
}
