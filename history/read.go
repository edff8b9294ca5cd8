package history

import (
	"context"
	"fmt"
)

// ReadRequest selects rows of one table at one version.
type ReadRequest struct {
	Table string
	AsOf  string // ref; default HEAD
	// PK (Get): primary keys, one value per key column in key order, keys
	// one after another (a two-column key takes two values per row).
	PK []string
	// From, To (Scan): values of the first key column bounding the scan,
	// From inclusive, To exclusive; empty: unbounded.
	From, To string
	Limit    int // Scan: at most this many rows (<= 0: all)
}

// ReadHeader describes the rows that follow.
type ReadHeader struct {
	Table   string   `json:"table"`
	LSN     string   `json:"lsn"` // the commit read (for a branch: the commit it came from)
	Ref     string   `json:"ref"`
	Columns []Column `json:"columns"`
}

// GetResult is the outcome of Get: the rows found, in the order of the
// keys asked for, and the keys not found.
type GetResult struct {
	ReadHeader
	Rows    []Row      `json:"rows"`
	Missing [][]string `json:"missing,omitempty"`
}

func (s *Service) openRead(ctx context.Context, req ReadRequest) (*tree, ReadHeader, error) {
	ref := req.AsOf
	if ref == "" {
		ref = "HEAD"
	}
	info, err := s.tableInfo(req.Table)
	if err != nil {
		return nil, ReadHeader{}, err
	}
	req.Table = info.Name
	p, err := s.refs.Resolve(ctx, ref)
	if err != nil {
		return nil, ReadHeader{}, err
	}
	t, err := s.treeAt(ctx, p, req.Table)
	if err != nil {
		return nil, ReadHeader{}, err
	}
	return t, ReadHeader{Table: req.Table, LSN: p.LSN().String(), Ref: ref, Columns: columnsOf(t.rel)}, nil
}

// Get returns the rows under the given primary keys.
func (s *Service) Get(ctx context.Context, req ReadRequest) (GetResult, error) {
	defer s.mirror.Reading()()
	t, h, err := s.openRead(ctx, req)
	if err != nil {
		return GetResult{}, err
	}
	res := GetResult{ReadHeader: h, Rows: []Row{}}
	if t.codec == nil {
		return res, fmt.Errorf("get %s: %w: REPLICA IDENTITY FULL tables have no primary key; use scan", req.Table, ErrBadRequest)
	}
	nkeys := len(t.rel.KeyColumns())
	if len(req.PK) == 0 || len(req.PK)%nkeys != 0 {
		return res, fmt.Errorf("get %s: %w: %d key values given; the primary key has %d columns, so give %d values per row", req.Table, ErrBadRequest, len(req.PK), nkeys, nkeys)
	}
	for i := 0; i < len(req.PK); i += nkeys {
		k := req.PK[i : i+nkeys]
		key, err := t.codec.Encode(k...)
		if err != nil {
			return res, fmt.Errorf("get %s: %w: key %q: %w", req.Table, ErrBadRequest, k, err)
		}
		v, ok, err := t.eng.Get(ctx, t.root, key)
		if err != nil {
			return res, fmt.Errorf("get %s at %s: %w", req.Table, h.LSN, err)
		}
		if !ok {
			res.Missing = append(res.Missing, k)
			continue
		}
		row, err := decodeRow(t.rel, v)
		if err != nil {
			return res, err
		}
		res.Rows = append(res.Rows, *row)
	}
	return res, nil
}

// Scan calls header once, then row for each row in key order.
func (s *Service) Scan(ctx context.Context, req ReadRequest, header func(ReadHeader) error, row func(*Row) error) error {
	defer s.mirror.Reading()()
	t, h, err := s.openRead(ctx, req)
	if err != nil {
		return err
	}
	var preds []predicate
	if req.From != "" {
		preds = append(preds, predicate{op: ">=", val: req.From})
	}
	if req.To != "" {
		preds = append(preds, predicate{op: "<", val: req.To})
	}
	keyCol := ""
	if ks := t.rel.KeyColumns(); len(ks) > 0 {
		keyCol = t.rel.Columns[ks[0]].Name
	}
	for i := range preds {
		preds[i].col = keyCol
	}
	kr, err := keyRange(req.Table, keyCol, t.codec, preds)
	if err != nil {
		return err
	}
	if err := header(h); err != nil {
		return err
	}
	if kr.empty() {
		return nil
	}
	c, err := t.eng.Range(ctx, t.root, kr.Start, kr.End)
	if err != nil {
		return fmt.Errorf("scan %s at %s: %w", req.Table, h.LSN, err)
	}
	n := 0
	for (req.Limit <= 0 || n < req.Limit) && c.Next() {
		r, err := decodeRow(t.rel, c.Value())
		if err != nil {
			return err
		}
		if err := row(r); err != nil {
			return err
		}
		n++
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("scan %s at %s: %w", req.Table, h.LSN, err)
	}
	return nil
}
