package history

import (
	"context"
	"fmt"
	"slices"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
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
	// Columns (Get, Scan): only these columns, in this order (a column
	// may repeat); empty: every column in table order.
	Columns []string
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

func (s *Service) openRead(ctx context.Context, req ReadRequest) (*tree, ReadHeader, projection, error) {
	ref := req.AsOf
	if ref == "" {
		ref = "HEAD"
	}
	info, err := s.tableInfo(req.Table)
	if err != nil {
		return nil, ReadHeader{}, projection{}, err
	}
	req.Table = info.Name
	p, err := s.refs.Resolve(ctx, ref)
	if err != nil {
		return nil, ReadHeader{}, projection{}, err
	}
	t, err := s.rowsAt(ctx, p, req.Table)
	if err != nil {
		return nil, ReadHeader{}, projection{}, err
	}
	pr, err := project(t.rel, req.Columns)
	if err != nil {
		return nil, ReadHeader{}, projection{}, err
	}
	return t, ReadHeader{Table: req.Table, LSN: p.LSN().String(), Ref: ref, Columns: pr.columns}, pr, nil
}

// projection is the columns a read returns: every column of rel (idx nil),
// or those ReadRequest.Columns names.
type projection struct {
	rel     *wal.Relation
	idx     []int // column indexes in rel; nil: all, stored order
	names   []string
	columns []Column
}

// project resolves names (ReadRequest.Columns) against rel.
func project(rel *wal.Relation, names []string) (projection, error) {
	pr := projection{rel: rel}
	if len(names) == 0 {
		pr.names, pr.columns = nameList(rel), columnsOf(rel)
		return pr, nil
	}
	all := columnsOf(rel)
	for _, n := range names {
		i := slices.IndexFunc(all, func(c Column) bool { return c.Name == n })
		if i < 0 {
			return pr, fmt.Errorf("%s: %w: no column %q (columns: %s)", rel.QualifiedName(), ErrBadRequest, n, columnNames(rel))
		}
		pr.idx = append(pr.idx, i)
		pr.names = append(pr.names, n)
		pr.columns = append(pr.columns, all[i])
	}
	return pr, nil
}

// raw names v, a stored row of the projection's relation, for output. A
// projection re-encodes the columns it keeps into buf (a column the row
// lacks, stored before ADD COLUMN, reads as NULL); it returns buf for
// reuse.
func (pr *projection) raw(v, buf []byte) (RawRow, []byte, error) {
	if pr.idx == nil {
		return RawRow{V: v, names: pr.names, rel: pr.rel}, buf, nil
	}
	n, err := rowenc.Validate(v)
	if err != nil {
		return RawRow{}, buf, fmt.Errorf("decode row of %s: %w", pr.rel.QualifiedName(), err)
	}
	if n > len(pr.rel.Columns) {
		return RawRow{}, buf, widthError(pr.rel, n)
	}
	buf = buf[:0]
	for _, i := range pr.idx {
		b, null, err := rowenc.Column(v, i)
		switch {
		case err != nil:
			return RawRow{}, buf, fmt.Errorf("decode row of %s: %w", pr.rel.QualifiedName(), err)
		case null:
			buf = rowenc.AppendNull(buf)
		default:
			buf = rowenc.AppendValue(buf, b)
		}
	}
	return RawRow{V: buf, names: pr.names, rel: pr.rel}, buf, nil
}

// Get returns the rows under the given primary keys.
func (s *Service) Get(ctx context.Context, req ReadRequest) (GetResult, error) {
	var rows []Row
	h, missing, err := s.GetRaw(ctx, req, func(r RawRow) error {
		dr, err := r.Decode()
		if err == nil {
			rows = append(rows, *dr)
		}
		return err
	})
	if rows == nil {
		rows = []Row{}
	}
	return GetResult{ReadHeader: h, Rows: rows, Missing: missing}, err
}

// GetJSON appends Get's answer as the JSON of its GetResult (compact, as
// encoding/json writes it with SetEscapeHTML(false)), each row written
// straight from its stored bytes.
func (s *Service) GetJSON(ctx context.Context, req ReadRequest, dst []byte) ([]byte, error) {
	var rows []byte
	h, missing, err := s.GetRaw(ctx, req, func(r RawRow) error {
		if len(rows) > 0 {
			rows = append(rows, ',')
		}
		var err error
		rows, err = r.AppendJSON(rows)
		return err
	})
	if err != nil {
		return dst, err
	}
	return appendGetResult(dst, &h, rows, missing), nil
}

// GetRaw is Get with each row found passed to row as stored, in the order
// of the keys; it returns the header and the keys not found. The rows
// come from one snapshot (snapshot/): the in-memory HEAD when it holds
// the version, the tree otherwise.
func (s *Service) GetRaw(ctx context.Context, req ReadRequest, row func(RawRow) error) (ReadHeader, [][]string, error) {
	sn, t, h, err := s.openSnapshot(ctx, req)
	if err != nil {
		return ReadHeader{}, nil, err
	}
	defer sn.Release()
	pr, err := project(t.Rel, req.Columns)
	if err != nil {
		return ReadHeader{}, nil, err
	}
	h.Columns = pr.columns
	if t.Codec == nil {
		return h, nil, fmt.Errorf("get %s: %w: REPLICA IDENTITY FULL tables have no primary key; use scan", req.Table, ErrBadRequest)
	}
	nkeys := len(t.Rel.KeyColumns())
	if len(req.PK) == 0 || len(req.PK)%nkeys != 0 {
		return h, nil, fmt.Errorf("get %s: %w: %d key values given; the primary key has %d columns, so give %d values per row", req.Table, ErrBadRequest, len(req.PK), nkeys, nkeys)
	}
	var missing [][]string
	var buf, v []byte
	for i := 0; i < len(req.PK); i += nkeys {
		k := req.PK[i : i+nkeys]
		key, err := t.Codec.Encode(k...)
		if err != nil {
			return h, missing, fmt.Errorf("get %s: %w: key %q: %w", req.Table, ErrBadRequest, k, err)
		}
		var ok bool
		if v, ok, err = t.Get(ctx, key, v[:0]); err != nil {
			return h, missing, err
		}
		if !ok {
			missing = append(missing, k)
			continue
		}
		var r RawRow
		if r, buf, err = pr.raw(v, buf); err != nil {
			return h, missing, err
		}
		if err := row(r); err != nil {
			return h, missing, err
		}
	}
	return h, missing, nil
}

// Scan calls header once, then row for each row in key order.
func (s *Service) Scan(ctx context.Context, req ReadRequest, header func(ReadHeader) error, row func(*Row) error) error {
	return s.ScanRaw(ctx, req, header, func(r RawRow) error {
		dr, err := r.Decode()
		if err != nil {
			return err
		}
		return row(dr)
	})
}

// ScanRaw is Scan with each row passed as stored (RawRow.AppendJSON
// writes it out without decoding it into a Row). The rows come from one
// snapshot (snapshot/): from the in-memory HEAD in chunks while it holds
// the version, from the tree otherwise.
func (s *Service) ScanRaw(ctx context.Context, req ReadRequest, header func(ReadHeader) error, row func(RawRow) error) error {
	sn, t, h, err := s.openSnapshot(ctx, req)
	if err != nil {
		return err
	}
	defer sn.Release()
	pr, err := project(t.Rel, req.Columns)
	if err != nil {
		return err
	}
	h.Columns = pr.columns
	kr, err := s.scanRange(req.Table, t.Rel, t.Codec, req)
	if err != nil {
		return err
	}
	if err := header(h); err != nil {
		return err
	}
	if kr.empty() {
		return nil
	}
	// The snapshot projects the rows already: they are named as is.
	named := projection{rel: t.Rel, names: pr.names, columns: pr.columns}
	return t.Range(ctx, kr.Start, kr.End, req.Limit, pr.idx, func(_, v []byte) error {
		r, _, err := named.raw(v, nil)
		if err != nil {
			return err
		}
		return row(r)
	})
}

// scanRange is the key range of a Scan: From and To bound the first key
// column (From inclusive, To exclusive).
func (s *Service) scanRange(table string, rel *wal.Relation, codec *rowenc.KeyCodec, req ReadRequest) (KeyRange, error) {
	var preds []predicate
	if req.From != "" {
		preds = append(preds, predicate{op: ">=", val: req.From})
	}
	if req.To != "" {
		preds = append(preds, predicate{op: "<", val: req.To})
	}
	keyCol := ""
	if ks := rel.KeyColumns(); len(ks) > 0 {
		keyCol = rel.Columns[ks[0]].Name
	}
	for i := range preds {
		preds[i].col = keyCol
	}
	return keyRange(table, keyCol, codec, preds)
}
