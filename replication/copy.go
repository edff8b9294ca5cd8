package replication

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/wal"
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
	// Building: every range is copied and the sink is building the
	// table (TableCopied: the tree and the in-memory HEAD from the
	// copy's rows), Built of Rows rows so far (0 when the sink does not
	// say, [CopyBuildReporter]). Reported every ProgressInterval until
	// Done.
	Building bool
	Built    int64
	Done     bool
	Elapsed  time.Duration
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
	// LockTimeout bounds every wait of a copy connection for a lock
	// (default 1 s): a table locked by someone else (a TRUNCATE, an ALTER
	// TABLE, a held LOCK) puts the range back in the queue, tried again
	// with backoff, instead of queueing the copy behind the locker.
	LockTimeout time.Duration
	// Logger receives why a copy waits or starts over (a table locked, a
	// table changed after the snapshot); nil discards.
	Logger *slog.Logger
}

func (o *CopyOptions) defaults() {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = time.Second
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
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
	// changed: a source was truncated, rewritten or altered after the
	// snapshot; the table is not reported copied at it.
	changed atomic.Bool
	// reported: the sink was told the table is copied.
	reported atomic.Bool
}

// copySource is one heap a table's rows are read from, as the snapshot
// shows it: a range is read only while the heap is still that one.
type copySource struct {
	name     wal.TableName
	oid      uint32
	blocks   uint32
	filenode uint32    // pg_class.relfilenode at the snapshot
	attrs    []attrSig // the copied columns in this heap, in rel.Columns order
}

// attrSig is what identifies a column of a heap: a column dropped and
// added again under the same name has another attnum.
type attrSig struct {
	num int16
}

type copyTask struct {
	t *copyTable
	r wal.BlockRange
}

