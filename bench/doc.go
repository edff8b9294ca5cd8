// Package bench reproduces the reference benchmark reports of
// /work/shared/seeds on this machine and writes them, in the seed's shape
// with the seed's figures beside ours, to bench/results/.
//
// RunProlly is the Prolly-tree matrix of issue #3 (seed
// 000_3211c8e99f58de76: a Prolly tree stored in PostgreSQL): build, full
// scan, append/random/clustered batches and single puts, cold and warm point
// gets, GetMany, range scans, diff and merge at 1M and 10M records, each
// timed cell checked for the right answer so that a broken engine cannot
// post a fast number. WriteProllyMarkdown renders the report.
//
// The machine is shared and noisy: every cell but build and full scan runs
// Reps times (3 by default) and reports the median with min and max, and the
// report says what caches each cell starts from.
package bench
