// The copy's run under one snapshot: describing the tables, the queue of
// ranges, and the workers that each read one range per transaction under
// its own short-lived table lock.
//
// Why the locks are taken this way (issue 21 item 1): a copy connection
// that waits in PostgreSQL for a lock held by a sibling connection of the
// same copy, while Go waits for the first one, is a deadlock PostgreSQL's
// detector cannot see. The old copy had one: the coordinator held ACCESS
// SHARE on every table until the workers ended, a TRUNCATE queued behind
// it, and a worker's COPY queued behind the TRUNCATE. Now:
//
//   - the coordinator describes the tables in a transaction of its own
//     (pg_relation_size takes ACCESS SHARE) that ends before any worker
//     starts;
//   - a worker holds locks only inside a range's transaction: it imports
//     the snapshot, locks the range's heap (LOCK ... IN ACCESS SHARE MODE,
//     bounded by lock_timeout), reads the range, and commits before it
//     takes the next range or reports a table copied. While it holds a
//     lock it waits for nothing in Go but the sink's row intake;
//   - every lock wait is bounded by LockTimeout; a range whose lock is not
//     granted goes back to the queue, the worker holding nothing, and is
//     tried again after a backoff.
//
// Correctness: a range is read only while its heap is the one the
// snapshot shows. TRUNCATE, table rewrites (ALTER TABLE ... TYPE, SET
// LOGGED, volatile defaults, CLUSTER, VACUUM FULL) give the table a new
// relfilenode, whose rows an older snapshot does not see (they are not
// MVCC-safe); a dropped and re-added column reads as NULL. So under the
// range's lock (no such change can commit until the transaction ends) the
// worker compares the heap's current relfilenode and its columns' attnum,
// type and typmod with the snapshot's; a difference marks the table
// changed: none of its rows at the snapshot can be read any more, so it is
// not reported, its ranges read so far are discarded, and it is copied
// again under a fresh snapshot ([Copy], [Resync]).

package replication

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sidecar-dev/sidecar/wal"
	"golang.org/x/sync/errgroup"
)

// CopyDiscarder is an optional extension of [wal.CopySink]: DiscardCopy
// forgets the ranges of rel closed so far by a copy that will not report
// rel copied (the copy failed, or the table changed after the copy's
// snapshot and is copied again under another one), so that the next copy
// of the table starts empty. Copy calls it after every range of the copy
// has ended. A sink without it must not carry closed ranges from one copy
// of a table to the next.
type CopyDiscarder interface {
	DiscardCopy(rel *wal.Relation)
}

// CopyBuildReporter is an optional extension of [wal.CopySink]: while
// its TableCopied builds a table (ok true), how many of the copy's rows
// are built. Copy reports it (CopyProgress.Building) every
// ProgressInterval, so that progress and its ETA cover the build, which
// is most of a large table's copy.
type CopyBuildReporter interface {
	CopyBuildProgress(table string) (built, rows int64, ok bool)
}

// tableCopied is sink.TableCopied(t) while a goroutine it owns reports
// t's build every ProgressInterval through building (none without
// opts.Progress).
func tableCopied(ctx context.Context, opts CopyOptions, sink wal.CopySink, t *copyTable, at wal.LSN, building func(t *copyTable, built int64)) error {
	if opts.Progress == nil {
		return sink.TableCopied(ctx, t.rel, at)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(opts.ProgressInterval)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			var built int64
			if r, ok := sink.(CopyBuildReporter); ok {
				built, _, _ = r.CopyBuildProgress(t.rel.QualifiedName())
			}
			building(t, built)
		}
	}()
	err := sink.TableCopied(ctx, t.rel, at)
	close(stop)
	<-done
	return err
}

// changedError: the range's heap is not the one the snapshot shows.
type changedError struct {
	table, why string
}

func (e *changedError) Error() string {
	return fmt.Sprintf("%s changed after the copy's snapshot: %s", e.table, e.why)
}

// lockError reports whether err is a lock not granted in time
// (lock_timeout, lock_not_available) or a deadlock PostgreSQL broke: the
// range is tried again.
func lockError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "55P03" || pgErr.Code == "40P01")
}

