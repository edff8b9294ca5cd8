package exec

import "github.com/sidecar-dev/sidecar/sql/plan"

// A statement reading one table in several scans (TPC-H's Q21 reads
// lineitem as l1, l2 and l3; a self-join; a table in a subquery and
// outside it) makes its source decode the table's stored pages once per
// scan. The scan tells the source how many of the statement's scans read
// the table and how much memory it may keep decoded pages in for the
// others (ScanRequest.Scans, ShareBytes): a quarter of the statement's
// working memory, as a repeated scan's cache (basic.go). The source
// charges what it keeps to the statement's memory.query account and
// drops it when the last of those scans ends (heap.ScanCache).

// countScan counts a scan of table built for the statement.
func (e *env) countScan(t *plan.TableDef) {
	if t == nil {
		return
	}
	if e.tableScans == nil {
		e.tableScans = map[string]int{}
	}
	e.tableScans[t.QualifiedName()]++
}

// shareScans is ScanRequest.Scans and ShareBytes for a scan of t.
func (e *env) shareScans(t *plan.TableDef) (int, int64) {
	if t == nil {
		return 0, 0
	}
	n := e.tableScans[t.QualifiedName()]
	if n < 2 {
		return n, 0
	}
	return n, e.limit / 4
}
