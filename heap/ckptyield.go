package heap

import "runtime"

// yieldCPU gives the processor to any runnable goroutine between two
// units of a checkpoint's CPU work (a page encoded and compressed).
//
// Why: the checkpoint is background work, but Go's scheduler does not
// know it. With GOMAXPROCS 2 (this project's machines), the checkpoint
// that follows a large initial copy (37 s at 30M rows) holds one
// processor for tens of milliseconds at a time, the store's write and
// compaction goroutines the other, and a point get's goroutine — woken by
// the network poller — waits for a P until the scheduler preempts one
// (every 10 ms), once per hand-off: 34.6 ms warm gets beside 4.65 ms
// after a restart at 30M rows (bench/results/scale-2026-12-06-s20-30m-after-b.md),
// scheduling latency p99 33.6 ms during the checkpoint against 164 µs
// after it at 3M (bench/results/scale-2026-12-07-s21-*.md). Yielding
// after every page bounds that wait by one page's encode (≤ 1 ms); when
// nothing else is runnable it costs a scheduler call.
func yieldCPU() { runtime.Gosched() }
