package exec

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// TestDateTimestampCmp: comparing a date with a timestamp on the day
// (datecmp.go) gives what converting the date to a timestamp and
// comparing gives, for dates and timestamps in the timestamps' range
// around midnights, day boundaries before 2000 and the range's ends.
func TestDateTimestampCmp(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	const lastDay = 109203528 - 2451545 - 1 // 294276-12-31
	const firstDay = -2451545               // 4714-11-24 BC
	for i := 0; i < 200000; i++ {
		var d int64
		switch r.IntN(3) {
		case 0:
			d = r.Int64N(lastDay-firstDay+1) + firstDay
		case 1:
			d = r.Int64N(200) - 100
		default:
			d = []int64{firstDay, lastDay, 0, -1}[r.IntN(4)]
		}
		ts := d*usecsPerDay + r.Int64N(3*usecsPerDay) - usecsPerDay
		if r.IntN(4) == 0 {
			ts = d * usecsPerDay
		}
		if ts < minTimestamp || ts >= endTimestamp {
			continue
		}
		dv, tv := types.DateVal(d), types.TimestampVal(ts)
		conv, err := types.Convert(dv, plan.Date, plan.Timestamp, -1)
		if err != nil {
			t.Fatalf("date %d: %v", d, err)
		}
		want := types.Compare(plan.Timestamp, conv, tv)
		if got := dateTimestampCmp(dv, tv); got != want {
			t.Fatalf("date %d vs timestamp %d: %d, want %d", d, ts, got, want)
		}
		f := dateTimestampComparer(plan.Timestamp, plan.Date)
		if got, _ := f(tv, dv); got != -want {
			t.Fatalf("timestamp %d vs date %d: %d, want %d", ts, d, got, -want)
		}
	}
}
