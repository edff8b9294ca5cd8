package sqlfront

import "github.com/sidecar-dev/sidecar/types"

// interner turns a column's text bytes into strings, sharing one string
// per distinct value while the column looks like it has few (flags,
// statuses, modes: TPC-H's l_returnflag, l_shipmode), so that a scan of
// such a column allocates per distinct value instead of per row. A
// column with many distinct values (names, comments) turns it off after
// a sample and pays only the plain conversion. Its memory is bounded:
// at most internMax strings of at most internLen bytes.
type interner struct {
	m            map[string]types.Value // each value a string, boxed once
	hits, misses int
	off          bool
	// slots hold recently seen values by their length and first and last
	// bytes: most rows find theirs there by one comparison, without
	// hashing the bytes for the map (TPC-H Q19's l_shipmode and
	// l_shipinstruct, Q1's flags).
	slots [internSlots]internSlot
}

// internSlot is one value of interner.slots (v nil: empty).
type internSlot struct {
	s string
	v types.Value
}

// internSlots is the number of interner.slots (a power of two).
const internSlots = 64

// slotOf is b's slot in interner.slots.
func slotOf(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return (len(b)*131 + int(b[0])*31 + int(b[len(b)-1])) & (internSlots - 1)
}

const (
	internMax    = 256 // distinct values kept
	internLen    = 32  // longest value kept, in bytes
	internSample = 1024
)

// str is b as a string.
func (in *interner) str(b []byte) string {
	if in.off || len(b) > internLen {
		return string(b)
	}
	return in.value(b).(string)
}

// value is b as a string in a types.Value: an interned value is boxed
// once, not per row.
func (in *interner) value(b []byte) types.Value {
	if in.off || len(b) > internLen {
		return string(b)
	}
	sl := &in.slots[slotOf(b)]
	if sl.v != nil && sl.s == string(b) { // no allocation for the comparison
		in.hits++
		return sl.v
	}
	if v, ok := in.m[string(b)]; ok { // no allocation for the look-up
		in.hits++
		sl.s, sl.v = v.(string), v
		return v
	}
	in.misses++
	if in.misses > internMax || in.hits+in.misses >= internSample && in.misses*4 > in.hits {
		in.off, in.m = true, nil // too many distinct values to pay off
		in.slots = [internSlots]internSlot{}
		return string(b)
	}
	if in.m == nil {
		in.m = make(map[string]types.Value)
	}
	s := string(b)
	var v types.Value = s
	in.m[s] = v
	sl.s, sl.v = s, v
	return v
}