// copyAt copies tables under snap (see [Copy]) and returns the tables
// that changed after snap, which are not reported. With deferDone no
// table is reported until every range of every table is read, and none
// at all when one changed (a resync reports all its tables at one LSN);
// otherwise each table is reported as soon as its last range is read.
func copyAt(ctx context.Context, opts CopyOptions, snap Snapshot, tables []wal.TableName, sink wal.CopySink, deferDone bool) ([]wal.TableName, error) {
	work, err := describeAll(ctx, opts, snap, tables)
	if err != nil {
		return nil, err
	}
	var tasks []copyTask
	for _, t := range work {
		n := opts.RangeBlocks
		if n == 0 {
			var blocks uint64
			for _, s := range t.sources {
				blocks += uint64(s.blocks)
			}
			n = autoRangeBlocks(blocks, opts.Workers)
		}
		t.ranges = splitRanges(t.sources, n)
		for _, r := range t.ranges {
			tasks = append(tasks, copyTask{t, r})
		}
	}
	// Largest ranges first keeps the workers busy to the end: a range's
	// size is its block count, open-ended ranges count what is known.
	slices.SortStableFunc(tasks, func(a, b copyTask) int { return int(rangeBlocks(b)) - int(rangeBlocks(a)) })

	var progMu sync.Mutex
	report := func(t *copyTable, final bool) {
		if opts.Progress == nil {
			return
		}
		now := time.Now()
		if !final && now.UnixNano()-t.lastProg.Load() < int64(opts.ProgressInterval) {
			return
		}
		t.lastProg.Store(now.UnixNano())
		progMu.Lock()
		defer progMu.Unlock()
		opts.Progress(CopyProgress{
			Table: t.rel.QualifiedName(), Rows: t.rows.Load(), Bytes: t.bytes.Load(),
			RangesDone: int(t.done.Load()), Ranges: len(t.ranges), EstimatedRows: t.est, Done: final, Elapsed: now.Sub(t.started),
		})
	}
	building := func(t *copyTable, built int64) {
		progMu.Lock()
		defer progMu.Unlock()
		opts.Progress(CopyProgress{
			Table: t.rel.QualifiedName(), Rows: t.rows.Load(), Bytes: t.bytes.Load(),
			RangesDone: int(t.done.Load()), Ranges: len(t.ranges), EstimatedRows: t.est, Building: true, Built: built,
			Elapsed: time.Since(t.started),
		})
	}
	start := time.Now()
	for _, t := range work {
		t.started = start
	}
	q := newTaskQueue(tasks)
	g, gctx := errgroup.WithContext(ctx)
	stop := context.AfterFunc(gctx, q.wakeAll)
	defer stop()
	for w := 0; w < min(opts.Workers, len(tasks)); w++ {
		g.Go(func() error {
			conn, err := Connect(gctx, opts.ConnString)
			if err != nil {
				return fmt.Errorf("copy worker: %w", err)
			}
			defer closeConn(conn)
			failures := 0 // lock failures in a row
			for {
				tk, ok := q.take()
				if !ok {
					return gctx.Err()
				}
				if tk.t.changed.Load() {
					q.done()
					continue
				}
				err := copyOne(gctx, opts, conn, snap, tk, sink, report)
				var ch *changedError
				switch {
				case err == nil:
					failures = 0
					q.done()
					if int(tk.t.done.Add(1)) == len(tk.t.ranges) && !deferDone {
						if err := tableCopied(gctx, opts, sink, tk.t, snap.LSN, building); err != nil {
							return fmt.Errorf("copy %s: sink: %w", tk.t.rel.QualifiedName(), err)
						}
						tk.t.reported.Store(true)
						report(tk.t, true)
					}
				case errors.As(err, &ch):
					failures = 0
					if !tk.t.changed.Swap(true) {
						opts.Logger.Warn("copy: table changed after the snapshot; it is copied again under a fresh one",
							"table", tk.t.rel.QualifiedName(), "snapshot_lsn", snap.LSN, "why", ch.why)
					}
					q.done()
				case lockError(err) && gctx.Err() == nil:
					q.requeue(tk)
					wait := min(50*time.Millisecond<<min(failures, 6), 2*time.Second)
					failures++
					if failures == 1 || failures&(failures-1) == 0 { // 1, 2, 4, 8, ...
						opts.Logger.Info("copy: a table is locked by another session; its range goes back to the queue and is tried again",
							"table", tk.t.rel.QualifiedName(), "source", tk.r.Source.String(), "err", err, "retry_in", wait, "attempts", failures)
					}
					if err := sleepCtx(gctx, wait); err != nil {
						return err
					}
				default:
					return err
				}
			}
		})
	}
	err = g.Wait()
	discard := func(t *copyTable) {
		if d, ok := sink.(CopyDiscarder); ok {
			d.DiscardCopy(t.rel)
		}
	}
	var changed []wal.TableName
	for _, t := range work {
		if t.changed.Load() {
			changed = append(changed, wal.TableName{Schema: t.rel.Schema, Name: t.rel.Name})
		}
	}
	if err == nil && deferDone && len(changed) > 0 {
		for _, t := range work {
			discard(t)
		}
		return changed, nil
	}
	if err == nil {
		for _, t := range work {
			if t.reported.Load() || t.changed.Load() {
				continue
			}
			// Deferred, or a partitioned table without partitions (no
			// range at all).
			if err = tableCopied(ctx, opts, sink, t, snap.LSN, building); err != nil {
				err = fmt.Errorf("copy %s: sink: %w", t.rel.QualifiedName(), err)
				break
			}
			t.reported.Store(true)
			report(t, true)
		}
	}
	for _, t := range work {
		if !t.reported.Load() && (err != nil || t.changed.Load()) {
			discard(t)
		}
	}
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// describeAll describes the tables under snap in a transaction that ends
// before it returns, so that the coordinator holds no lock while the
// workers run. A lock not granted within LockTimeout (pg_relation_size
// waits behind an ACCESS EXCLUSIVE lock) starts the description over
// after a backoff.
func describeAll(ctx context.Context, opts CopyOptions, snap Snapshot, tables []wal.TableName) ([]*copyTable, error) {
	for attempt := 0; ; attempt++ {
		work, err := describeOnce(ctx, opts, snap, tables)
		if err == nil || !lockError(err) || ctx.Err() != nil {
			return work, err
		}
		wait := min(50*time.Millisecond<<min(attempt, 6), 2*time.Second)
		if attempt&(attempt+1) == 0 { // 0, 1, 3, 7, ...
			opts.Logger.Info("copy: a table is locked by another session; describing the tables again", "err", err, "retry_in", wait, "attempts", attempt+1)
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func describeOnce(ctx context.Context, opts CopyOptions, snap Snapshot, tables []wal.TableName) ([]*copyTable, error) {
	conn, err := Connect(ctx, opts.ConnString)
	if err != nil {
		return nil, fmt.Errorf("copy: %w", err)
	}
	defer closeConn(conn)
	if err := beginSnapshot(ctx, conn, snap.Name); err != nil {
		return nil, fmt.Errorf("copy: %w", err)
	}
	if _, err := conn.Exec(ctx, setLockTimeout(opts.LockTimeout)); err != nil {
		return nil, fmt.Errorf("copy: %w", err)
	}
	var work []*copyTable
	for _, tn := range tables {
		ts, err := describeCopy(ctx, conn, tn, opts.ViaPartitionRoot)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", tn, err)
		}
		work = append(work, ts...)
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("copy: end the description's transaction: %w", err)
	}
	return work, nil
}

func setLockTimeout(d time.Duration) string {
	return fmt.Sprintf("SET LOCAL lock_timeout = %d", max(d.Milliseconds(), 1))
}

// sourceAttrs returns, in cols' order, the attnum of cols in the heap oid
// as the snapshot shows it.
func sourceAttrs(ctx context.Context, conn *pgx.Conn, oid uint32, cols []wal.Column) ([]attrSig, error) {
	rows, err := conn.Query(ctx, `SELECT a.attname, a.attnum FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped`, oid)
	if err != nil {
		return nil, err
	}
	byName := map[string]attrSig{}
	var name string
	var a attrSig
	if _, err := pgx.ForEachRow(rows, []any{&name, &a.num}, func() error {
		byName[name] = a
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([]attrSig, len(cols))
	for i, c := range cols {
		sig, ok := byName[c.Name]
		if !ok {
			return nil, fmt.Errorf("no column %q", c.Name)
		}
		out[i] = sig
	}
	return out, nil
}

// copyOne reads one range in a transaction of its own: it imports the
// snapshot, locks the range's heap (bounded by LockTimeout), checks the
// heap is still the snapshot's, reads, and commits. Any failure rolls the
// transaction back, so the worker holds no lock afterwards.
func copyOne(ctx context.Context, opts CopyOptions, conn *pgx.Conn, snap Snapshot, tk copyTask, sink wal.CopySink, report func(*copyTable, bool)) (err error) {
	src := tk.t.source(tk.r.Source)
	defer func() {
		if err != nil && !conn.IsClosed() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
			defer cancel()
			if _, rerr := conn.Exec(rctx, "ROLLBACK"); rerr != nil {
				err = errors.Join(err, fmt.Errorf("roll back: %w", rerr))
			}
		}
	}()
	// One round trip: the snapshot must be the transaction's first
	// statement's, and the lock is taken before anything reads the heap.
	begin := "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT " + quoteLiteral(snap.Name) + "; " +
		setLockTimeout(opts.LockTimeout) + "; LOCK TABLE ONLY " + src.name.Quoted() + " IN ACCESS SHARE MODE"
	if _, err := conn.PgConn().Exec(ctx, begin).ReadAll(); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // dropped or renamed since
			return &changedError{table: tk.t.rel.QualifiedName(), why: fmt.Sprintf("%s: %s", src.name, pgErr.Message)}
		}
		return fmt.Errorf("copy %s: begin and lock %s: %w", tk.t.rel.QualifiedName(), src.name, err)
	}
	if err := checkSource(ctx, conn, tk.t, src); err != nil {
		return err
	}
	if err := copyRange(ctx, conn, tk, sink, report); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("copy %s: end the range's transaction: %w", tk.t.rel.QualifiedName(), err)
	}
	return nil
}

// checkSource compares, under the range's lock, the heap with the
// snapshot's: same relfilenode (no TRUNCATE or rewrite since), same
// table, and the copied columns with the same attnum, type and typmod.
func checkSource(ctx context.Context, conn *pgx.Conn, t *copyTable, src *copySource) error {
	changed := func(format string, args ...any) error {
		return &changedError{table: t.rel.QualifiedName(), why: src.name.String() + ": " + fmt.Sprintf(format, args...)}
	}
	var filenode *uint32
	if err := conn.QueryRow(ctx, "SELECT pg_catalog.pg_relation_filenode($1::pg_catalog.oid::pg_catalog.regclass)", src.oid).Scan(&filenode); err != nil {
		return fmt.Errorf("copy %s: relfilenode of %s: %w", t.rel.QualifiedName(), src.name, err)
	}
	if filenode == nil {
		return changed("dropped")
	}
	if *filenode != src.filenode {
		return changed("relfilenode %d, the snapshot's %d (truncated or rewritten)", *filenode, src.filenode)
	}
	sd, err := conn.PgConn().Prepare(ctx, "", fmt.Sprintf("SELECT %s FROM ONLY %s", t.cols, src.name.Quoted()), nil)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (pgErr.Code == "42703" || pgErr.Code == "42P01") { // a column or the table renamed or dropped
			return changed("%s", pgErr.Message)
		}
		return fmt.Errorf("copy %s: describe %s: %w", t.rel.QualifiedName(), src.name, err)
	}
	if len(sd.Fields) != len(src.attrs) {
		return changed("%d columns, the snapshot's %d", len(sd.Fields), len(src.attrs))
	}
	for i, f := range sd.Fields {
		a := src.attrs[i]
		// Identity only: a type change that rewrites the heap changed its
		// relfilenode; one that does not (varchar(5) to text) reads the
		// snapshot's values the same (and RowDescription names a domain
		// by its base type, so types are not compared here).
		if f.TableOID != src.oid || f.TableAttributeNumber != uint16(a.num) {
			return changed("column %s is attnum %d of table %d, the snapshot's attnum %d of %d",
				t.rel.Columns[i].Name, f.TableAttributeNumber, f.TableOID, a.num, src.oid)
		}
	}
	return nil
}

