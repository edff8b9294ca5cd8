package verify

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"golang.org/x/sync/errgroup"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// Parallel level 0.
//
// Level 0 is one scan of the whole table that hashes every row; it is
// almost all of verify's cost (bench/results/verify-2026-11-30.md: 3.25 s
// of the 3.52 s for 10M rows) and runs on one backend. For a large table
// it is split over several connections that share the pinned snapshot:
// each scans one range of the table's heap blocks (a TID range scan,
// `src.ctid >= '(a,0)' AND src.ctid < '(b,0)'`, PostgreSQL ≥ 14) and
// returns (count, Σ H) per bucket of its part; the client adds the parts
// bucket by bucket (rowhash.Digest.Combine, exact mod 2^64), so the
// digests are exactly the serial scan's whatever the bucket scheme.
//
// Heap blocks rather than key ranges: a key range split needs an index
// scan (random heap reads) or has every worker read the whole heap and
// filter; block ranges partition the visible rows of the snapshot (each
// row version has one ctid), cost one sequential read in all, balance by
// size, and work for hash buckets too, where a key range cannot select a
// bucket. The parts need not match the table's size at the snapshot: the
// last part is open-ended.
//
// Measured (TestParallelLevel0Measure, whole Runner, 2 workers against
// 1, max_parallel_workers_per_gather = 0, this 2-core machine, medians):
// 1M rows 455 → 326 ms wall, PostgreSQL CPU 420 → 470 ms; 3M rows 1.31 →
// 0.94 s; 10M rows 3.65 → 3.02 s, PostgreSQL CPU 3.45 → 3.78 s. The two
// parts are balanced (each ≈ 0.8 s at 3M) but share two cores with the
// mirror's digest walk, so the gain here is bounded by the cores; with
// PostgreSQL's own parallel query left on, the serial scan was no faster
// (444 ms at 1M): the planner does not parallelize it.
//
// The worker connections import the pinned transaction's snapshot
// (pg_export_snapshot in the pinned transaction, SET TRANSACTION SNAPSHOT
// in each worker), so they see exactly what the pinned connection sees.
// The leaf step and the rows of the differing keys stay on the pinned
// connection: they read few rows.

// DefaultParallelRows is the mirror row count from which level 0 runs in
// parallel when Options.ParallelRows is zero. Below it the extra
// connections and the second scan's startup cost more than they save.
const DefaultParallelRows = 1_000_000

// DefaultWorkers is the number of connections a parallel level 0 uses
// when Runner.Workers is zero: GOMAXPROCS of a small box. PostgreSQL does
// the hashing, so the right number is the cores PostgreSQL can spare.
const DefaultWorkers = 2

// minTIDRangeVersion is the first PostgreSQL major version with TID
// range scans; on older servers each part would read the whole heap.
const minTIDRangeVersion = 14

