package exec_test

import (
	"context"
	"testing"
	"time"
)

// TestOuterKeyReadsFirst: a scan inside a correlated subquery keyed on
// an outer column reads the outer value's key range for its first runs
// (up to the table's rows / 100) and only then keeps the whole table in
// its cache (scan_outerkey.go readOuterKey), answering as PostgreSQL
// does either way. TPC-H Q2's subquery, run for a few thousand parts
// over 800,000 partsupp rows at SF 1, decoded and indexed every row
// before reading four per part. Without a row count (0: unknown) the
// cache is filled at once, as before.
func TestOuterKeyReadsFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, cat, src := diffSetup(ctx, t)
	defer conn.Close(context.Background())
	// w's k: 1, 2, 3, 5, 7 and NULL — six outer values, one run each.
	q := "SELECT a.id, (SELECT sum(b.i8) FROM nums b WHERE b.id = a.k AND b.i2 > 1) FROM w a"
	want := pgAnswer(ctx, conn, q)
	nums := cat.Table("", "nums")
	for _, c := range []struct {
		rows      int64
		min, max  int // keyed reads
		wantWhole bool
	}{
		{rows: 0, min: 0, max: 0},      // unknown: cached at once
		{rows: 400, min: 3, max: 3},    // four runs by key (NULL: no range), then the cache
		{rows: 100000, min: 5, max: 5}, // every run by key (NULL: no range)
	} {
		nums.Rows = c.rows
		ks := &keySource{memSource: src}
		got := runSQL(cat, ks, q, 0)
		if normalize(got) != normalize(want) {
			t.Errorf("rows %d: %s\nsidecar:\n%s\npostgres:\n%s", c.rows, q, got, want)
		}
		if ks.keyed < c.min || ks.keyed > c.max {
			t.Errorf("rows %d: %d keyed reads (%d rows handed), want %d–%d", c.rows, ks.keyed, ks.rows, c.min, c.max)
		}
	}
}
