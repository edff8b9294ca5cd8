package sqldiff_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/sqldiff"
)

// TestCatchUpBesideUnpublishedWAL (issue 21, stream stall item): the
// harness's marker wait ends while another session writes WAL no stream
// delivers (temporary tables created and dropped, as a closed session's
// cleanup does). The corpus saw join_hash.sql hang twice in session 25
// with the daemon caught up: the marker LSN was read after its commit
// and took in such WAL, and the durable LSN, which only the mirror's
// commits move, stopped at the marker's commit just short of it. On
// 2f71b81 the first CatchUp timed out ("durable LSN did not reach the
// marker").
func TestCatchUpBesideUnpublishedWAL(t *testing.T) {
	url := pg.NewDB(t)
	ctx := context.Background()
	if err := sqldiff.Exec(ctx, url, "CREATE TABLE cu (id int PRIMARY KEY, n int)", "INSERT INTO cu VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	s, err := sqldiff.Follow(ctx, sqldiff.FollowOptions{PGURL: url, Tables: []string{"public.cu"}, Dir: t.TempDir(), StatementTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		conn, err := pgx.Connect(wctx, url)
		if err != nil {
			werr = err
			return
		}
		defer conn.Close(context.Background())
		for wctx.Err() == nil {
			if _, err := conn.Exec(wctx, "CREATE TEMP TABLE scratch (a int); DROP TABLE scratch"); err != nil && wctx.Err() == nil {
				werr = err
				return
			}
		}
	}()
	for i := range 5 {
		if err := sqldiff.Exec(ctx, url, "UPDATE cu SET n = n + 1"); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := s.CatchUp(cctx, url)
		cancel()
		if err != nil {
			t.Fatalf("catch-up %d beside a session writing unpublished WAL: %v", i, err)
		}
	}
	stop()
	wg.Wait()
	if werr != nil && !errors.Is(werr, context.Canceled) {
		t.Fatalf("the writing session: %v", werr)
	}
}
