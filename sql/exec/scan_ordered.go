package exec

import (
	"context"

	"github.com/sidecar-dev/sidecar/sql/plan"
)

// A Scan in key order (plan.Scan.Order, sql/opt keyorder.go) hands its
// rows in its table's primary-key order: the Sort of an ORDER BY on the
// key under a LIMIT is gone, and the LIMIT stops the read once it has
// its rows. A source that reads in key order (OrderedSource: the
// in-memory HEAD's index, the Prolly tree forward or backward) is asked
// to; any other source, and a scan repeated per outer row, is read whole
// and sorted on the key columns (a top-N when the LIMIT above tells its
// bound), so the answer never depends on the source.

// OrderedSource is a TypedSource that can read a table in key order.
type OrderedSource interface {
	TypedSource
	// ScanOrdered calls fn with the rows of req.Table as ScanTyped
	// does, in the order of its primary key (req.Order: ascending or
	// descending) within req.Key's range, reading as fn takes them (a
	// LIMIT stops it: fn's error ends the read and is returned).
	// ok=false: the source cannot read this table in that order, and
	// nothing was read.
	ScanOrdered(ctx context.Context, req *ScanRequest, fn func(*Batch) error) (ok bool, err error)
}

// keyOrderFallback builds what an ordered scan runs when its source
// cannot read in key order: the scan unordered under a sort on the key
// columns it reads (the ones it does not are fixed by its key range).
func (e *env) keyOrderFallback(op *scanOp) error {
	plain := *op.s
	plain.Order = plan.NoKeyOrder
	in, err := e.buildScan(&plain)
	if err != nil {
		return err
	}
	op.sorted = &sortOp{e: e, in: in, keys: scanKeyOrder(op.s)}
	return nil
}

// scanKeyOrder is the order of a scan in key order as sort keys on the
// key columns it reads (nil: not in key order).
func scanKeyOrder(s *plan.Scan) []plan.SortKey {
	if s.Order == plan.NoKeyOrder {
		return nil
	}
	var keys []plan.SortKey
	for _, ord := range s.Table.Key {
		for i, o := range s.Ords {
			if o == ord {
				keys = append(keys, plan.SortKey{Col: s.Cols[i], Desc: s.Order == plan.KeyDesc})
				break
			}
		}
	}
	return keys
}

// runKeyOrder reads the scan's rows in key order.
func (s *scanOp) runKeyOrder(emit func(*Batch) error) error {
	e := s.e
	if os, ok := e.src.(OrderedSource); ok && !s.repeat {
		req := &ScanRequest{Table: s.s.Table, Ords: s.s.Ords, OIDs: make([]plan.OID, len(s.s.Cols)), Order: s.s.Order, Want: s.want}
		for i, id := range s.s.Cols {
			req.OIDs[i] = e.md.Column(id).Type.OID
		}
		req.Key = s.keyBounds()
		if s.s.Key != nil {
			req.KeyFixed = len(s.s.Key.Eq)
		}
		req.Skip = s.skip
		done, err := os.ScanOrdered(e.ctx, req, func(b *Batch) error { return s.emitFiltered(b, emit) })
		if done {
			return err
		}
	}
	if s.want > 0 {
		s.sorted.bound = s.want
	}
	skip := s.skip
	return s.sorted.run(func(b *Batch) error {
		if lo := skipOffset(b, &skip); lo < b.N {
			return emit(slice(b, lo, b.N))
		}
		return nil
	})
}

// takeOffset has the scan pass over the first offset rows of the key
// order itself when nothing filters them (a source then does not decode
// them), and returns the offset left to the LIMIT.
func (s *scanOp) takeOffset(offset int64) int64 {
	s.skip = 0
	if s.filter != nil || s.repeat {
		return offset
	}
	s.skip = offset
	return 0
}

// keyOrderedScan is the scan in key order under projections of rel's
// operator (nil: none): a LIMIT above tells it how many rows it needs.
func keyOrderedScan(op operator) *scanOp {
	for {
		switch x := op.(type) {
		case *projectOp:
			op = x.in
			continue
		case *scanOp:
			if x.s.Order != plan.NoKeyOrder {
				return x
			}
		}
		return nil
	}
}

// keyOrdered reports whether rel's rows come in a scan's key order:
// a scan in key order under filters and projections. Its key being
// unique, no two rows tie, so the rows a LIMIT over it keeps do not
// depend on an order PostgreSQL's plan chooses (limitorder.go).
func keyOrdered(rel plan.Rel) bool {
	switch x := rel.(type) {
	case *plan.Scan:
		return x.Order != plan.NoKeyOrder
	case *plan.Filter:
		return keyOrdered(x.Input)
	case *plan.Project:
		return keyOrdered(x.Input)
	}
	return false
}
