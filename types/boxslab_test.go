package types

import (
	"math"
	"runtime"
	"testing"
)

// TestBoxSlab: a Value from a BoxSlab is the Value plain boxing gives —
// equal, of the same dynamic type (type switch and assertion), the same
// bits (NaN and -0 included) — over more values than one slab, and the
// values stay intact through garbage collections while the slab that
// held them is no longer the BoxSlab's.
func TestBoxSlab(t *testing.T) {
	var is BoxSlab[int64]
	var ds BoxSlab[DateVal]
	var ts BoxSlab[TimestampVal]
	var fs BoxSlab[float64]
	var kept []Value
	for i := int64(-3000); i < 3000; i++ {
		v := i * 7919
		cases := []struct{ got, want Value }{
			{is.Box(v), v},
			{ds.Box(DateVal(v)), DateVal(v)},
			{ts.Box(TimestampVal(v)), TimestampVal(v)},
			{fs.Box(float64(v) / 3), float64(v) / 3},
		}
		for _, c := range cases {
			if c.got != c.want {
				t.Fatalf("%T %v boxed as %T %v", c.want, c.want, c.got, c.got)
			}
			kept = append(kept, c.got)
		}
		if _, ok := cases[1].got.(DateVal); !ok {
			t.Fatalf("%T is not a DateVal", cases[1].got)
		}
	}
	nan := fs.Box(math.NaN())
	if f, ok := nan.(float64); !ok || !math.IsNaN(f) {
		t.Fatalf("NaN boxed as %v", nan)
	}
	if f := fs.Box(math.Copysign(0, -1)).(float64); !math.Signbit(f) {
		t.Fatal("-0 lost its sign")
	}
	runtime.GC()
	runtime.GC()
	k := 0
	for i := int64(-3000); i < 3000; i++ {
		v := i * 7919
		if kept[k] != v || kept[k+1] != DateVal(v) || kept[k+2] != TimestampVal(v) || kept[k+3] != float64(v)/3 {
			t.Fatalf("value %d changed after a collection: %v %v %v %v", v, kept[k], kept[k+1], kept[k+2], kept[k+3])
		}
		k += 4
	}
}

// BenchmarkBoxSlab compares boxing dates through a BoxSlab with plain
// boxing.
func BenchmarkBoxSlab(b *testing.B) {
	out := make([]Value, 1024)
	b.Run("slab", func(b *testing.B) {
		var s BoxSlab[DateVal]
		for i := 0; i < b.N; i++ {
			out[i%1024] = s.Box(DateVal(i + 1000))
		}
	})
	b.Run("plain", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out[i%1024] = Value(DateVal(i + 1000))
		}
	})
}