// ExportSnapshot exports the snapshot of conn's open transaction
// (pg_export_snapshot) so that OpenWorkers can import it. It must run at
// the top level of the transaction (not inside a savepoint); the export
// lives until the transaction ends.
func ExportSnapshot(ctx context.Context, conn *pgconn.PgConn) (string, error) {
	rows, err := simpleQuery(ctx, conn, "SELECT pg_catalog.pg_export_snapshot()")
	if err != nil {
		return "", fmt.Errorf("export snapshot: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 || len(rows[0][0]) == 0 {
		return "", errors.New("export snapshot: unexpected result shape")
	}
	return string(rows[0][0]), nil
}

// OpenWorkers opens n ordinary connections configured by cfg, each in a
// REPEATABLE READ transaction that imported snapshot (from ExportSnapshot
// or a slot's SNAPSHOT 'export'), with the canonical session settings and
// search_path pg_catalog, checked by CheckSession. The caller closes them
// with CloseWorkers. On error every connection opened is closed.
func OpenWorkers(ctx context.Context, cfg *pgconn.Config, snapshot string, n int) ([]*pgconn.PgConn, error) {
	ws, err := connectWorkers(ctx, cfg, n)
	if err != nil {
		return nil, err
	}
	if err := importSnapshot(ctx, ws, snapshot); err != nil {
		closeConns(ctx, ws)
		return nil, err
	}
	return ws, nil
}

// connectWorkers opens n ordinary connections with the canonical session
// settings.
func connectWorkers(ctx context.Context, cfg *pgconn.Config, n int) ([]*pgconn.PgConn, error) {
	if n < 1 {
		return nil, fmt.Errorf("connect workers: %d workers", n)
	}
	wc := cfg.Copy()
	wc.RuntimeParams = maps.Clone(cfg.RuntimeParams)
	if wc.RuntimeParams == nil {
		wc.RuntimeParams = map[string]string{}
	}
	delete(wc.RuntimeParams, "replication")
	rowenc.PinSession(wc.RuntimeParams)
	// A cancelled scan is cancelled on the server too, not left running.
	wc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
	}
	var ws []*pgconn.PgConn
	for i := range n {
		w, err := pgconn.ConnectConfig(ctx, wc)
		if err != nil {
			closeConns(ctx, ws)
			return nil, fmt.Errorf("connect worker %d: %w", i, err)
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// importSnapshot begins a REPEATABLE READ transaction on every worker
// that imports snapshot.
func importSnapshot(ctx context.Context, ws []*pgconn.PgConn, snapshot string) error {
	snap, err := QuoteLiteral(snapshot)
	if err != nil {
		return err
	}
	for i, w := range ws {
		_, err := w.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT "+snap+"; SET LOCAL search_path = pg_catalog").ReadAll()
		if err != nil {
			return fmt.Errorf("worker %d: import snapshot %s: %w", i, snapshot, err)
		}
		if err := CheckSession(ctx, w); err != nil {
			return fmt.Errorf("worker %d: %w", i, err)
		}
	}
	return nil
}

// CloseWorkers ends the workers' transactions and closes them. It is
// bounded in time even if ctx is cancelled.
func CloseWorkers(ctx context.Context, ws []*pgconn.PgConn) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var errs []error
	for i, w := range ws {
		if !w.IsClosed() {
			if _, err := w.Exec(ctx, "ROLLBACK").ReadAll(); err != nil {
				errs = append(errs, fmt.Errorf("worker %d: rollback: %w", i, err))
			}
		}
		if err := w.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("worker %d: close: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

func closeConns(ctx context.Context, ws []*pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, w := range ws {
		_ = w.Close(ctx)
	}
}

// canSplit reports whether conn's server has TID range scans.
func canSplit(conn *pgconn.PgConn) bool {
	v := conn.ParameterStatus("server_version")
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(strings.TrimFunc(major, func(r rune) bool { return r < '0' || r > '9' }))
	return err == nil && n >= minTIDRangeVersion
}

// heapParts returns n predicates on the table aliased src that partition
// its rows by heap block: part i holds blocks [i·B/n, (i+1)·B/n) of the B
// blocks the table has now, the first part everything below, the last
// part everything above (blocks added since). Fewer parts for a table
// with fewer blocks than n.
func heapParts(ctx context.Context, conn *pgconn.PgConn, t Table, n int) ([]string, error) {
	rel, err := QuoteLiteral(t.Ident())
	if err != nil {
		return nil, err
	}
	rows, err := simpleQuery(ctx, conn, fmt.Sprintf(
		"SELECT pg_catalog.pg_relation_size(%s::pg_catalog.regclass) / pg_catalog.current_setting('block_size')::int8", rel))
	if err != nil {
		return nil, fmt.Errorf("table size: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return nil, errors.New("table size: unexpected result shape")
	}
	blocks, err := strconv.ParseUint(string(rows[0][0]), 10, 32)
	if err != nil {
		return nil, fmt.Errorf("table size %q: %w", rows[0][0], err)
	}
	return splitBlocks(blocks, n), nil
}

// splitBlocks returns the predicates of heapParts for a table of blocks
// blocks split n ways.
func splitBlocks(blocks uint64, n int) []string {
	n = int(min(uint64(n), max(blocks, 1)))
	if n <= 1 {
		return []string{""}
	}
	cut := func(i int) uint64 { return blocks * uint64(i) / uint64(n) }
	parts := make([]string, n)
	for i := range n {
		var conds []string
		if i > 0 {
			conds = append(conds, fmt.Sprintf("%s.ctid >= '(%d,0)'::pg_catalog.tid", srcAlias, cut(i)))
		}
		if i < n-1 {
			conds = append(conds, fmt.Sprintf("%s.ctid < '(%d,0)'::pg_catalog.tid", srcAlias, cut(i+1)))
		}
		parts[i] = strings.Join(conds, " AND ")
	}
	return parts
}

// fetchDigestsParallel runs the level-0 query built by query (given a
// partition predicate) on every worker, one heap part each, and adds the
// parts' digests bucket by bucket: the result equals FetchDigests of
// query("") in the same snapshot.
func fetchDigestsParallel(ctx context.Context, workers []*pgconn.PgConn, t Table, query func(where string) (string, error)) (map[int64]rowhash.Digest, error) {
	parts, err := heapParts(ctx, workers[0], t, len(workers))
	if err != nil {
		return nil, err
	}
	queries := make([]string, len(parts))
	for i, where := range parts {
		if queries[i], err = query(where); err != nil {
			return nil, err
		}
	}
	results := make([]map[int64]rowhash.Digest, len(parts))
	g, gctx := errgroup.WithContext(ctx)
	for i, q := range queries {
		g.Go(func() error {
			d, err := FetchDigests(gctx, workers[i], q)
			if err != nil {
				return fmt.Errorf("level 0 part %d of %d: %w", i+1, len(parts), err)
			}
			results[i] = d
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := results[0]
	for _, r := range results[1:] {
		for b, d := range r {
			out[b] = out[b].Combine(d)
		}
	}
	return out, nil
}

// level0 runs a level-0 digest query: on the pinned connection, or split
// over workers.
type level0 interface {
	// digests runs query(where) for the partition predicates it chooses
	// ("" for the whole table) and returns the per-bucket digests of the
	// whole table.
	digests(ctx context.Context, t Table, query func(where string) (string, error)) (map[int64]rowhash.Digest, error)
}

// serialLevel0 runs level 0 as one query on conn.
type serialLevel0 struct{ conn *pgconn.PgConn }

func (s serialLevel0) digests(ctx context.Context, _ Table, query func(string) (string, error)) (map[int64]rowhash.Digest, error) {
	q, err := query("")
	if err != nil {
		return nil, err
	}
	return FetchDigests(ctx, s.conn, q)
}

// parallelLevel0 splits level 0 by heap blocks over workers.
type parallelLevel0 struct{ workers []*pgconn.PgConn }

func (p parallelLevel0) digests(ctx context.Context, t Table, query func(string) (string, error)) (map[int64]rowhash.Digest, error) {
	return fetchDigestsParallel(ctx, p.workers, t, query)
}
