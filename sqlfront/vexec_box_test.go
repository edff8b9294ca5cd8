package sqlfront

import (
	"testing"

	"github.com/sidecar-dev/sidecar/types"
)

// TestBoxCache: the boxed values are the values given, of their types,
// whatever shares a slot (values boxSlots apart, negative values), and a column repeating its values boxes
// them without allocating: before the cache, a date or integer boxed per
// row allocated once per row.
func TestBoxCache(t *testing.T) {
	var ints, dates, tss boxCache
	for round := range 3 {
		for _, i := range []int64{0, 1, 7, boxSlots + 7, -7, -boxSlots - 7, 1 << 40, 1<<40 + boxSlots, -1 << 62} {
			if v := ints.int64Val(i); v != types.Value(i) {
				t.Fatalf("round %d: int64 %d boxed as %#v", round, i, v)
			}
			d := types.DateVal(i)
			if v := dates.date(d); v != types.Value(d) {
				t.Fatalf("round %d: date %d boxed as %#v", round, d, v)
			}
			ts := types.TimestampVal(i * 1e6)
			if v := tss.timestamp(ts); v != types.Value(ts) {
				t.Fatalf("round %d: timestamp %d boxed as %#v", round, ts, v)
			}
		}
	}
	var c boxCache
	days := make([]types.DateVal, 2557) // TPC-H's seven years
	for i := range days {
		days[i] = types.DateVal(8035 + i*7%len(days))
	}
	for _, d := range days {
		c.date(d)
	}
	var scattered boxCache
	x := uint64(1)
	for range 2 * boxSample {
		x = x*6364136223846793005 + 1442695040888963407
		i := int64(x >> 20)
		if v := scattered.int64Val(i); v != types.Value(i) {
			t.Fatalf("scattered %d boxed as %#v", i, v)
		}
	}
	if !scattered.off || c.off {
		t.Errorf("a column of scattered values: cache off %v, want true; of repeated dates %v, want false", scattered.off, c.off)
	}
	if a := testing.AllocsPerRun(10, func() {
		for _, d := range days {
			c.date(d)
		}
	}); a > 0 {
		t.Errorf("boxing %d repeated dates allocates %.0f times", len(days), a)
	}
}

// BenchmarkBoxCache: boxing a date column (TPC-H's seven years, in
// scattered order), an order key column (runs of four) and a part key
// column (scattered over 200,000) through the cache and plainly.
func BenchmarkBoxCache(b *testing.B) {
	const n = 1 << 16
	dates, orders, parts := make([]int64, n), make([]int64, n), make([]int64, n)
	x := uint64(1)
	for i := range n {
		x = x*6364136223846793005 + 1442695040888963407
		dates[i] = 8035 + int64(x>>33)%2557
		orders[i] = int64(i / 4)
		parts[i] = int64(x>>20) % 200000
	}
	sink := make([]types.Value, n)
	for _, col := range []struct {
		name string
		vals []int64
	}{{"dates", dates}, {"orders", orders}, {"parts", parts}} {
		b.Run(col.name+"/cache", func(b *testing.B) {
			var c boxCache
			for b.Loop() {
				for i, v := range col.vals {
					sink[i] = c.date(types.DateVal(v))
				}
			}
		})
		b.Run(col.name+"/plain", func(b *testing.B) {
			for b.Loop() {
				for i, v := range col.vals {
					sink[i] = types.DateVal(v)
				}
			}
		})
	}
}
