package exec

import (
	"context"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// TypedSource is a Source that hands a scan its rows already decoded:
// each batch holds only the columns the scan reads, as types.Value
// vectors (what types.In of the stored text gives), without the text
// round trip. A scan uses it when the source offers it; Source.Scan
// stays the fallback.
type TypedSource interface {
	Source
	// ScanTyped calls fn with the rows of req.Table in batches of at
	// most BatchSize rows: vector c holds column req.Ords[c] (NULL is
	// nil; a column the row lacks, stored before ADD COLUMN, is NULL).
	// Each Batch is fn's to keep, unless req.Reuse is set. The rows are every row of the table at
	// the statement's version (req.Key, when set, is a hint the source
	// may use to read fewer: the scan still applies its filter).
	ScanTyped(ctx context.Context, req *ScanRequest, fn func(*Batch) error) error
}

// ScanRequest is what one scan reads.
type ScanRequest struct {
	Table *plan.TableDef
	// Ords are the table's column ordinals the scan reads, in vector
	// order; OIDs their types.
	Ords []int
	OIDs []plan.OID
	// Key, when set, narrows the rows to a primary-key range: KeyEq are
	// the values of the leading key columns, then KeyLo/KeyHi (nil:
	// unbounded) bound the next one. Only the values of non-NULL
	// constants and parameters are given.
	Key *KeyBounds
	// Reuse says that fn keeps neither a batch nor its vectors once it
	// returns (the operator above copies the values it keeps: a hash
	// join's sides, a hash aggregation's input): the source may hand the
	// same Batch again, refilled, and save allocating (and clearing) one
	// per batch. Without it every batch is new.
	Reuse bool
	// Partial, when set, is the hash aggregation reading the scan: a
	// source decoding on several goroutines may aggregate the rows in
	// them (PartialAgg.Worker, AggWorker.Add) instead of handing them on.
	// The rows it hands are aggregated by the reader as before.
	Partial *PartialAgg
	// Small, when set (and Partial is not), says which vectors the
	// reader takes typed (Batch.Small: an integer or numeric column read
	// only by the small path of the aggregation above the joins reading
	// the scan; joinvec.go). The source may hand them so or boxed.
	Small []bool
	// Order is the key order of an OrderedSource's read (scan_ordered.go);
	// Want, when positive, the rows the reader takes at most when no
	// filter drops any (a LIMIT's count and offset): the size of the
	// first chunk read.
	Order plan.KeyOrder
	Want  int64
	// KeyFixed is how many leading key columns the plan's key range
	// holds equal to one value each (their rows' order is the rest's).
	KeyFixed int
	// Skip is how many rows of the key order the source passes over
	// without handing them (a LIMIT's OFFSET over a scan without filter):
	// they need not be decoded.
	Skip int64
	// Scans is how many scans of the statement read the table (the
	// scan's own included); ShareBytes the memory the source may keep
	// pages decoded for one scan in, for the others to read
	// (scan_share.go). Scans < 2: nothing is worth keeping.
	Scans      int
	ShareBytes int64
}

// KeyBounds is a scan's primary-key range, evaluated (see plan.KeyRange).
type KeyBounds struct {
	Eq             []types.Value
	EqOIDs         []plan.OID
	Lo, Hi         types.Value // on key column len(Eq); nil: unbounded
	LoIncl, HiIncl bool
	BoundOID       plan.OID
}

// runTyped reads the scan's rows through a TypedSource (ok=false: the
// source is not one).
func (s *scanOp) runTyped(emit func(*Batch) error) (bool, error) {
	e := s.e
	ts, ok := e.src.(TypedSource)
	if !ok {
		return false, nil
	}
	req := &ScanRequest{Table: s.s.Table, Ords: s.s.Ords, OIDs: make([]plan.OID, len(s.s.Cols))}
	for i, id := range s.s.Cols {
		req.OIDs[i] = e.md.Column(id).Type.OID
	}
	if !s.repeat || s.noCache { // a cached scan reads every row once, for every outer value
		req.Key = s.keyBounds() // scan_outerkey.go: an uncached repeated scan's key may read outer columns
	}
	req.Reuse = s.transient
	req.Small = s.small                                 // joinvec.go
	req.Scans, req.ShareBytes = e.shareScans(s.s.Table) // scan_share.go
	late := s.late
	if len(s.keySteps) > 0 && (s.filter == nil || s.late != nil) {
		late = late.with(e, s.s, s.keySteps)
	}
	if ls, ok := ts.(LateSource); ok && late != nil {
		req.Partial = s.partial // the source applies the whole filter
		return true, ls.ScanLate(e.ctx, req, late, func(b *Batch) error {
			if b.N == 0 {
				return nil
			}
			if err := e.check(); err != nil {
				return err
			}
			return emit(b)
		})
	}
	if s.filter == nil && late == nil {
		req.Partial = s.partial // no filter for emitFiltered to apply
	}
	return true, ts.ScanTyped(e.ctx, req, func(b *Batch) error { return s.emitFiltered(b, emit) })
}

// emitFiltered checks the statement's context, applies the scan's
// pushed filter to b and emits what is left (nothing for an empty batch).
func (s *scanOp) emitFiltered(b *Batch, emit func(*Batch) error) error {
	if b.N == 0 {
		return nil
	}
	if err := s.e.check(); err != nil {
		return err
	}
	out := b
	if s.filter != nil {
		var err error
		if out, err = filterBatch(b, s.filter); err != nil {
			return err
		}
	}
	if out.N == 0 {
		return nil
	}
	return emit(out)
}

// keyBounds evaluates the scan's key range when its bounds are constants
// or parameters (nil otherwise, or when one is NULL: the filter then
// decides, reading every row).
func (s *scanOp) keyBounds() *KeyBounds {
	k := s.s.Key
	if k == nil || s.s.Table == nil || len(s.s.Table.Key) < len(k.Eq)+1 && (k.Lo != nil || k.Hi != nil) {
		return nil
	}
	eval := func(x plan.Scalar) (types.Value, plan.OID, bool) {
		if v, oid, outer := s.outerKey(x); outer {
			return v, oid, v != nil
		}
		ok := true
		plan.Walk(x, func(y plan.Scalar) bool {
			switch y.(type) {
			case *plan.Const, *plan.Param, *plan.Cast: // a cast widening an integer (opt.boundOf)
			default:
				ok = false
			}
			return ok
		})
		if !ok {
			return nil, 0, false
		}
		c := &compiler{e: s.e, lay: layout{}}
		f, err := c.compile(x)
		if err != nil {
			return nil, 0, false
		}
		res := make([]types.Value, 1)
		if err := f(&Batch{N: 1}, []int{0}, res); err != nil || res[0] == nil {
			return nil, 0, false
		}
		return res[0], x.Type().OID, true
	}
	if len(k.Eq) > len(s.s.Table.Key) {
		return nil
	}
	kb := &KeyBounds{LoIncl: k.LoIncl, HiIncl: k.HiIncl}
	for i, x := range k.Eq {
		v, oid, ok := eval(x)
		if !ok || oid != s.s.Table.Columns[s.s.Table.Key[i]].Type.OID {
			return nil
		}
		kb.Eq, kb.EqOIDs = append(kb.Eq, v), append(kb.EqOIDs, oid)
	}
	if k.Lo == nil && k.Hi == nil {
		return kb
	}
	want := s.s.Table.Columns[s.s.Table.Key[len(k.Eq)]].Type.OID
	if s.e.keyOrder(want) != nil {
		return kb // rows are kept in byte order: a text range under a locale is the filter's (collate.go)
	}
	kb.BoundOID = want
	for _, b := range []struct {
		x   plan.Scalar
		dst *types.Value
	}{{k.Lo, &kb.Lo}, {k.Hi, &kb.Hi}} {
		if b.x == nil {
			continue
		}
		v, oid, ok := eval(b.x)
		if !ok || oid != want {
			return nil
		}
		*b.dst = v
	}
	return kb
}
