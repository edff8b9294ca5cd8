package exec_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/types"
)

// reusingSource is memSource as an exec.LateSource that, when a scan's
// reader says it keeps no batch (ScanRequest.Reuse), hands the same
// batch again and again and overwrites every value of it with a poison
// string once the reader's call returns: a reader that kept a batch or
// a vector of it would then read "poison" (a wrong answer, or a failed
// type assertion) instead of its rows. Without Reuse each batch is new
// and left alone, as the TypedSource contract says.
type reusingSource struct {
	*memSource
	reused, fresh int // scans read with and without Reuse
}

const poison = "poison"

func (m *reusingSource) ScanTyped(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	return m.ScanLate(ctx, req, nil, fn)
}

func (m *reusingSource) ScanLate(ctx context.Context, req *exec.ScanRequest, lf *exec.LateFilter, fn func(*exec.Batch) error) error {
	if req.Reuse {
		m.reused++
	} else {
		m.fresh++
	}
	var b *exec.Batch
	rows := m.rows[req.Table.Name]
	for start := 0; start < len(rows); start += exec.BatchSize {
		end := min(start+exec.BatchSize, len(rows))
		if b == nil || !req.Reuse {
			b = &exec.Batch{Vecs: make([][]types.Value, len(req.Ords))}
			for c := range b.Vecs {
				b.Vecs[c] = make([]types.Value, exec.BatchSize)
			}
		}
		b.N = end - start
		for c, ord := range req.Ords {
			for i, r := range rows[start:end] {
				b.Vecs[c][i] = nil
				if ord >= len(r) || r[ord] == nil {
					continue
				}
				v, err := types.In(req.OIDs[c], -1, *r[ord])
				if err != nil {
					return fmt.Errorf("decode %s: %w", req.Table.Name, err)
				}
				b.Vecs[c][i] = v
			}
		}
		if lf != nil {
			if err := lf.Filter(b); err != nil {
				return err
			}
		}
		if b.N == 0 {
			continue
		}
		if err := fn(b); err != nil {
			return err
		}
		if req.Reuse {
			for _, v := range b.Vecs {
				for i := range v {
					v[i] = poison
				}
			}
		}
	}
	return nil
}

// TestDifferentialReuse runs every differential file through
// reusingSource: the scans whose reader says it keeps no batch get their
// batches overwritten once read, and every answer must still be
// PostgreSQL's — the readers that keep batches (sorts, set operations,
// CTEs, windows, cached subquery scans, nested loops) do not ask for
// reuse, and those that ask (hash joins, hash aggregation) copy what
// they keep.
func TestDifferentialReuse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	reuse := &reusingSource{memSource: src}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.diff.sql"))
	compareFiles(ctx, t, conn, cat, reuse, files)
	if reuse.reused == 0 || reuse.fresh == 0 {
		t.Fatalf("scans with reuse %d, without %d: the test reaches both kinds of reader only when both are nonzero", reuse.reused, reuse.fresh)
	}
	t.Logf("scans with reuse %d, without %d", reuse.reused, reuse.fresh)
}
