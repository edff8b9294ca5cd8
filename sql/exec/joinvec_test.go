package exec_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestJoinTypedVectors runs joinvec.diff.sql's aggregations over joins
// with a source that hands the columns a scan's ScanRequest.Small names
// typed (partialSource, typeSmall): the answers are PostgreSQL's, and
// typed values did reach the joins (else the test shows nothing about
// joinOut.flush's typed gather).
func TestJoinTypedVectors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	for _, per := range []int{3, 1024} {
		ps := &partialSource{memSource: src, per: per, workers: 3, limit: 2}
		compareFiles(ctx, t, conn, cat, ps, []string{filepath.Join("testdata", "joinvec.diff.sql")})
		if ps.typed == 0 {
			t.Fatalf("batches of %d rows: no value was handed typed: the scans under the joins asked for none", per)
		}
		t.Logf("batches of %d rows: %d values handed typed", per, ps.typed)
	}
}
