package history

import (
	"context"
	"sync"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// HeadReader serves reads from an in-memory copy of the followed tables'
// HEAD (package head: heap pages and a radix index, derived from the
// trees). It answers only when it holds exactly the version asked for
// (served=false otherwise) and the Service then reads the tree, so a read
// through it is as exact as one through the tree.
type HeadReader interface {
	// HeadTable returns the reader's state of table (by its canonical
	// name), or ok=false when it holds none.
	HeadTable(table string) (t HeadTable, ok bool)
}

// HeadTable is one table of a HeadReader. Its relation is that of the
// rows it serves; once the reader replaces the table (a reset, a schema
// change) it serves nothing more (served=false).
type HeadTable interface {
	Relation() *wal.Relation
	// HeadGet appends the row under key at version at to dst.
	HeadGet(key []byte, at wal.LSN, dst []byte) (row []byte, found, served bool)
	// HeadRange calls fn for each key in [from, to) (nil: unbounded), in
	// key order, at most limit rows, within one committed state, each row
	// holding the values of columns cols in that order (nil: every
	// column). fn runs under the reader's lock: it must copy and return
	// quickly.
	HeadRange(from, to []byte, limit int, at wal.LSN, cols []int, fn func(key, row []byte) bool) (served bool, err error)
}

// maxHeadScan bounds the scans served by the HeadReader: a scan is
// collected under its read lock (one committed state, apply of that table
// waits meanwhile) and then written out, so only bounded ones go there;
// longer ones stream from the tree.
const maxHeadScan = 100_000

// SetHead makes the service serve Get and bounded Scan reads from h when
// h holds the version a request resolves to. Call it before serving.
func (s *Service) SetHead(h HeadReader) { s.head = h }

// Head returns the HeadReader SetHead gave (nil when none): the query
// engine asks it for heap snapshots at HEAD.
func (s *Service) Head() HeadReader { return s.head }

// headCache keeps what a read through the HeadReader derives from a
// relation (its key codec, its projection of every column), by relation:
// relations are immutable once published, a schema change makes a new one.
type headCache struct {
	m sync.Map // *wal.Relation → *headRel
}

type headRel struct {
	codec *rowenc.KeyCodec // nil: no key (REPLICA IDENTITY FULL)
	all   projection
}

func (c *headCache) of(rel *wal.Relation) (*headRel, bool) {
	if v, ok := c.m.Load(rel); ok {
		return v.(*headRel), true
	}
	codec, err := codecOf(rel)
	if err != nil {
		return nil, false
	}
	pr, _ := project(rel, nil)
	hr := &headRel{codec: codec, all: pr}
	c.m.Store(rel, hr)
	return hr, true
}

// headAt resolves a request to the HeadReader's table and the version to
// read; ok=false means "read the tree" (including every error, which the
// tree path reports in its own words). HEAD is the mirror's head commit,
// read without resolving the ref through the store.
func (s *Service) headAt(ctx context.Context, req ReadRequest) (t HeadTable, hr *headRel, name string, at wal.LSN, ref string, ok bool) {
	if s.head == nil {
		return nil, nil, "", 0, "", false
	}
	ref = req.AsOf
	if ref == "" {
		ref = "HEAD"
	}
	name = req.Table
	t, ok = s.head.HeadTable(name)
	if !ok {
		// Not the canonical name, or not held: look the name up.
		info, err := s.tableInfo(req.Table)
		if err != nil {
			return nil, nil, "", 0, "", false
		}
		if t, ok = s.head.HeadTable(info.Name); !ok {
			return nil, nil, "", 0, "", false
		}
		name = info.Name
	}
	if h := s.mirror.Head(); ref == "HEAD" && h.EndLSN != 0 {
		at = h.EndLSN
	} else {
		p, err := s.refs.Resolve(ctx, ref)
		if err != nil || p.Branch != nil {
			return nil, nil, "", 0, "", false
		}
		at = p.LSN()
	}
	if hr, ok = s.headRels.of(t.Relation()); !ok {
		return nil, nil, "", 0, "", false
	}
	return t, hr, name, at, ref, true
}

// getHead tries Get on the HeadReader; ok=false: read the tree. Nothing is
// passed to row until every key was served.
func (s *Service) getHead(ctx context.Context, req ReadRequest, row func(RawRow) error) (ReadHeader, [][]string, bool, error) {
	t, hr, name, at, ref, ok := s.headAt(ctx, req)
	if !ok || hr.codec == nil {
		return ReadHeader{}, nil, false, nil
	}
	rel := t.Relation()
	pr := hr.all
	if len(req.Columns) > 0 {
		var err error
		if pr, err = project(rel, req.Columns); err != nil {
			return ReadHeader{}, nil, false, nil // the tree path reports it
		}
	}
	nkeys := len(rel.KeyColumns())
	if len(req.PK) == 0 || len(req.PK)%nkeys != 0 {
		return ReadHeader{}, nil, false, nil
	}
	var missing [][]string
	var arena []byte
	var ends []int
	var key []byte
	texts := make([][]byte, nkeys)
	for i := 0; i < len(req.PK); i += nkeys {
		k := req.PK[i : i+nkeys]
		for j := range k {
			texts[j] = []byte(k[j])
		}
		var err error
		if key, err = hr.codec.Append(key[:0], texts); err != nil {
			return ReadHeader{}, nil, false, nil
		}
		var found, served bool
		arena, found, served = t.HeadGet(key, at, arena)
		if !served {
			return ReadHeader{}, nil, false, nil
		}
		if !found {
			missing = append(missing, k)
			continue
		}
		ends = append(ends, len(arena))
	}
	h := ReadHeader{Table: name, LSN: at.String(), Ref: ref, Columns: pr.columns}
	var buf []byte
	off := 0
	for _, e := range ends {
		r, b, err := pr.raw(arena[off:e:e], buf)
		if err != nil {
			return h, missing, true, err
		}
		buf, off = b, e
		if err := row(r); err != nil {
			return h, missing, true, err
		}
	}
	return h, missing, true, nil
}

// scanHead tries a bounded Scan on the HeadReader. ok=false: read the tree.
func (s *Service) scanHead(ctx context.Context, req ReadRequest, header func(ReadHeader) error, row func(RawRow) error) (bool, error) {
	if s.head == nil || req.Limit <= 0 || req.Limit > maxHeadScan {
		return false, nil
	}
	t, hr, name, at, ref, ok := s.headAt(ctx, req)
	if !ok {
		return false, nil
	}
	rel := t.Relation()
	pr := hr.all
	if len(req.Columns) > 0 {
		var err error
		if pr, err = project(rel, req.Columns); err != nil {
			return false, nil // the tree path reports it
		}
	}
	kr, err := s.scanRange(name, rel, hr.codec, req)
	if err != nil {
		return false, nil // the tree path reports it
	}
	var ends []int
	var arena []byte
	served, err := t.HeadRange(kr.Start, kr.End, req.Limit, at, pr.idx, func(_, r []byte) bool {
		arena = append(arena, r...)
		ends = append(ends, len(arena))
		return true
	})
	if !served || err != nil {
		return false, nil
	}
	if err := header(ReadHeader{Table: name, LSN: at.String(), Ref: ref, Columns: pr.columns}); err != nil {
		return true, err
	}
	// The heap wrote the projection already: the rows are named as is.
	named := projection{rel: rel, names: pr.names, columns: pr.columns}
	off := 0
	for _, e := range ends {
		r, _, err := named.raw(arena[off:e:e], nil)
		if err != nil {
			return true, err
		}
		off = e
		if err := row(r); err != nil {
			return true, err
		}
	}
	return true, nil
}
