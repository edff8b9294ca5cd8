package types

import (
	"math/big"
	"math/bits"
)

// DecimalSlab hands out numerics whose unscaled digits fit an int64,
// each with its one-word digits beside it, allocated decSlabSize at a
// time instead of two allocations per value (a scan decoding a numeric
// column, an expression computing one per row). The values are
// independent and, like every Decimal handed around, never modified. A
// slab stays in memory while any of its values is referenced, so the
// slabs are small: a value kept alone (a group's key, a min) holds at
// most decSlabSize values' worth of memory. The zero DecimalSlab is
// ready; it is not safe for concurrent use.
type DecimalSlab struct {
	free []decBox
}

// decSlabSize is the values per allocation.
const decSlabSize = 64

// decBox is a numeric with room for its one-word digits.
type decBox struct {
	d Decimal
	w [1]big.Word
}

// Small is the numeric v·10^-scale.
func (s *DecimalSlab) Small(v int64, scale int32) *Decimal {
	if len(s.free) == 0 {
		s.free = make([]decBox, decSlabSize)
	}
	b := &s.free[0]
	s.free = s.free[1:]
	return b.set(v, scale)
}

// SmallDecimal is the numeric v·10^-scale in one allocation.
func SmallDecimal(v int64, scale int32) *Decimal {
	return new(decBox).set(v, scale)
}

// set makes b's numeric v·10^-scale, its digits in b.w.
func (b *decBox) set(v int64, scale int32) *Decimal {
	b.d.Scale = scale
	if v == 0 || bits.UintSize != 64 {
		b.d.V.SetInt64(v)
		return &b.d
	}
	u := uint64(v)
	if v < 0 {
		u = -u // MinInt64 included: its magnitude is 1<<63
	}
	b.w[0] = big.Word(u)
	b.d.V.SetBits(b.w[:])
	if v < 0 {
		b.d.V.Neg(&b.d.V)
	}
	return &b.d
}
