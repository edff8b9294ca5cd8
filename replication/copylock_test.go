package replication

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/sidecar-dev/sidecar/wal"
)

// gateSink holds the copy's n-th range (counting CopyRange calls) until
// open is closed: the worker reading it holds that range's table lock
// meanwhile, so a DDL issued then meets the copy in the middle.
type gateSink struct {
	*copyInto
	n       int64
	calls   atomic.Int64
	blocked chan struct{} // closed when the n-th range waits
	open    chan struct{}
	rels    sync.Map // table → *wal.Relation last reported copied
}

func (g *gateSink) CopyRange(ctx context.Context, rel *wal.Relation, r wal.BlockRange) (wal.RowWriter, error) {
	if g.calls.Add(1) == g.n {
		close(g.blocked)
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.copyInto.CopyRange(ctx, rel, r)
}

func (g *gateSink) TableCopied(ctx context.Context, rel *wal.Relation, at wal.LSN) error {
	g.rels.Store(rel.Name, rel)
	return g.copyInto.TableCopied(ctx, rel, at)
}

// copyDDL is a statement run while a copy is in the middle of its tables.
type copyDDL struct {
	name string
	sql  []string
	// hold: the statements run in a transaction kept open this long
	// after they returned (a LOCK held, then released).
	hold time.Duration
}

var copyDDLs = []copyDDL{
	{name: "truncate", sql: []string{"TRUNCATE b, c"}},
	{name: "add_column", sql: []string{"ALTER TABLE b ADD COLUMN w int DEFAULT 7"}},
	{name: "vacuum_full", sql: []string{"VACUUM FULL b"}},
	{name: "held_lock", sql: []string{"LOCK TABLE b IN ACCESS EXCLUSIVE MODE"}, hold: 2 * time.Second},
}

// TestCopyUnderConcurrentDDL: a TRUNCATE of several tables, an ALTER
// TABLE ADD COLUMN, a VACUUM FULL or an ACCESS EXCLUSIVE lock held for a
// while, issued while an initial copy or a resync is in the middle of its
// tables (before any range was read, and after some were), must neither
// deadlock the copy nor change what it copies: the copy finishes, and
// after streaming from the slot (each table's changes from its copy's
// LSN) every table equals PostgreSQL. On the old copy (the coordinator
// held ACCESS SHARE on every table until the workers ended) the DDL
// queued behind the coordinator, the next worker's COPY behind the DDL,
// and the copy hung forever (issue 21 item 1).
func TestCopyUnderConcurrentDDL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 16 copies with DDL")
	}
	for _, phase := range []string{"copy", "resync"} {
		for _, ddl := range copyDDLs {
			for _, at := range []int64{1, 9} {
				t.Run(fmt.Sprintf("%s/%s/range%d", phase, ddl.name, at), func(t *testing.T) {
					t.Parallel()
					testCopyUnderDDL(t, phase == "resync", ddl, at)
				})
			}
		}
	}
}

