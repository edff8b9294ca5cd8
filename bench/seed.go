package bench

import "time"

// cellSpec describes one row of the report: its label, how it is shown, the
// seed's figures and the target. Durations of per-op cells (point
// gets) are per call; all others are per sample (one batch, one scan, …).
type cellSpec struct {
	id    string
	label string
	// perOp: compare and show the median per call (point gets) rather than
	// the whole sample.
	perOp bool
	// rate: also show Ops per second of the median (build, scan, batches).
	rate bool
	// seed figures by record count: [lo, hi] (equal when the seed gave one
	// number). Ratios use lo, the seed's best.
	seed map[int][2]time.Duration
	// target at 10M records on this machine (issue #3); 0 = none.
	target time.Duration
}

func one(d time.Duration) [2]time.Duration { return [2]time.Duration{d, d} }

func span(lo, hi time.Duration) [2]time.Duration { return [2]time.Duration{lo, hi} }

func ms(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }

func us(x float64) time.Duration { return time.Duration(x * float64(time.Microsecond)) }

func sec(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

// Seed sizes: the seed report measured 1M and 10M records.
const (
	seedSmall = 1_000_000
	seedLarge = 10_000_000
	// targetRecords is the size the targets are set for.
	targetRecords = seedLarge
)

// prollyCells is the matrix in report order, with the figures of
// /work/shared/seeds/000_3211c8e99f58de76.txt and the targets of issue #3.
var prollyCells = []cellSpec{
	{id: "build", label: "Initial build", rate: true,
		seed: map[int][2]time.Duration{seedSmall: one(sec(3.621)), seedLarge: one(sec(33.482))}, target: sec(10)},
	{id: "scan", label: "Full scan", rate: true,
		seed: map[int][2]time.Duration{seedSmall: one(sec(5.335)), seedLarge: one(sec(54.363))}, target: sec(2)},
	{id: "batch/append", label: "Append batch, 10k", rate: true,
		seed: map[int][2]time.Duration{seedSmall: one(ms(40.98)), seedLarge: one(ms(45.28))}, target: ms(20)},
	{id: "batch/random", label: "Random batch, 10k", rate: true,
		seed: map[int][2]time.Duration{seedSmall: one(sec(8.933)), seedLarge: one(sec(91.976))}, target: ms(400)},
	{id: "batch/clustered", label: "Clustered batch, 10k", rate: true,
		seed: map[int][2]time.Duration{seedSmall: one(sec(9.042)), seedLarge: one(sec(93.280))}, target: ms(30)},
	{id: "put/append", label: "Single append put",
		seed: map[int][2]time.Duration{seedSmall: one(ms(7.48)), seedLarge: one(ms(12.35))}},
	{id: "put/random", label: "Single random put",
		seed: map[int][2]time.Duration{seedSmall: one(sec(9.214)), seedLarge: one(sec(89.286))}, target: ms(1)},
	{id: "put/clustered", label: "Single clustered put",
		seed: map[int][2]time.Duration{seedSmall: one(sec(9.186)), seedLarge: one(sec(89.855))}},
	{id: "get/cold", label: "Cold point get, per call (10k calls)", perOp: true,
		seed: map[int][2]time.Duration{seedSmall: span(us(2764), us(2793)), seedLarge: span(us(2733), us(2848))}, target: us(50)},
	{id: "get/warm", label: "Warm point get, per call (10k calls)", perOp: true,
		seed: map[int][2]time.Duration{seedSmall: span(us(0.752), us(1.812)), seedLarge: span(us(0.767), us(2.686))}, target: us(1.5)},
	{id: "getmany/ordered", label: "Ordered GetMany, 10k",
		seed: map[int][2]time.Duration{seedSmall: span(ms(51), ms(57)), seedLarge: span(ms(50), ms(54))}},
	{id: "getmany/random", label: "Random GetMany, 10k",
		seed: map[int][2]time.Duration{seedSmall: one(sec(2.967)), seedLarge: one(sec(6.753))}, target: ms(150)},
	{id: "range/ordered", label: "Ordered range scan, 10k",
		seed: map[int][2]time.Duration{seedSmall: span(ms(53), ms(60)), seedLarge: span(ms(53), ms(56))}, target: ms(3)},
	{id: "diff/append", label: "Append diff, 10k changes",
		seed: map[int][2]time.Duration{seedSmall: one(ms(61.4)), seedLarge: one(ms(53.2))}},
	{id: "diff/clustered", label: "Clustered diff, 10k changes",
		seed: map[int][2]time.Duration{seedSmall: one(ms(104.7)), seedLarge: one(ms(110.2))}, target: ms(10)},
	{id: "diff/random", label: "Random diff, 10k changes",
		seed: map[int][2]time.Duration{seedSmall: one(sec(6.395)), seedLarge: one(sec(13.342))}, target: ms(300)},
	{id: "merge/append", label: "Append merge, 20k changes", rate: true,
		seed: map[int][2]time.Duration{seedSmall: one(ms(92.3)), seedLarge: one(ms(111.6))}},
	{id: "merge/clustered", label: "Clustered merge, 20k changes", rate: true,
		seed: map[int][2]time.Duration{seedSmall: one(sec(8.905)), seedLarge: one(sec(87.586))}},
	{id: "merge/random", label: "Random merge, 20k changes", rate: true,
		seed: map[int][2]time.Duration{seedSmall: one(sec(11.296)), seedLarge: one(sec(100.711))}, target: sec(1)},
	// Not in the seed: DESIGN.md invariant 8 (digests ride the tree).
	{id: "digest/10k", label: "Range digest, 10k rows (ours only)"},
	{id: "digest/half", label: "Range digest, half the table (ours only)"},
}

// Targets outside the cell table (issue #3).
const (
	targetPeakRSS      = 1 << 30 // peak RSS during the 10M build
	targetScaleRatio   = 1.5     // random batch at 10M ÷ at 1M
	targetRandomAppend = 25.0    // random batch ÷ append batch at 10M
	seedScaleRatio     = 10.3
	seedRandomAppend   = 2031.0
)

// Seed storage figures (the seed's "Storage and database work"; 30.2 and
// 302.0 MiB of serialized nodes).
var seedTree = map[int]struct {
	nodes      int64
	height     int
	serialized int64
}{
	seedSmall: {nodes: 7_719, height: 3, serialized: 31_666_996},
	seedLarge: {nodes: 76_974, height: 3, serialized: 316_669_952},
}

// specOf returns the spec of a cell id.
func specOf(id string) (cellSpec, bool) {
	for _, c := range prollyCells {
		if c.id == id {
			return c, true
		}
	}
	return cellSpec{}, false
}
