package replication

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/wal"
	"golang.org/x/sync/errgroup"
)

// Snapshot is an exported snapshot and the LSN it corresponds to: it shows
// exactly the transactions with CommitLSN < LSN.
type Snapshot struct {
	Name string
	LSN  wal.LSN
}

// CopyProgress reports one table's copy progress.
type CopyProgress struct {
	Table      string
	Rows       int64
	Bytes      int64 // COPY text bytes received
	RangesDone int
	Ranges     int
	// EstimatedRows is the planner's estimate (pg_class.reltuples) at the
	// start, for an ETA; 0 when the table was never analyzed.
	EstimatedRows int64
	Done          bool
	Elapsed       time.Duration
}

// CopyOptions configure [Copy] and [Resync].
type CopyOptions struct {
	ConnString string
	// Workers is the number of parallel COPY connections (default 4).
	Workers int
	// RangeBlocks is the size of a block range in 8 KiB heap blocks;
	// larger tables are split. Zero sizes ranges per table (see
	// [autoRangeBlocks]): at most DefaultRangeBlocks, and small enough
	// that a table above a few MiB gets at least Workers ranges.
	RangeBlocks uint32
	// ViaPartitionRoot must match the publication: when true a partitioned
	// table is copied as itself (rows read from its leaf partitions), when
	// false its leaf partitions are copied as separate tables, as the
	// stream names them.
	ViaPartitionRoot bool
	// Progress, if set, is called (serially) at most every
	// ProgressInterval per table, and once when each table is done.
	Progress         func(CopyProgress)
	ProgressInterval time.Duration
}

func (o *CopyOptions) defaults() {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = time.Second
	}
}

// Range sizing defaults, in 8 KiB heap blocks.
const (
	// DefaultRangeBlocks (128 MiB) caps a range, so a crash loses at
	// most that much copied work per worker and the largest-first queue
	// balances the workers at the end.
	DefaultRangeBlocks = 16384
	// MinRangeBlocks (8 MiB) is the smallest range automatic sizing
	// makes: below it a COPY's start-up (snapshot import, TID range
	// plan) and a range's run file cost more than the parallelism gains.
	MinRangeBlocks = 1024
)

// autoRangeBlocks is the range size for a table of the given blocks
// copied by workers connections: blocks/workers rounded up, so a single
// table keeps every worker busy (one 128 MiB range would copy a 1M-row
// table on one connection), clamped to [MinRangeBlocks,
// DefaultRangeBlocks].
func autoRangeBlocks(blocks uint64, workers int) uint32 {
	per := (blocks + uint64(workers) - 1) / uint64(max(workers, 1))
	return uint32(min(max(per, MinRangeBlocks), DefaultRangeBlocks))
}

// copyTable is one relation being copied.
type copyTable struct {
	rel      *wal.Relation
	sources  []copySource
	ranges   []wal.BlockRange
	cols     string // quoted column list
	rows     atomic.Int64
	bytes    atomic.Int64
	done     atomic.Int64 // ranges finished
	est      int64        // estimated rows
	started  time.Time
	lastProg atomic.Int64 // unix nanos of the last progress report
}

type copySource struct {
	name   wal.TableName
	oid    uint32
	blocks uint32
}

type copyTask struct {
	t *copyTable
	r wal.BlockRange
}

