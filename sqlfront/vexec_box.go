package sqlfront

import "github.com/sidecar-dev/sidecar/types"

// boxCache boxes a scan column's integers, dates and timestamps into
// types.Value without an allocation per row where the column repeats
// values: a direct-mapped table of the last value boxed per slot (the
// value's low bits), checked on the way in. A date column's values
// within any 11 years (TPC-H's seven) each get a slot of their own; an
// integer column of few values (a quantity, a line number, a nation
// key) or of runs of one value (l_orderkey: about four rows per order)
// hits too; a column of many scattered values misses and pays the boxing
// it paid before, plus the check. Boxed values are immutable and shared
// like interned strings. One cache per decoder, and a decoder runs on
// one goroutine (the parallel scan makes one per worker).
type boxCache struct {
	slots []types.Value // lazily made, boxSlots long
}

const boxSlots = 4096 // a power of two

// int64Val is i boxed.
func (c *boxCache) int64Val(i int64) types.Value {
	e := c.slot(uint64(i))
	if v, ok := (*e).(int64); ok && v == i {
		return *e
	}
	*e = i
	return *e
}

// date is d boxed.
func (c *boxCache) date(d types.DateVal) types.Value {
	e := c.slot(uint64(d))
	if v, ok := (*e).(types.DateVal); ok && v == d {
		return *e
	}
	*e = d
	return *e
}

// timestamp is ts boxed (slots by the second: a column of whole
// seconds or days spreads over them).
func (c *boxCache) timestamp(ts types.TimestampVal) types.Value {
	e := c.slot(uint64(ts) / 1e6)
	if v, ok := (*e).(types.TimestampVal); ok && v == ts {
		return *e
	}
	*e = ts
	return *e
}

func (c *boxCache) slot(k uint64) *types.Value {
	if c.slots == nil {
		c.slots = make([]types.Value, boxSlots)
	}
	return &c.slots[k&(boxSlots-1)]
}
