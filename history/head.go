package history

import (
	"context"

	"github.com/sidecar-dev/sidecar/snapshot"
)

// HeadReader is the in-memory copy of the followed tables' HEAD (package
// head: heap pages and a radix index, derived from the trees) as reads
// use it: through snapshot/, which reads a table from it only when it
// holds exactly the version asked for, and from the tree otherwise, so a
// read through it is as exact as one through the tree.
type HeadReader = snapshot.Head

// HeadTable is one table of a HeadReader (see snapshot.HeadTable).
type HeadTable = snapshot.HeadTable

// SetHead makes the service read tables from h when h holds the version a
// request resolves to. Call it before serving.
func (s *Service) SetHead(h HeadReader) { s.head, s.snaps.Head = h, h }

// Head returns the HeadReader SetHead gave (nil when none): the query
// engine asks it for heap snapshots at HEAD.
func (s *Service) Head() HeadReader { return s.head }

// Snapshots is the service's view of the mirror for readers: snapshots at
// one version each, reading the in-memory HEAD when SetHead gave one.
func (s *Service) Snapshots() *snapshot.Store { return s.snaps }

// openSnapshot opens the table a read request names in a snapshot at the
// request's version, with the header naming them. The table is looked up
// before the ref is resolved (an unknown table is reported first). The
// caller releases the snapshot.
func (s *Service) openSnapshot(ctx context.Context, req ReadRequest) (*snapshot.Snapshot, *snapshot.Table, ReadHeader, error) {
	info, err := s.tableInfo(req.Table)
	if err != nil {
		return nil, nil, ReadHeader{}, err
	}
	sn, err := s.snaps.Open(ctx, req.AsOf)
	if err != nil {
		return nil, nil, ReadHeader{}, err
	}
	t, err := sn.TableOf(ctx, info)
	if err != nil {
		sn.Release()
		return nil, nil, ReadHeader{}, err
	}
	return sn, t, ReadHeader{Table: t.Name, LSN: sn.LSN().String(), Ref: sn.Ref()}, nil
}