// Copy copies tables under snap: parallel workers each import the snapshot
// (REPEATABLE READ, SET TRANSACTION SNAPSHOT), tables larger than
// a range (RangeBlocks, or sized per table) are split into ctid block ranges (TID range scans, PG 14+),
// and every range is read with COPY (SELECT columns ...) TO STDOUT in text
// format. The tables are locked in ACCESS SHARE mode for the duration, so
// TRUNCATE, ALTER TABLE and VACUUM FULL (not MVCC-safe) wait.
//
// Each table is reported copied at snap.LSN. On error nothing is reported
// for tables not completed; a copy cannot be resumed under another
// snapshot: use [Resync] for the tables not completed.
func Copy(ctx context.Context, opts CopyOptions, snap Snapshot, tables []wal.TableName, sink wal.CopySink) error {
	opts.defaults()
	coord, err := Connect(ctx, opts.ConnString)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	defer closeConn(coord)
	if err := beginSnapshot(ctx, coord, snap.Name); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	var work []*copyTable
	for _, tn := range tables {
		ts, err := describeCopy(ctx, coord, tn, opts.ViaPartitionRoot)
		if err != nil {
			return fmt.Errorf("copy %s: %w", tn, err)
		}
		work = append(work, ts...)
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

	queue := make(chan copyTask, len(tasks))
	for _, tk := range tasks {
		queue <- tk
	}
	close(queue)
	start := time.Now()
	for _, t := range work {
		t.started = start
	}
	g, gctx := errgroup.WithContext(ctx)
	for w := 0; w < min(opts.Workers, len(tasks)); w++ {
		g.Go(func() error {
			conn, err := Connect(gctx, opts.ConnString)
			if err != nil {
				return fmt.Errorf("copy worker: %w", err)
			}
			defer closeConn(conn)
			if err := beginSnapshot(gctx, conn, snap.Name); err != nil {
				return fmt.Errorf("copy worker: %w", err)
			}
			for tk := range queue {
				if err := copyRange(gctx, conn, tk, sink, report); err != nil {
					return err
				}
				if int(tk.t.done.Add(1)) == len(tk.t.ranges) {
					if err := sink.TableCopied(gctx, tk.t.rel, snap.LSN); err != nil {
						return fmt.Errorf("copy %s: sink: %w", tk.t.rel.QualifiedName(), err)
					}
					report(tk.t, true)
				}
			}
			if _, err := conn.Exec(gctx, "COMMIT"); err != nil {
				return fmt.Errorf("copy worker: end snapshot transaction: %w", err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, t := range work {
		if len(t.ranges) == 0 { // a partitioned table without partitions
			if err := sink.TableCopied(ctx, t.rel, snap.LSN); err != nil {
				return fmt.Errorf("copy %s: sink: %w", t.rel.QualifiedName(), err)
			}
			report(t, true)
		}
	}
	if _, err := coord.Exec(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("copy: end snapshot transaction: %w", err)
	}
	return nil
}

func rangeBlocks(tk copyTask) uint32 {
	if tk.r.End == 0 {
		for _, s := range tk.t.sources {
			if s.name == tk.r.Source && s.blocks > tk.r.Start {
				return s.blocks - tk.r.Start
			}
		}
		return 0
	}
	return tk.r.End - tk.r.Start
}

// splitRanges cuts every source into ranges of at most n blocks, the last
// one open-ended.
func splitRanges(sources []copySource, n uint32) []wal.BlockRange {
	var rs []wal.BlockRange
	for _, s := range sources {
		for start := uint32(0); ; start += n {
			if uint64(start)+uint64(n) >= uint64(s.blocks) {
				rs = append(rs, wal.BlockRange{Source: s.name, Start: start})
				break
			}
			rs = append(rs, wal.BlockRange{Source: s.name, Start: start, End: start + n})
		}
	}
	for i := range rs {
		rs[i].Index, rs[i].Of = i, len(rs)
	}
	return rs
}

// beginSnapshot starts a read-only REPEATABLE READ transaction that sees
// the exported snapshot.
func beginSnapshot(ctx context.Context, conn *pgx.Conn, name string) error {
	if _, err := conn.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
		return fmt.Errorf("begin snapshot transaction: %w", err)
	}
	if _, err := conn.Exec(ctx, "SET TRANSACTION SNAPSHOT "+quoteLiteral(name)); err != nil {
		return fmt.Errorf("import snapshot %q (the exporting connection must stay open and idle until every worker has imported it): %w", name, err)
	}
	return nil
}

// describeCopy locks a table and describes what to copy for it: itself, or
// (partitioned, not via root) one entry per leaf partition.
func describeCopy(ctx context.Context, conn *pgx.Conn, tn wal.TableName, viaRoot bool) ([]*copyTable, error) {
	var oid uint32
	var kind, ident string
	err := conn.QueryRow(ctx, `SELECT c.oid, c.relkind::text, c.relreplident::text FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
		tn.Schema, tn.Name).Scan(&oid, &kind, &ident)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("no such table")
	}
	if err != nil {
		return nil, err
	}
	if kind != "r" && kind != "p" {
		return nil, fmt.Errorf("relkind %q is not a table", kind)
	}
	if _, err := conn.Exec(ctx, "LOCK TABLE "+tn.Quoted()+" IN ACCESS SHARE MODE"); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if kind == "r" {
		t, err := newCopyTable(ctx, conn, tn, oid, ident, []wal.TableName{tn})
		if err != nil {
			return nil, err
		}
		return []*copyTable{t}, nil
	}
	rows, err := conn.Query(ctx, `SELECT n.nspname, c.relname, c.oid, c.relreplident::text FROM pg_catalog.pg_partition_tree($1) pt
		JOIN pg_catalog.pg_class c ON c.oid = pt.relid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE pt.isleaf AND c.relkind = 'r' ORDER BY 1, 2`, oid)
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	type leaf struct {
		name  wal.TableName
		oid   uint32
		ident string
	}
	leaves, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (leaf, error) {
		var l leaf
		err := r.Scan(&l.name.Schema, &l.name.Name, &l.oid, &l.ident)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	if viaRoot {
		names := make([]wal.TableName, len(leaves))
		for i, l := range leaves {
			names[i] = l.name
		}
		t, err := newCopyTable(ctx, conn, tn, oid, ident, names)
		if err != nil {
			return nil, err
		}
		return []*copyTable{t}, nil
	}
	var out []*copyTable
	for _, l := range leaves {
		t, err := newCopyTable(ctx, conn, l.name, l.oid, l.ident, []wal.TableName{l.name})
		if err != nil {
			return nil, fmt.Errorf("partition %s: %w", l.name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// columnsSQL describes a table's published columns the way a pgoutput
// Relation message does: no dropped or generated columns, attnum order,
// key flags from the replica identity (all columns under FULL).
//
// Type names follow pgoutput too: a domain is named by its base type (the
// Type message for a domain column carries the base type's name).
const columnsSQL = `SELECT a.attname, a.atttypid,
	(WITH RECURSIVE b(o) AS (SELECT a.atttypid UNION ALL
		SELECT bt.typbasetype FROM pg_catalog.pg_type bt JOIN b ON bt.oid = b.o WHERE bt.typtype = 'd')
	SELECT CASE WHEN tn.nspname = 'pg_catalog' THEN t.typname::text ELSE tn.nspname || '.' || t.typname END
	FROM b JOIN pg_catalog.pg_type t ON t.oid = b.o JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
	WHERE t.typtype <> 'd'),
	a.atttypmod,
	CASE c.relreplident WHEN 'f' THEN true WHEN 'n' THEN false
	ELSE a.attnum = ANY (coalesce((SELECT i.indkey::int2[] FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid
		AND ((c.relreplident = 'd' AND i.indisprimary) OR (c.relreplident = 'i' AND i.indisreplident)) LIMIT 1), '{}'))
	END
	FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
	WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
	ORDER BY a.attnum`

func newCopyTable(ctx context.Context, conn *pgx.Conn, tn wal.TableName, oid uint32, ident string, sources []wal.TableName) (*copyTable, error) {
	rel := &wal.Relation{OID: oid, Schema: tn.Schema, Name: tn.Name, Identity: wal.ReplicaIdentity(ident[0])}
	rows, err := conn.Query(ctx, columnsSQL, oid)
	if err != nil {
		return nil, fmt.Errorf("describe columns: %w", err)
	}
	rel.Columns, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (wal.Column, error) {
		var c wal.Column
		err := r.Scan(&c.Name, &c.TypeOID, &c.TypeName, &c.TypeMod, &c.Key)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("describe columns: %w", err)
	}
	if len(rel.Columns) == 0 {
		return nil, fmt.Errorf("table has no columns to copy")
	}
	quoted := make([]string, len(rel.Columns))
	for i, c := range rel.Columns {
		quoted[i] = wal.QuoteIdent(c.Name)
	}
	t := &copyTable{rel: rel, cols: strings.Join(quoted, ", ")}
	for _, s := range sources {
		var src copySource
		src.name = s
		var est int64
		// Taken inside the snapshot transaction (relpages can be stale);
		// the last range is open-ended anyway.
		err := conn.QueryRow(ctx, `SELECT c.oid, (pg_catalog.pg_relation_size(c.oid) / current_setting('block_size')::bigint)::bigint,
			greatest(c.reltuples, 0)::bigint
			FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = $2`, s.Schema, s.Name).Scan(&src.oid, &src.blocks, &est)
		if err != nil {
			return nil, fmt.Errorf("size of %s: %w", s, err)
		}
		t.est += est
		t.sources = append(t.sources, src)
	}
	return t, nil
}

// copyRange runs one COPY and feeds its rows to the sink.
func copyRange(ctx context.Context, conn *pgx.Conn, tk copyTask, sink wal.CopySink, report func(*copyTable, bool)) error {
	t, r := tk.t, tk.r
	w, err := sink.CopyRange(ctx, t.rel, r)
	if err != nil {
		return fmt.Errorf("copy %s range %d/%d: sink: %w", t.rel.QualifiedName(), r.Index+1, r.Of, err)
	}
	var where string
	switch {
	case r.Start == 0 && r.End == 0:
	case r.End == 0:
		where = fmt.Sprintf(" WHERE ctid >= '(%d,0)'::tid", r.Start)
	default:
		where = fmt.Sprintf(" WHERE ctid >= '(%d,0)'::tid AND ctid < '(%d,0)'::tid", r.Start, r.End)
	}
	from := "ONLY " + r.Source.Quoted()
	sql := fmt.Sprintf("COPY (SELECT %s FROM %s%s) TO STDOUT", t.cols, from, where)
	var lastRows, lastBytes int64
	p := newCopyParser(len(t.rel.Columns), func(vals []wal.Value) error {
		if err := w.WriteRow(vals); err != nil {
			return fmt.Errorf("sink: %w", err)
		}
		return nil
	})
	tick := func() {
		t.rows.Add(p.rows - lastRows)
		t.bytes.Add(p.bytes - lastBytes)
		lastRows, lastBytes = p.rows, p.bytes
		report(t, false)
	}
	pw := &progressWriter{p: p, every: 4096, tick: tick}
	_, err = conn.PgConn().CopyTo(ctx, pw, sql)
	if err == nil {
		err = p.finish()
	}
	tick()
	if err != nil {
		w.Abort()
		return fmt.Errorf("copy %s range %d/%d (%s blocks %d-%s): %w", t.rel.QualifiedName(), r.Index+1, r.Of, r.Source, r.Start, endString(r.End), err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("copy %s range %d/%d: sink: %w", t.rel.QualifiedName(), r.Index+1, r.Of, err)
	}
	return nil
}

func endString(e uint32) string {
	if e == 0 {
		return "end"
	}
	return fmt.Sprint(e - 1)
}

// progressWriter calls tick every `every` rows.
type progressWriter struct {
	p     *copyParser
	every int64
	next  int64
	tick  func()
}

func (w *progressWriter) Write(b []byte) (int, error) {
	n, err := w.p.Write(b)
	if w.p.rows >= w.next {
		w.next = w.p.rows + w.every
		w.tick()
	}
	return n, err
}

// Resync copies tables again under a fresh snapshot, for a copy
// interrupted by a crash (the first snapshot is gone) or a table whose
// schema changed. It creates a temporary slot with (SNAPSHOT 'use') inside
// a REPEATABLE READ READ ONLY transaction on a replication connection (16
// and newer demand READ ONLY; 14 spells it USE_SNAPSHOT), exports that
// snapshot to the copy workers, and returns its consistent point S: every
// table is reported copied at S, and the main stream must drop their
// changes from transactions with CommitLSN < S (register S in [wal.CopiedAt]
// before streaming). The temporary slot disappears with the connection.
func Resync(ctx context.Context, opts CopyOptions, tables []wal.TableName, sink wal.CopySink) (wal.LSN, error) {
	conn, err := ConnectReplication(ctx, opts.ConnString)
	if err != nil {
		return 0, fmt.Errorf("resync: %w", err)
	}
	defer closeConn(conn)
	ver, err := ServerVersionNum(conn)
	if err != nil {
		return 0, fmt.Errorf("resync: %w", err)
	}
	if _, _, err := simpleQuery(ctx, conn, BeginUseSnapshot); err != nil {
		return 0, fmt.Errorf("resync: begin: %w", err)
	}
	slot := fmt.Sprintf("sidecar_resync_%d_%d", os.Getpid(), time.Now().UnixNano()%1e12)
	res, err := pglogrepl.ParseCreateReplicationSlot(conn.Exec(ctx, CreateSlotCommand(ver, slot, true, SnapshotUse)))
	if err != nil {
		return 0, fmt.Errorf("resync: %w", slotCreateError(ctx, opts.ConnString, slot, conn.PID(), err))
	}
	lsn, err := wal.ParseLSN(res.ConsistentPoint)
	if err != nil {
		return 0, fmt.Errorf("resync: consistent point: %w", err)
	}
	rows, _, err := simpleQuery(ctx, conn, "SELECT pg_catalog.pg_export_snapshot()")
	if err != nil {
		return 0, fmt.Errorf("resync: export snapshot: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("resync: export snapshot: no snapshot name returned")
	}
	if err := Copy(ctx, opts, Snapshot{Name: rows[0][0], LSN: lsn}, tables, sink); err != nil {
		return 0, fmt.Errorf("resync at %s: %w", lsn, err)
	}
	if _, _, err := simpleQuery(ctx, conn, "COMMIT"); err != nil {
		return 0, fmt.Errorf("resync: commit: %w", err)
	}
	return lsn, nil
}