func testCopyUnderDDL(t *testing.T, resync bool, ddl copyDDL, gateAt int64) {
	leaks := goleak.IgnoreCurrent()
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	for _, tb := range []string{"a", "b", "c"} {
		mustExec(t, conn, fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY, v text)", tb),
			fmt.Sprintf("INSERT INTO %s SELECT g, 'seed %s ' || g FROM generate_series(1, 3000) g", tb, tb))
	}
	if _, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.a", "public.b", "public.c"}}); err != nil {
		t.Fatal(err)
	}
	slot := fmt.Sprintf("main_ddl_%d", slotSeq.Add(1))
	snap, err := CreateSlot(t.Context(), url, slot)
	if err != nil {
		t.Fatal(err)
	}
	sink := newMemSink(snap.LSN)
	g := &gateSink{copyInto: &copyInto{s: sink}, n: gateAt, blocked: make(chan struct{}), open: make(chan struct{})}
	opts := CopyOptions{ConnString: url, Workers: 2, RangeBlocks: 4, LockTimeout: 200 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	tables := []wal.TableName{{Schema: "public", Name: "a"}, {Schema: "public", Name: "b"}, {Schema: "public", Name: "c"}}
	if resync {
		// The resync runs while the slot's stream would: the slot's
		// snapshot is not used.
		if err := snap.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	copyDone := make(chan error, 1)
	var resyncAt wal.LSN
	go func() {
		if resync {
			var err error
			resyncAt, err = Resync(ctx, opts, tables, g)
			copyDone <- err
			return
		}
		copyDone <- Copy(ctx, opts, snap.Snapshot(), tables, g)
	}()
	select {
	case <-g.blocked:
	case err := <-copyDone:
		t.Fatalf("the copy ended (%v) before its range %d", err, gateAt)
	case <-time.After(60 * time.Second):
		t.Fatalf("the copy never reached its range %d", gateAt)
	}

	// The DDL, from its own session, while the copy is held in a range.
	dconn := sqlConn(t, url)
	ddlDone := make(chan error, 1)
	ddlIssued := make(chan struct{}) // its statements returned (a lock is held from now on)
	go func() {
		ddlDone <- func() error {
			if ddl.hold > 0 {
				if _, err := dconn.Exec(ctx, "BEGIN"); err != nil {
					return err
				}
			}
			for _, s := range ddl.sql {
				if _, err := dconn.Exec(ctx, s); err != nil {
					return fmt.Errorf("%s: %w", s, err)
				}
			}
			close(ddlIssued)
			if ddl.hold > 0 {
				if err := sleepCtx(ctx, ddl.hold); err != nil {
					return err
				}
				if _, err := dconn.Exec(ctx, "COMMIT"); err != nil {
					return err
				}
			}
			return nil
		}()
	}()
	// Let the held range go once the DDL is done, holds its lock, or
	// waits for a lock (perhaps the held range's own).
	ddlPID := dconn.PgConn().PID()
	var ddlErr error
	ddlFinished := false
	waitFor(t, 30*time.Second, "the DDL to finish or wait for a lock", func() bool {
		select {
		case ddlErr = <-ddlDone:
			ddlFinished = true
			return true
		case <-ddlIssued:
			return true
		default:
		}
		var waiting bool
		err := conn.QueryRow(t.Context(), "SELECT count(*) > 0 FROM pg_catalog.pg_locks WHERE pid = $1 AND NOT granted", ddlPID).Scan(&waiting)
		return err == nil && waiting
	})
	if ddlErr != nil {
		t.Fatalf("DDL: %v", ddlErr)
	}
	close(g.open)

	// The copy must finish: on the old code it waited forever.
	select {
	case err := <-copyDone:
		if err != nil {
			t.Fatalf("copy: %v", err)
		}
	case <-time.After(90 * time.Second):
		var locks []string
		rows, err := conn.Query(context.Background(), `SELECT format('%s pid %s %s granted=%s: %s', l.relation::regclass, l.pid, l.mode, l.granted, a.query)
			FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a USING (pid) WHERE l.relation IN ('a'::regclass, 'b'::regclass, 'c'::regclass)`)
		if err == nil {
			locks, _ = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		dconn.PgConn().CancelRequest(context.Background())
		cancel()
		t.Fatalf("the copy did not finish within 90s of a %s during it (deadlocked?); locks:\n%q", ddl.name, locks)
	}
	if !ddlFinished {
		select {
		case err := <-ddlDone:
			if err != nil {
				t.Fatalf("DDL: %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the DDL did not finish within 60s of the copy's end")
		}
	}
	// Changes after the DDL, while or after the copy ran.
	mustExec(t, conn, "INSERT INTO a VALUES (100001, 'after')", "INSERT INTO c VALUES (100001, 'after')",
		"UPDATE a SET v = 'updated' WHERE id = 2", "DELETE FROM c WHERE id = 3")

	g.mu.Lock()
	copied := make(map[string]wal.LSN, len(g.copied))
	for n, l := range g.copied {
		copied[n] = l
	}
	g.mu.Unlock()
	if len(copied) != 3 {
		t.Fatalf("tables reported copied: %v, want a, b and c", copied)
	}
	filter := wal.NewCopiedAt()
	for n, l := range copied {
		if l < snap.LSN || (resync && l != resyncAt) {
			t.Fatalf("%s copied at %s; slot at %s, resync at %s", n, l, snap.LSN, resyncAt)
		}
		filter.Set(n, l)
	}
	if !resync && copied["public.a"] != snap.LSN {
		t.Fatalf("a, never changed, copied at %s, want the slot's snapshot %s", copied["public.a"], snap.LSN)
	}
	if !resync {
		if err := snap.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("copied at %v (slot at %s)", copied, snap.LSN)
	h := &harness{t: t, url: url, conn: conn, sink: sink, slot: snap.LSN, leaks: []goleak.Option{leaks}, slotName: slot}
	h.start(func(c *StreamConfig) { c.CopiedAt = filter })
	h.sync()
	h.stop()
	for _, tb := range []string{"a", "b", "c"} {
		// Compared in the columns the table was copied with: a column
		// added after the copy's snapshot is the mirror's resync to take.
		rel, _ := g.rels.Load(tb)
		var cols []string
		for _, c := range rel.(*wal.Relation).Columns {
			cols = append(cols, c.Name)
		}
		h.checkTable(tb, cols)
	}
}

// tWriter writes a logger's lines to the test log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