// Copy copies tables under snap: parallel workers each import the snapshot
// (REPEATABLE READ, SET TRANSACTION SNAPSHOT), tables larger than a range
// (RangeBlocks, or sized per table) are split into ctid block ranges (TID
// range scans, PG 14+), and every range is read with COPY (SELECT columns
// ...) TO STDOUT in text format.
//
// Locking (see copyrun.go): no copy connection holds a table lock while it
// waits for another, and none waits for a lock longer than LockTimeout.
// The tables are described (columns, sizes, relfilenodes as of snap) in a
// transaction that ends before any worker starts; each range is then read
// in a transaction of its own that re-imports snap, locks its table in
// ACCESS SHARE mode, checks that the table is still the one the snapshot
// shows (same relfilenode and columns: no TRUNCATE, rewrite, VACUUM FULL
// or column change committed since snap), reads, and commits. A lock not
// granted in time puts the range back in the queue, retried with backoff;
// so a TRUNCATE, ALTER TABLE or a held LOCK on a table being copied waits
// at most for one range, and the copy for it, never in a cycle through Go
// (issue 21 item 1: the coordinator's ACCESS SHARE locks, held until the
// workers ended, deadlocked with a TRUNCATE queued behind them and a
// worker's COPY queued behind the TRUNCATE).
//
// A table is reported copied at snap.LSN once all its ranges are read. A
// table that changed after snap (its rows at snap can no longer be read) is
// not: its ranges read so far are discarded ([CopyDiscarder]) and it is
// copied again by [Resync] under a fresh snapshot, and reported at that
// snapshot's LSN (the sink records per table the LSN its copy is at). On
// error nothing is reported for tables not completed and their ranges are
// discarded; a copy cannot be resumed under another snapshot: use [Resync]
// for the tables not completed.
func Copy(ctx context.Context, opts CopyOptions, snap Snapshot, tables []wal.TableName, sink wal.CopySink) error {
	opts.defaults()
	changed, err := copyAt(ctx, opts, snap, tables, sink, false)
	if err != nil || len(changed) == 0 {
		return err
	}
	opts.Logger.Warn("tables changed after the copy's snapshot (TRUNCATE, a table rewrite, VACUUM FULL or a column change); copying them again under a fresh snapshot",
		"tables", tableNames(changed), "snapshot_lsn", snap.LSN)
	if _, err := Resync(ctx, opts, changed, sink); err != nil {
		return fmt.Errorf("copy again the tables changed during the copy: %w", err)
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

// describeCopy describes what to copy for a table as the snapshot shows it:
// itself, or (partitioned, not via root) one entry per leaf partition. It
// locks nothing beyond what pg_relation_size takes; the caller ends the
// transaction before the workers start.
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
	if kind == "r" {
		t, err := newCopyTable(ctx, conn, tn, oid, ident, []wal.TableName{tn})
		if err != nil {
			return nil, err
		}
		return withFacts(ctx, conn, []*copyTable{t})
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
		return withFacts(ctx, conn, []*copyTable{t})
	}
	var out []*copyTable
	for _, l := range leaves {
		t, err := newCopyTable(ctx, conn, l.name, l.oid, l.ident, []wal.TableName{l.name})
		if err != nil {
			return nil, fmt.Errorf("partition %s: %w", l.name, err)
		}
		out = append(out, t)
	}
	return withFacts(ctx, conn, out)
}

// columnsSQL describes a table's published columns the way a pgoutput
// Relation message does: no dropped or generated columns, attnum order,
// key flags from the replica identity (all columns under FULL).
//
// Type names follow pgoutput too: a domain is named by its base type (the
// Type message for a domain column carries the base type's name).
const columnsSQL = `SELECT ` + columnDescSQL + `
	WHERE a.attrelid = $1` + publishedColumnsSQL + `
	ORDER BY a.attnum`

// columnDescSQL is the select list and FROM of a column's description as
// a Relation message gives it (name, type OID, type name, typmod, key
// flag), over pg_attribute a joined to its pg_class c: columnsSQL's, and
// relationsSQL's for many tables (relcolumns.go).
const columnDescSQL = `a.attname, a.atttypid,
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
	FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid`

// publishedColumnsSQL keeps the columns pgoutput publishes: not system,
// dropped or generated ones.
const publishedColumnsSQL = ` AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''`

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
		// Its columns were all dropped after preflight (which refuses such
		// tables): refuse it the same way.
		return nil, fmt.Errorf("%w: %s", ErrPublication, NoColumnsProblem([]string{tn.String()}))
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
		// the last range is open-ended anyway. relfilenode is the
		// snapshot's: a range is read only while the heap still has it.
		err := conn.QueryRow(ctx, `SELECT c.oid, (pg_catalog.pg_relation_size(c.oid) / current_setting('block_size')::bigint)::bigint,
			greatest(c.reltuples, 0)::bigint, c.relfilenode
			FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname = $2`, s.Schema, s.Name).Scan(&src.oid, &src.blocks, &est, &src.filenode)
		if err != nil {
			return nil, fmt.Errorf("size of %s: %w", s, err)
		}
		if src.attrs, err = sourceAttrs(ctx, conn, src.oid, rel.Columns); err != nil {
			return nil, fmt.Errorf("columns of %s: %w", s, err)
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
//
// Every table is reported at the same S: a resync reports nothing until
// all its tables are read. When one of them changed after S (a TRUNCATE, a
// rewrite, a column change), the rows read are discarded, the temporary
// slot dropped, and the whole resync starts over under a fresh snapshot,
// with backoff (1 s doubling to 30 s), logging why; after
// maxResyncAttempts attempts it fails, naming the tables. Locking is
// [Copy]'s.
func Resync(ctx context.Context, opts CopyOptions, tables []wal.TableName, sink wal.CopySink) (wal.LSN, error) {
	opts.defaults()
	for attempt := 0; ; attempt++ {
		lsn, changed, err := resyncOnce(ctx, opts, tables, sink)
		if err != nil || len(changed) == 0 {
			return lsn, err
		}
		if attempt+1 >= maxResyncAttempts {
			return 0, fmt.Errorf("resync: %s changed during each of %d copies (TRUNCATE, a table rewrite, VACUUM FULL or a column change, faster than a copy)",
				tableNames(changed), attempt+1)
		}
		wait := min(time.Second<<min(attempt, 5), 30*time.Second)
		opts.Logger.Warn("resync: tables changed after the resync's snapshot (TRUNCATE, a table rewrite, VACUUM FULL or a column change); copying again under a fresh snapshot",
			"changed", tableNames(changed), "tables", tableNames(tables), "snapshot_lsn", lsn, "retry_in", wait, "attempt", attempt+1)
		if err := sleepCtx(ctx, wait); err != nil {
			return 0, fmt.Errorf("resync: %w", err)
		}
	}
}

// resyncOnce is one attempt of [Resync]: it returns the tables that
// changed after its snapshot (nothing reported then) or, with none,
// the snapshot's LSN every table was reported at.
// maxResyncAttempts bounds the fresh snapshots a [Resync] takes for
// tables that keep changing during its copies (about 2.5 minutes of
// backoff).
const maxResyncAttempts = 8

func resyncOnce(ctx context.Context, opts CopyOptions, tables []wal.TableName, sink wal.CopySink) (wal.LSN, []wal.TableName, error) {
	conn, err := ConnectReplication(ctx, opts.ConnString)
	if err != nil {
		return 0, nil, fmt.Errorf("resync: %w", err)
	}
	defer closeConn(conn)
	ver, err := ServerVersionNum(conn)
	if err != nil {
		return 0, nil, fmt.Errorf("resync: %w", err)
	}
	if _, _, err := simpleQuery(ctx, conn, BeginUseSnapshot); err != nil {
		return 0, nil, fmt.Errorf("resync: begin: %w", err)
	}
	slot := fmt.Sprintf("sidecar_resync_%d_%d", os.Getpid(), time.Now().UnixNano()%1e12)
	res, err := pglogrepl.ParseCreateReplicationSlot(conn.Exec(ctx, CreateSlotCommand(ver, slot, true, SnapshotUse)))
	if err != nil {
		return 0, nil, fmt.Errorf("resync: %w", slotCreateError(ctx, opts.ConnString, slot, conn.PID(), err))
	}
	lsn, err := wal.ParseLSN(res.ConsistentPoint)
	if err != nil {
		return 0, nil, fmt.Errorf("resync: consistent point: %w", err)
	}
	rows, _, err := simpleQuery(ctx, conn, "SELECT pg_catalog.pg_export_snapshot()")
	if err != nil {
		return 0, nil, fmt.Errorf("resync: export snapshot: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, nil, fmt.Errorf("resync: export snapshot: no snapshot name returned")
	}
	changed, err := copyAt(ctx, opts, Snapshot{Name: rows[0][0], LSN: lsn}, tables, sink, true)
	if err != nil {
		return 0, nil, fmt.Errorf("resync at %s: %w", lsn, err)
	}
	if len(changed) > 0 {
		return lsn, changed, nil
	}
	if _, _, err := simpleQuery(ctx, conn, "COMMIT"); err != nil {
		return 0, nil, fmt.Errorf("resync: commit: %w", err)
	}
	return lsn, nil, nil
}
