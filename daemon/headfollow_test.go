package daemon

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// Issue 21 item 11 (restart-2026-12-05.md): after a restart from a
// checkpoint, once status says the in-memory HEAD is ready, a count(*)
// under a steady update load is served from it, not from the tree. The
// model applies each commit a moment after the tree has it; a read that
// resolved HEAD in that moment went to the tree (minutes for a count(*)
// of 3M rows) instead of waiting the milliseconds for the model.
func TestReadsWaitForFollowingHead(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE quiet (id bigint PRIMARY KEY, v int)",
		"INSERT INTO quiet SELECT g, g % 10 FROM generate_series(1, 3000) g")
	addr := daemontest.FreeAddr(t)
	cfg := daemontest.Config(t, url, []string{"public.quiet"}, "sql:\n  listen: "+addr)
	r, model := startWithModel(t, Options{Config: cfg}, io.Discard)
	waitHeadRows(t, model, "public.quiet", 3000)
	wantHeadQuery(t, r.addr)
	if err := r.stop(); err != nil { // checkpoints the HEAD: the next start restores it
		t.Fatal(err)
	}
	// Reads wait for the following HEAD as long as it takes: at load 65
	// it trailed by more than the default second and one SQL-port read
	// of 40 went to the tree ("39 heap snapshots"), which is what the
	// default is for, not what this test checks.
	r2, _ := startWithModel(t, Options{Config: cfg, HeadReadWait: 2 * time.Minute}, io.Discard)
	var st Status
	daemontest.Eventually(t, "HEAD ready after the restart", 0, func() bool {
		st = r2.status(t)
		return st.Head != nil && st.Head.Phase == "ready"
	}, func() string { return fmt.Sprintf("last HEAD status: %+v", st.Head) })
	if !st.Head.Restored {
		t.Fatalf("HEAD ready but not restored from its checkpoint: %+v", st.Head)
	}

	// A steady load: one-row updates that change neither count nor sum.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var commits atomic.Int64
	loadDone := make(chan error, 1)
	go func() {
		conn, err := pgx.Connect(ctx, cfg.Postgres.URL)
		if err != nil {
			loadDone <- err
			return
		}
		defer conn.Close(context.Background())
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := conn.Exec(ctx, "UPDATE quiet SET v = v WHERE id = $1", 1+i%3000); err != nil && ctx.Err() == nil {
				loadDone <- err
				return
			}
			commits.Add(1)
			time.Sleep(2 * time.Millisecond)
		}
		loadDone <- nil
	}()
	daemontest.Eventually(t, "50 commits of the update load", 0, func() bool { return commits.Load() >= 50 },
		func() string { return fmt.Sprintf("%d commits", commits.Load()) })
	// Through /api/query, which says where it read.
	before := r2.status(t).Head
	body := `{"table":"public.quiet","aggs":[{"func":"count"},{"func":"sum","col":"v"}]}`
	const queries = 40
	var tree int
	for range queries {
		code, got := postQuery(t, r2.addr, body)
		if code != 200 || !strings.HasSuffix(got, `{"count(*)":"3000","sum(v)":"13500"}`+"\n") {
			t.Fatalf("/api/query under the update load: %d %s", code, got)
		}
		if !strings.Contains(got, `"read":"head"`) {
			tree++
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Through the SQL port, which status counts.
	conn, err := pgx.Connect(ctx, "postgres://sidecar@"+addr+"/sidecar?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	mid := r2.status(t).Head
	for range queries {
		var n, sum int64
		if err := conn.QueryRow(ctx, "SELECT count(*), sum(v) FROM quiet").Scan(&n, &sum); err != nil || n != 3000 || sum != 13500 {
			t.Fatalf("SQL port under the update load: %d %d %v", n, sum, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	after := r2.status(t).Head
	stop()
	if err := <-loadDone; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d commits during the queries; /api/query: %d of %d read the tree; status reads head %d→%d→%d, tree %d→%d→%d",
		commits.Load(), tree, queries, before.ReadsHead, mid.ReadsHead, after.ReadsHead, before.ReadsTree, mid.ReadsTree, after.ReadsTree)
	if tree != 0 || mid.ReadsTree != before.ReadsTree {
		t.Errorf("/api/query: %d of %d count(*) queries went to the tree with the HEAD ready and following (status: %d)",
			tree, queries, mid.ReadsTree-before.ReadsTree)
	}
	if after.ReadsTree != mid.ReadsTree || after.Snapshots-mid.Snapshots < queries {
		t.Errorf("SQL port: %d of %d count(*) queries went to the tree with the HEAD ready and following (%d heap snapshots from it)",
			after.ReadsTree-mid.ReadsTree, queries, after.Snapshots-mid.Snapshots)
	}
}
