package sqlfront

import (
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/sql/exec"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// ScanOrdered implements exec.OrderedSource: a table of the mirror read
// in primary-key order, forward or backward (snapshot.Table.KeyOrdered:
// the in-memory HEAD's index a chunk at a time, each chunk's rows
// decoded from the typed pages in key order; the tree's cursor
// otherwise), so an ORDER BY on the key under a LIMIT reads the rows it
// keeps and a chunk more, not the table. Only where each key column's
// encoding orders as the plan's type does (keyOrderKinds); catalog
// relations, partitioned roots and inheritance parents are sorted by
// the executor instead (ok=false).
func (s *vecSource) ScanOrdered(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) (bool, error) {
	if s.virt[req.Table] != nil {
		return false, nil
	}
	planned := s.tables[req.Table]
	if planned == nil {
		return false, fmt.Errorf("scan %s: the table was not planned by this statement", req.Table.Name)
	}
	hs, ok := s.ex.src.(*HistorySource)
	if !ok || hs.H == nil || hs.H.Snapshots() == nil || planned.part != nil || inheritsVec(planned) {
		return false, nil
	}
	v, err := s.ex.sess.versionFor(ctx, s.refs[req.Table])
	if err != nil {
		return true, err
	}
	snap, err := s.snapshotAt(ctx, hs, v)
	if err != nil {
		return true, err
	}
	t, err := snap.Table(ctx, planned.Name)
	if err != nil {
		return true, err
	}
	if !sameRelation(t.Rel, planned) {
		return true, errReplan // nothing of this statement was sent yet: plan it again
	}
	if !keyOrderKinds(t.Codec, req.Table, req.KeyFixed) {
		return false, nil
	}
	from, to := keyRange(t.Codec, req.Key)
	var counter func(int)
	if s.ex.sess != nil {
		srv := s.ex.sess.srv
		counter = func(n int) { srv.keyOrderRows.Add(int64(n)) }
	}
	decs, err := pageDecoders(t.Rel.Columns, req)
	if err != nil {
		return true, err
	}
	bt := newScanBatcher(ctx, len(req.Ords), fn)
	early := int(min(max(req.Want-req.Skip, 1), exec.BatchSize)) // the rows the LIMIT keeps
	skip := req.Skip                                             // rows passed over undecoded (the LIMIT's OFFSET)
	pages := func(p snapshot.Pages) error {
		if counter != nil {
			counter(len(*p.Only))
		}
		ids := *p.Only
		n := int(min(skip, int64(len(ids))))
		ids, skip = ids[n:], skip-int64(n)
		ch := newPageChunker(ctx, req, decs, nil, fn)
		ch.raw = rawCols(t.Rel.Columns, req)
		if err := ch.addRows(p.Heap, ids); err != nil { // vexec_scan.go
			return err
		}
		return ch.end()
	}
	rows := func(_, row []byte) error {
		if counter != nil {
			counter(1)
		}
		if skip > 0 {
			skip--
			return nil
		}
		if err := bt.put(req, row); err != nil { // vexec_scan.go
			return err
		}
		if bt.b.N+1 >= early && bt.b.N+1 < exec.BatchSize {
			// As many rows as the LIMIT takes: hand them on now, the
			// cursor need not read a batch more (then in growing
			// batches, for a filter that drops rows).
			bt.b.N++
			out := bt.b
			bt.b = newScanBatch(len(req.Ords))
			early = min(early*4, exec.BatchSize)
			if err := ctx.Err(); err != nil {
				return err
			}
			return fn(out)
		}
		return bt.row()
	}
	desc := req.Order == lplan.KeyDesc
	return true, bt.end(t.KeyOrdered(ctx, from, to, desc, int(min(req.Want, 1<<20)), req.Ords, pages, rows))
}

// keyOrderKinds says whether every key column of t after the fixed
// leading ones (equal to one value: any encoding) is encoded (codec) in
// an order that is its plan type's ORDER BY order (sql/opt keyorder.go
// chose the scan for those types; a domain, keyed by its text, is not;
// text and varchar only under a byte-order collation: ColumnDef.ByteOrder).
func keyOrderKinds(codec *rowenc.KeyCodec, t *lplan.TableDef, fixed int) bool {
	if codec == nil {
		return false
	}
	kinds := codec.Kinds()
	if len(kinds) != len(t.Key) {
		return false
	}
	for i, ord := range t.Key[min(fixed, len(t.Key)):] {
		i += fixed
		want := keyOrderKind(t.Columns[ord])
		if want == 0 || kinds[i] != want {
			return false
		}
	}
	return true
}
