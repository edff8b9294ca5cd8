package sqldiff_test

import (
	"context"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

// TestCatchUpPastUnrelatedWAL: WAL written elsewhere between the
// marker's commit and the harness's read of the insert LSN (another
// database's writes, a running-xacts record) puts the marker LSN past
// the commit; the daemon's durable LSN stops at the last commit of its
// database, so CatchUp waited out its timeout and failed the script
// ("durable LSN did not reach the marker", session 25's join_hash.sql,
// session 26's parallel corpus run) while the sidecar had applied
// everything. CatchUp now also accepts the SQL port serving the
// marker's new value.
func TestCatchUpPastUnrelatedWAL(t *testing.T) {
	ctx := context.Background()
	url, other := pg.NewDB(t), pg.NewDB(t)
	if err := sqldiff.Exec(ctx, url, "CREATE TABLE cu (id int PRIMARY KEY, v int)", "INSERT INTO cu VALUES (1, 1)"); err != nil {
		t.Fatal(err)
	}
	if err := sqldiff.Exec(ctx, other, "CREATE TABLE noise (id int, pad text)"); err != nil {
		t.Fatal(err)
	}
	sc, err := sqldiff.Follow(ctx, sqldiff.FollowOptions{PGURL: url, Tables: []string{"public.cu"}, Dir: t.TempDir(), StatementTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Stop()
	sqldiff.SetBeforeMarkerLSN(sc, func() {
		if err := sqldiff.Exec(ctx, other, "INSERT INTO noise SELECT g, repeat('x', 100) FROM generate_series(1, 100) g"); err != nil {
			t.Error(err)
		}
	})
	for i := range 3 {
		if err := sqldiff.Exec(ctx, url, "UPDATE cu SET v = v + 1"); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 45*time.Second)
		err := sc.CatchUp(cctx, url)
		cancel()
		if err != nil {
			t.Fatalf("catch-up %d: %v", i, err)
		}
	}
	pgs, scs := sc.Sessions(url, 10*time.Second)
	defer pgs.Close()
	defer scs.Close()
	want, got := pgs.Capture(ctx, "SELECT v FROM cu", 10*time.Second), scs.Capture(ctx, "SELECT v FROM cu", 10*time.Second)
	if want.Value(0, 0) != "4" || got.Value(0, 0) != want.Value(0, 0) {
		t.Fatalf("after the catch-ups: PostgreSQL %q, sidecar %q", want.Value(0, 0), got.Value(0, 0))
	}
}
