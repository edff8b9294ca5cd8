package sqlfront

import (
	"context"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/membudget"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/sql/exec"
)

// shareScans attaches to the pinned heap snapshot a statement's scans of
// one table share the cache of the pages they decode
// (heap.ScanCache), when the statement reads the table in several scans
// (exec.ScanRequest.Scans): the others then read the pages the first
// decoded instead of decoding them again. Its bytes are charged to the
// statement's memory.query account (the one ctx carries), bounded by
// req.ShareBytes. The caller ends its scan with EndScan on the result
// (nil-safe): the last scan's end drops the pages.
func shareScans(ctx context.Context, p snapshot.Pages, req *exec.ScanRequest) *heap.ScanCache {
	if p.Only != nil || req.Scans < 2 || req.ShareBytes <= 0 {
		return nil // a key range's rows: read by row id, not through the cache
	}
	var charge heap.Charger
	if a := membudget.AccountFrom(ctx); a != nil {
		charge = a
	}
	return p.Heap.ShareScans(req.Scans, req.ShareBytes, charge)
}
