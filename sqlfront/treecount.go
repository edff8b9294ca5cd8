package sqlfront

import (
	"context"
	"strings"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/query"
	"github.com/sidecar-dev/sidecar/snapshot"
)

// Full-table aggregates that the in-memory HEAD cannot answer (issue 21
// item 11: after a restart, while it restores its checkpoint) go to the
// trees, whose aggregate path reads every row (RunTree: 73–97 s for
// count(*) of 3M rows). Two answers come sooner:
//
//   - count(*) alone (no WHERE, no GROUP BY) is the tree's row count at
//     the version asked for: every Prolly node carries the count of its
//     subtree, so it is one node read, exact at that version (the tree
//     is that version's rows, one per key).
//   - any other full-table aggregate at HEAD of a large table, while the
//     HEAD is loading from its checkpoint (it answers in seconds, the
//     tree in minutes), is refused at once with 57P03 and how far the
//     load is: the client retries; it is never answered from a
//     half-restored heap nor from another version.

// loadingTreeRows is the table size from which a full-table aggregate at
// HEAD waits for a loading in-memory HEAD instead of reading the tree
// (a few seconds of tree reading under load).
var loadingTreeRows uint64 = 100_000

// codeCannotConnectNow is cannot_connect_now, PostgreSQL's "the database
// system is starting up": a client retries later.
const codeCannotConnectNow = "57P03"

// countOnly says whether req is count(*) alone over the whole table:
// answered by the tree's row count.
func countOnly(req query.Request) bool {
	if req.Where != nil || len(req.GroupBy) > 0 || len(req.Aggs) == 0 {
		return false
	}
	for _, a := range req.Aggs {
		if a.Func != "count" || a.Col != "" {
			return false
		}
	}
	return true
}

// treeCount answers a countOnly req at v from the tree's root count
// (ok=false: not this way; the caller reads the rows).
func (s *HistorySource) treeCount(ctx context.Context, v Version, t *Table, req query.Request) (res *query.Result, ok bool, err error) {
	if !countOnly(req) || t.part != nil || s.H == nil || s.H.Snapshots() == nil {
		return nil, false, nil
	}
	snap, err := s.H.Snapshots().Open(ctx, v.pin)
	if err != nil {
		return nil, false, nil // the tree path reports it
	}
	defer snap.Release()
	tr, err := snapshot.OpenTree(ctx, s.M, snap.Point(), t.Name)
	if err != nil || !tr.Exists || tr.Codec == nil || !sameRelation(tr.Rel, t) {
		// REPLICA IDENTITY FULL (no codec): the key is the whole row and
		// equal rows share it, so the key count is not the row count. A
		// table absent at the version goes to the row path, which
		// refuses a version before the mirror's copy of it (55000).
		return nil, false, nil
	}
	n, err := tr.Eng.Count(ctx, tr.Root)
	if err != nil {
		return nil, false, err
	}
	p, err := query.Bind(req, schemaOf(t))
	if err != nil {
		return nil, false, nil
	}
	res, err = query.Run(ctx, p, rowCount{rows: int64(n), lsn: uint64(snap.LSN())}, query.Options{})
	return res, err == nil, err
}

// rowCount is a query.Source of n rows and no pages: what query.Run's
// summaries need for count(*) (Rows); nothing else is asked of it.
type rowCount struct {
	rows int64
	lsn  uint64
}

func (c rowCount) NumPages() int                    { return 0 }
func (c rowCount) Page(int) heap.PageView           { return heap.PageView{} }
func (c rowCount) PageLive(int) int                 { return 0 }
func (c rowCount) PageStats(int, int) heap.ColStats { return heap.ColStats{} }
func (c rowCount) Stats(int) heap.ColStats          { return heap.ColStats{} }
func (c rowCount) Rows() int64                      { return c.rows }
func (c rowCount) LSN() uint64                      { return c.lsn }

// refuseWhileLoading is the 57P03 refusal of a full-table aggregate of a
// large table at HEAD while the in-memory HEAD loads (nil: read the tree).
func (s *HistorySource) refuseWhileLoading(v Version, t *Table, req query.Request) error {
	if s.HeadLoading == nil || !(v.Ref == "" || strings.EqualFold(v.Ref, "HEAD")) {
		return nil
	}
	if ranged, err := keyRanged(req, t); err != nil || ranged {
		return nil
	}
	var rows uint64
	for _, ti := range s.M.Tables() {
		if ti.Name == t.Name {
			rows = ti.Rows
		}
	}
	if rows < loadingTreeRows {
		return nil
	}
	why := s.HeadLoading()
	if why == "" {
		return nil
	}
	return errf(codeCannotConnectNow, -1, "%s: an aggregate over all %d rows of %s is answered once it is ready", why, rows, t.Name).
		hint("Retry in a few seconds (GET /api/status: head.phase); point gets, key ranges and count(*) are answered now.")
}

// keyRanged says whether req's WHERE bounds the first key column (the
// tree path then reads that range only).
func keyRanged(req query.Request, t *Table) (bool, error) {
	if req.Where == nil || len(t.KeyCols) == 0 {
		return false, nil
	}
	p, err := query.Bind(req, schemaOf(t))
	if err != nil {
		return false, err
	}
	r, ok := p.KeyRangeOf(t.Columns[t.KeyCols[0]].Name)
	return ok && (r.Empty || r.HasLo || r.HasHi), nil
}
