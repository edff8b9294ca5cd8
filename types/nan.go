package types

import "math"

// Float8Bits is the float8send image of x as PostgreSQL sends it.
// PostgreSQL sends a double's bits as they are: 'NaN' read from text is
// C's NAN (0x7ff8000000000000), and a NaN that arithmetic makes (inf -
// inf, 0 * inf) has the hardware's bits (0xfff8000000000000 on x86),
// which the engine's own arithmetic reproduces. Go's math.NaN() (which
// strconv.ParseFloat returns for "NaN") carries a payload of 1 that C's
// NAN does not: that payload is cleared, the sign is kept (-'NaN').
func Float8Bits(x float64) uint64 {
	b := math.Float64bits(x)
	if b&^(1<<63) == 0x7ff8000000000001 {
		b &^= 1
	}
	return b
}
