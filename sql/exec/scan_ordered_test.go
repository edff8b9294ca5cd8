package exec_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// orderedSource serves big(id int8 primary key, v int4) with ids 1…n:
// unordered through Scan (ids shuffled), in key order through
// ScanOrdered, counting the rows it decodes (handed plus skipped).
type orderedSource struct {
	n       int
	perm    []int
	decoded int
}

func (o *orderedSource) row(id int) []*string {
	a, b := strconv.Itoa(id), strconv.Itoa(id%7)
	return []*string{&a, &b}
}

func (o *orderedSource) Scan(_ context.Context, _ *plan.TableDef, fn func([]*string) error) error {
	for _, id := range o.perm {
		if err := fn(o.row(id)); err != nil {
			return err
		}
	}
	return nil
}

func (o *orderedSource) ScanTyped(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	b := &exec.Batch{Vecs: make([][]types.Value, len(req.Ords))}
	for _, id := range o.perm {
		if err := o.add(b, req, id, fn); err != nil {
			return err
		}
	}
	return o.flush(b, fn)
}

func (o *orderedSource) add(b *exec.Batch, req *exec.ScanRequest, id int, fn func(*exec.Batch) error) error {
	o.decoded++
	r := o.row(id)
	for c, ord := range req.Ords {
		v, err := types.In(req.OIDs[c], -1, *r[ord])
		if err != nil {
			return err
		}
		b.Vecs[c] = append(b.Vecs[c], v)
	}
	if b.N++; b.N == 64 { // small batches: the LIMIT stops between them
		return o.flush(b, fn)
	}
	return nil
}

func (o *orderedSource) flush(b *exec.Batch, fn func(*exec.Batch) error) error {
	if b.N == 0 {
		return nil
	}
	out := *b
	*b = exec.Batch{Vecs: make([][]types.Value, len(b.Vecs))}
	return fn(&out)
}

func (o *orderedSource) ScanOrdered(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) (bool, error) {
	ids := make([]int, o.n)
	for i := range ids {
		ids[i] = i + 1
	}
	if req.Order == plan.KeyDesc {
		slices.Reverse(ids)
	}
	b := &exec.Batch{Vecs: make([][]types.Value, len(req.Ords))}
	skip := req.Skip
	for _, id := range ids {
		if skip > 0 {
			skip--
			o.decoded++
			continue
		}
		if err := o.add(b, req, id, fn); err != nil {
			return true, err
		}
	}
	return true, o.flush(b, fn)
}

// TestScanKeyOrder: ORDER BY the key [DESC] under LIMIT/OFFSET (with a
// filter, a key range, inside an aggregate's input) answers the same
// from a source that reads in key order as from one the executor must
// sort (the fallback), and the ordered read decodes only about the rows
// the LIMIT keeps.
func TestScanKeyOrder(t *testing.T) {
	ddl := filepath.Join(t.TempDir(), "big.sql")
	if err := os.WriteFile(ddl, []byte("CREATE TABLE big (id int8 PRIMARY KEY, v int4);"), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := plantest.LoadCatalog(ddl)
	if err != nil {
		t.Fatal(err)
	}
	const n = 5000
	perm := make([]int, n)
	for i := range perm {
		perm[i] = (i*2749)%n + 1 // every id once, shuffled
	}
	cases := []struct {
		sql   string
		bound int // the most rows the ordered read may decode (0: not checked)
	}{
		{"SELECT id, v FROM big ORDER BY id DESC LIMIT 10", 64},
		{"SELECT id, v FROM big ORDER BY id LIMIT 10", 64},
		{"SELECT id FROM big ORDER BY id LIMIT 3 OFFSET 1000", 1100},
		{"SELECT v, id FROM big ORDER BY id DESC LIMIT 5 OFFSET 4998", 0},
		{"SELECT id FROM big WHERE id > 4000 ORDER BY id LIMIT 4", 0},
		{"SELECT id FROM big WHERE v = 3 ORDER BY id DESC LIMIT 4", 128},
		{"SELECT id FROM big ORDER BY id DESC LIMIT ALL OFFSET 4997", 0},
		{"SELECT sum(id) FROM (SELECT id FROM big ORDER BY id DESC LIMIT 7) s", 64},
		{"SELECT array_agg(id) FROM (SELECT id FROM big ORDER BY id DESC LIMIT 7 OFFSET 2) s", 80},
		{"SELECT id FROM big ORDER BY id DESC LIMIT 0", 0},
	}
	for _, c := range cases {
		plain := &orderedSource{n: n, perm: perm}
		want := runSQL(cat, plainSource{plain}, c.sql, 0)
		ord := &orderedSource{n: n, perm: perm}
		got := runSQL(cat, ord, c.sql, 0)
		if got != want {
			t.Errorf("%s:\nin key order:\n%s\nsorted:\n%s", c.sql, got, want)
		}
		if c.bound > 0 && ord.decoded > c.bound {
			t.Errorf("%s: decoded %d rows in key order, want at most %d", c.sql, ord.decoded, c.bound)
		}
	}
}

// plainSource hides orderedSource's typed and ordered reads: the
// executor reads it through Scan and sorts.
type plainSource struct{ o *orderedSource }

func (p plainSource) Scan(ctx context.Context, t *plan.TableDef, fn func([]*string) error) error {
	return p.o.Scan(ctx, t, fn)
}
