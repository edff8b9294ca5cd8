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
	// keys and vals are the slots (lazily made, boxSlots long): the
	// check reads keys only, a table of 32 kB, not the boxed value (a
	// load from wherever the box was allocated); a nil val is an empty
	// slot. A cache boxes one type (one decoder's).
	keys []int64
	vals []types.Value
	// hits and misses count the first boxSample look-ups; off: fewer
	// than half hit, and a miss costs more than the plain boxing (the
	// slot's check and write): the column is boxed plainly.
	hits, misses int
	off          bool
}

const (
	boxSlots  = 4096 // a power of two
	boxSample = 4096
)

// int64Val is i boxed.
func (c *boxCache) int64Val(i int64) types.Value {
	if c.off {
		return i
	}
	s := c.slot(uint64(i))
	if c.keys[s] == i && c.vals[s] != nil {
		c.hits++
		return c.vals[s]
	}
	if c.miss() {
		return i
	}
	c.keys[s], c.vals[s] = i, i
	return c.vals[s]
}

// date is d boxed.
func (c *boxCache) date(d types.DateVal) types.Value {
	if c.off {
		return d
	}
	s := c.slot(uint64(d))
	if c.keys[s] == int64(d) && c.vals[s] != nil {
		c.hits++
		return c.vals[s]
	}
	if c.miss() {
		return d
	}
	c.keys[s], c.vals[s] = int64(d), d
	return c.vals[s]
}

// timestamp is ts boxed (slots by the second: a column of whole
// seconds or days spreads over them).
func (c *boxCache) timestamp(ts types.TimestampVal) types.Value {
	if c.off {
		return ts
	}
	s := c.slot(uint64(ts) / 1e6)
	if c.keys[s] == int64(ts) && c.vals[s] != nil {
		c.hits++
		return c.vals[s]
	}
	if c.miss() {
		return ts
	}
	c.keys[s], c.vals[s] = int64(ts), ts
	return c.vals[s]
}

// miss counts a miss, and turns the cache off (off: true) after the
// sample when fewer than half the look-ups hit.
func (c *boxCache) miss() (off bool) {
	if c.misses++; c.hits+c.misses == boxSample && c.misses*2 > boxSample {
		c.off, c.keys, c.vals = true, nil, nil
	}
	return c.off
}

// slot is k's slot, the table made on first use.
func (c *boxCache) slot(k uint64) int {
	if c.keys == nil {
		c.keys, c.vals = make([]int64, boxSlots), make([]types.Value, boxSlots)
	}
	return int(k & (boxSlots - 1))
}