func (t *copyTable) source(name wal.TableName) *copySource {
	for i := range t.sources {
		if t.sources[i].name == name {
			return &t.sources[i]
		}
	}
	panic(fmt.Sprintf("copy %s: range of unknown source %s", t.rel.QualifiedName(), name))
}

// taskQueue hands ranges to the workers; a range whose lock was not
// granted goes back to the end. take blocks while every range left is
// being read by a worker (it may come back).
type taskQueue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	tasks []copyTask
	open  int // ranges queued or being read
	woken bool
}

func newTaskQueue(tasks []copyTask) *taskQueue {
	q := &taskQueue{tasks: slices.Clone(tasks), open: len(tasks)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// take returns the next range, or false when none is left or wakeAll
// was called.
func (q *taskQueue) take() (copyTask, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.tasks) == 0 && q.open > 0 && !q.woken {
		q.cond.Wait()
	}
	if len(q.tasks) == 0 || q.woken {
		return copyTask{}, false
	}
	tk := q.tasks[0]
	q.tasks = q.tasks[1:]
	return tk, true
}

// requeue puts a range taken back at the end.
func (q *taskQueue) requeue(tk copyTask) {
	q.mu.Lock()
	q.tasks = append(q.tasks, tk)
	q.mu.Unlock()
	q.cond.Signal()
}

// done ends a range taken (read, or skipped).
func (q *taskQueue) done() {
	q.mu.Lock()
	q.open--
	last := q.open == 0
	q.mu.Unlock()
	if last {
		q.cond.Broadcast()
	}
}

// wakeAll ends every take (the copy is cancelled).
func (q *taskQueue) wakeAll() {
	q.mu.Lock()
	q.woken = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// sleepCtx waits d, or less when ctx ends (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d): // collected unfired since Go 1.23
	}
	return nil
}

func tableNames(ts []wal.TableName) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}
