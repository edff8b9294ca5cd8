package mirror

import (
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// BenchmarkBigUpdate applies the shape of the seed-003 UPDATE: one
// transaction updating every row of a 200k-row table (so it spills into
// scratch trees and commits as a group of its own), through Change and
// Commit as the stream delivers it. One op is the whole transaction:
// what the sidecar does between PostgreSQL's COMMIT arriving and durable.
func BenchmarkBigUpdate(b *testing.B) {
	const rows = 200_000
	h := newMHarness(b, Options{})
	rel := testRel(17302, "big")
	copied := make(map[int64]modelRow, rows)
	for i := range rows {
		copied[int64(i)] = modelRow{sp(strconv.Itoa(i)), sp("value-" + strconv.Itoa(i)), sp("0")}
	}
	h.copyTable(rel, copied, 1)
	changes := make([]*wal.Change, rows)
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		score := strconv.Itoa(n + 1)
		for i := range rows {
			changes[i] = &wal.Change{Kind: wal.Update, Relation: rel,
				New: modelRow{sp(strconv.Itoa(i)), sp("value-" + strconv.Itoa(i)), sp(score)}.values()}
		}
		b.StartTimer()
		info := h.begin()
		for _, c := range changes {
			h.change(c)
		}
		h.commit(info)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}
