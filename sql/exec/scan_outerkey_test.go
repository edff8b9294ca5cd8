package exec_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/types"
)

// keySource is memSource as a TypedSource that reads only the rows of a
// request's primary-key equality (ScanRequest.Key.Eq), as the HEAD's
// scan does, and counts the requests keyed and the rows handed.
type keySource struct {
	*memSource
	keyed, rows int
}

func (k *keySource) ScanTyped(ctx context.Context, req *exec.ScanRequest, fn func(*exec.Batch) error) error {
	var rows [][]*string
	for _, r := range k.memSource.rows[req.Table.Name] {
		if req.Key != nil && !keyEq(req, r) {
			continue
		}
		rows = append(rows, r)
	}
	if req.Key != nil {
		k.keyed++
	}
	k.rows += len(rows)
	if len(rows) == 0 {
		return nil
	}
	b, err := typedBatch(req, rows, len(rows))
	if err != nil {
		return err
	}
	return fn(b)
}

// keyEq says whether row r's leading key columns equal req.Key.Eq.
func keyEq(req *exec.ScanRequest, r []*string) bool {
	for i, want := range req.Key.Eq {
		ord := req.Table.Key[i]
		if ord >= len(r) || r[ord] == nil {
			return false
		}
		v, err := types.In(req.Key.EqOIDs[i], -1, *r[ord])
		if err != nil || types.Compare(req.Key.EqOIDs[i], v, want) != 0 {
			return false
		}
	}
	return true
}

// TestOuterKeyUncached: a scan inside a correlated subquery keyed on an
// outer column (nums' primary key = the outer row's column), whose rows
// do not fit the cache's share of the working memory, reads only the
// outer value's rows (the key range takes the outer value) and answers
// as PostgreSQL does — NULL outer values, values no row has, repeats.
// With a cache that fits, the cache is read (every row once, no key). A
// statement refused for memory at the small working memory (53200) is
// allowed.
func TestOuterKeyUncached(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	queries := []string{
		"SELECT a.id, (SELECT b.d FROM nums b WHERE b.id = a.k) FROM w a",
		"SELECT a.id, (SELECT sum(b.i8) FROM nums b WHERE b.id = a.k AND b.i2 > 1) FROM w a",
		"SELECT a.id FROM w a WHERE EXISTS (SELECT 1 FROM nums b WHERE b.id = a.k + 1 AND b.id = a.k)",
		"SELECT a.id, (SELECT count(*) FROM nums b WHERE a.x = b.id * 10) FROM w a",
	}
	for _, q := range queries {
		want := pgAnswer(ctx, conn, q)
		for _, mem := range []int64{1200, 0} {
			ks := &keySource{memSource: src}
			got := runSQL(cat, ks, q, mem)
			if mem != 0 && strings.Contains(got, "error 53200") {
				t.Logf("work mem %d: %s: %s", mem, q, got) // refused for memory: allowed
				continue
			}
			if normalize(got) != normalize(want) {
				t.Errorf("work mem %d: %s\nsidecar:\n%s\npostgres:\n%s", mem, q, got, want)
			}
			t.Logf("work mem %d: %s: %d keyed reads, %d rows handed", mem, q, ks.keyed, ks.rows)
			if mem != 0 && (q == queries[0] || q == queries[1]) && (ks.keyed == 0 || ks.rows >= 12*5) {
				t.Errorf("work mem %d: %s: %d keyed reads, %d rows handed: the uncached subquery's scan read all of nums for each outer row", mem, q, ks.keyed, ks.rows)
			}
		}
	}
}
