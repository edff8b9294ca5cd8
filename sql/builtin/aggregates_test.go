package builtin

import (
	"math"
	"testing"
)

// TestFloatVarNaNBits: a NaN result has PostgreSQL's bits
// (0x7ff8000000000000), which binary format sends as they are; Go's
// math.NaN() has others. The corpus caught var_pop('nan'::float8) sent
// as 7ff8000000000001.
func TestFloatVarNaNBits(t *testing.T) {
	s := &floatVar{}
	if err := s.Step(math.NaN()); err != nil {
		t.Fatal(err)
	}
	v, _ := s.Final()
	if b := math.Float64bits(v.(float64)); b != 0x7ff8000000000000 {
		t.Errorf("var_pop(NaN) bits %x", b)
	}
}
