package sqldiff_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/bench/tpch"
	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

// TestTPCHCorpus runs TPC-H's 22 queries (the specification's texts and
// with their date arithmetic folded) over tiny generated tables (scale
// factor 0.002) on PostgreSQL and on the SQL port, and fails on any wrong
// answer; refusals are counted. The timed benchmark is `sidecar-bench
// tpch`; this is the differential check that runs in CI.
func TestTPCHCorpus(t *testing.T) {
	ctx := context.Background()
	url := pg.NewDB(t)
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tpch.Load(ctx, c, 0.002, 1); err != nil {
		c.Close(ctx)
		t.Fatal(err)
	}
	c.Close(ctx)
	tables := tpch.PublicTables()
	sc, err := sqldiff.Follow(ctx, sqldiff.FollowOptions{PGURL: url, Tables: tables, Dir: t.TempDir(), StatementTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Stop()
	pgs, scs := sc.Sessions(url, 30*time.Second)
	defer pgs.Close()
	defer scs.Close()
	identical := 0
	for i, q := range tpch.Queries {
		for _, v := range []struct{ name, sql string }{{"", q}, {" folded", tpch.FoldDates(q)}} {
			o, _, _ := sqldiff.Compare(ctx, pgs, scs, sqldiff.NewStatement(v.sql), 30*time.Second, false)
			name := fmt.Sprintf("Q%d%s", i+1, v.name)
			switch {
			case o.Class == sqldiff.Identical:
				identical++
			case o.Class.Wrong() || o.Class == sqldiff.OrderOnly || o.Class == sqldiff.PGError:
				t.Errorf("%s: %s: %s", name, o.Class, o.Message)
			default:
				t.Logf("%s: %s %s %.100s", name, o.Class, o.Code, o.Message)
			}
		}
	}
	t.Logf("%d of 44 (22 queries, spec and folded dates) identical to PostgreSQL", identical)
}
