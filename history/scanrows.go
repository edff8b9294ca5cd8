package history

import (
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/wal"
)

// ScanRows is Scan for engines that parse rows themselves (query.RunTree
// loads them into a heap): header gets the relation the rows are encoded
// with, and row each row's stored bytes (vrow1, the relation's column
// order; a row stored before columns were added has fewer values), in key
// order, without decoding them into strings. row's bytes are valid only
// during the call. It always reads the tree.
func (s *Service) ScanRows(ctx context.Context, req ReadRequest, header func(ReadHeader, *wal.Relation) error, row func(vrow []byte) error) error {
	defer s.mirror.Reading()()
	t, h, _, err := s.openRead(ctx, req)
	if err != nil {
		return err
	}
	kr, err := s.scanRange(req.Table, t.rel, t.codec, req)
	if err != nil {
		return err
	}
	if err := header(h, t.rel); err != nil {
		return err
	}
	if kr.empty() {
		return nil
	}
	c, err := t.rows.Rows(ctx, kr.Start, kr.End)
	if err != nil {
		return fmt.Errorf("scan %s at %s: %w", req.Table, h.LSN, err)
	}
	for n := 0; (req.Limit <= 0 || n < req.Limit) && c.Next(); n++ {
		if err := row(c.Value()); err != nil {
			return err
		}
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("scan %s at %s: %w", req.Table, h.LSN, err)
	}
	return nil
}
