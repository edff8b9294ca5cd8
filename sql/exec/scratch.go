package exec

import "github.com/sidecar-dev/sidecar/types"

// valScratch is a vector one compiled expression node reuses from one
// call to the next for an operand's values, instead of a new b.N-sized
// vector per batch (per chunk of a late-filtered scan: scan_late.go).
// A node's evaluation is never re-entered (a subquery runs its own
// compiled nodes) nor run on two goroutines, and it reads only the
// entries of the rows it was called for, which the operand has just
// written: the stale entries of an earlier call are never read.
type valScratch struct{ v []types.Value }

// get is a vector of n entries.
func (s *valScratch) get(n int) []types.Value {
	if cap(s.v) < n {
		s.v = make([]types.Value, n, max(n, BatchSize))
	}
	return s.v[:n]
}

// boolScratch and intScratch are valScratch for flags and row lists.
type boolScratch struct{ v []bool }

func (s *boolScratch) get(n int) []bool {
	if cap(s.v) < n {
		s.v = make([]bool, n, max(n, BatchSize))
	}
	return s.v[:n]
}

type intScratch struct{ v []int }

// copyOf is a copy of sel in the scratch's storage.
func (s *intScratch) copyOf(sel []int) []int {
	s.v = append(s.v[:0], sel...)
	return s.v
}
