package sqlfront

import "github.com/sidecar-dev/sidecar/types"

// boxCache boxes a scan column's integers, dates and timestamps into
// types.Value without an allocation per row where the column repeats
// values: a direct-mapped table of the last value boxed per slot (the
// value's low bits), checked on the way in. A date column's values
// within any 11 years (TPC-H's seven) each get a slot of their own; an
// integer column of few values (a quantity, a line number, a nation
// key) or of runs of one value (l_orderkey: about four rows per order)
// hits too; a column of many scattered values (a part key) turns the
// cache off after a sample and pays the plain boxing. Boxed values are immutable and shared
// like interned strings. One cache per decoder, and a decoder runs on
// one goroutine (the parallel scan makes one per worker).
type boxCache struct {
	slots []boxSlot // lazily made, boxSlots long
	// hits and misses count the first boxSample look-ups; off: fewer
	// than half hit, and a miss costs more than the plain boxing (the
	// slot's check and write): the column is boxed plainly.
	hits, misses int
	off          bool
}

const boxSample = 4096

// boxSlot is a slot's value and its key: the check reads the slot only,
// not the boxed value (a load from wherever the box was allocated).
type boxSlot struct {
	k    int64
	kind uint8 // 0: empty, 1: int64, 2: date, 3: timestamp
	v    types.Value
}

const boxSlots = 4096 // a power of two

// int64Val is i boxed.
func (c *boxCache) int64Val(i int64) types.Value {
	if c.off {
		return i
	}
	e := c.slot(uint64(i))
	if e.k == i && e.kind == 1 {
		c.hits++
		return e.v
	}
	c.miss()
	e.k, e.kind, e.v = i, 1, i
	return e.v
}

// date is d boxed.
func (c *boxCache) date(d types.DateVal) types.Value {
	if c.off {
		return d
	}
	e := c.slot(uint64(d))
	if e.k == int64(d) && e.kind == 2 {
		c.hits++
		return e.v
	}
	c.miss()
	e.k, e.kind, e.v = int64(d), 2, d
	return e.v
}

// timestamp is ts boxed (slots by the second: a column of whole
// seconds or days spreads over them).
func (c *boxCache) timestamp(ts types.TimestampVal) types.Value {
	if c.off {
		return ts
	}
	e := c.slot(uint64(ts) / 1e6)
	if e.k == int64(ts) && e.kind == 3 {
		c.hits++
		return e.v
	}
	c.miss()
	e.k, e.kind, e.v = int64(ts), 3, ts
	return e.v
}

// miss counts a miss, and turns the cache off after the sample when
// fewer than half the look-ups hit.
func (c *boxCache) miss() {
	if c.misses++; c.hits+c.misses == boxSample && c.misses*2 > boxSample {
		c.off, c.slots = true, nil
	}
}

func (c *boxCache) slot(k uint64) *boxSlot {
	if c.slots == nil {
		c.slots = make([]boxSlot, boxSlots)
	}
	return &c.slots[k&(boxSlots-1)]
}
