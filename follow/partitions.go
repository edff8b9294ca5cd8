package follow

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// LeafFollower is an optional extension of [Target]: FollowAlso adds
// tables to those the target follows. The follower calls it with the leaf
// partitions of every followed partitioned table when the publication
// does not publish via the root: the stream and the copy name the leaves,
// never the root, so a target that knew only the configured names would
// ignore their changes.
type LeafFollower interface {
	FollowAlso(names []string)
}

// resolvePartitions finds the leaf partitions of the followed tables that
// are partitioned (none when the copy reads them via their root), records
// them (followedAs) and tells the target to follow them. A table that does
// not exist resolves to nothing (the copy or preflight reports it).
//
// Without this a partitioned table was never ready: the copy reported
// its leaves copied, never the root, so every start copied it again
// under a fresh snapshot and then failed, over and over (issue 21).
//
// conn is a catalog connection the caller already holds (a restart lists
// "*"'s roots first), or nil to open one here.
func (f *Follower) resolvePartitions(ctx context.Context, conn *pgx.Conn) error {
	leaves := map[string][]string{}
	if !f.cfg.Copy.ViaPartitionRoot {
		if conn == nil {
			c, err := f.catalogConn(ctx, "list partitions")
			if err != nil {
				return err
			}
			defer c.Close(context.WithoutCancel(ctx))
			conn = c
		}
		for _, t := range f.copyTables() {
			ls, err := leafPartitions(ctx, conn, t)
			if err != nil {
				return fmt.Errorf("list partitions of %s: %w", t, err)
			}
			if ls != nil {
				leaves[t.String()] = ls
			}
		}
	}
	f.mu.Lock()
	f.leaves = leaves
	f.mu.Unlock()
	var all []string
	for _, ls := range leaves {
		all = append(all, ls...)
	}
	if lf, ok := f.cfg.Target.(LeafFollower); ok && len(all) > 0 {
		slices.Sort(all)
		lf.FollowAlso(all)
	}
	return nil
}

// leafPartitions returns the leaf partitions (ordinary tables) of t when
// t is a partitioned table, canonical names sorted, and nil otherwise.
func leafPartitions(ctx context.Context, conn *pgx.Conn, t wal.TableName) ([]string, error) {
	var kind string
	err := conn.QueryRow(ctx, `SELECT c.relkind::text FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
		t.Schema, t.Name).Scan(&kind)
	if err == pgx.ErrNoRows || (err == nil && kind != "p") {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, `SELECT n.nspname, c.relname FROM pg_catalog.pg_partition_tree($1::pg_catalog.regclass) pt
		JOIN pg_catalog.pg_class c ON c.oid = pt.relid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE pt.isleaf AND c.relkind = 'r'`, t.Quoted())
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var l wal.TableName
		err := r.Scan(&l.Schema, &l.Name)
		return l.String(), err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return append([]string{}, names...), nil
}

// copiedNames are the names a followed table is copied and streamed as:
// its leaf partitions when it is a partitioned table read as its leaves,
// itself otherwise.
func (f *Follower) copiedNames(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ls, ok := f.leaves[name]; ok {
		return ls
	}
	return []string{name}
}

// dropFailedSlot drops the slot of a first start whose initial copy
// failed: nothing in the data directory depends on it yet (no resume LSN
// is recorded; the next start creates a slot again and copies every
// table), and left behind it would hold WAL on the server until someone
// dropped it. It closes snap (the slot's connection) first; the drop runs
// even when ctx ended (SIGTERM during the copy), bounded by 30 s.
func (f *Follower) dropFailedSlot(ctx context.Context, snap *replication.ExportedSnapshot) error {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	snap.Close(dctx)
	rc, err := replication.ConnectReplication(dctx, f.cfg.ConnString)
	if err != nil {
		return fmt.Errorf("drop the slot of the failed first start: %w", err)
	}
	defer rc.Close(context.WithoutCancel(ctx))
	if err := replication.DropSlot(dctx, rc, f.cfg.Slot); err != nil {
		return fmt.Errorf("drop the slot of the failed first start (drop it by hand: SELECT pg_drop_replication_slot('%s')): %w", f.cfg.Slot, err)
	}
	f.log.Info("initial copy failed; its replication slot is dropped (the next start creates it again)", "slot", f.cfg.Slot)
	return nil
}

// NewFollower is an optional extension of [Target]: FollowNew starts
// following tables that have no record yet while the stream runs (their
// changes held until a resync copies them; see mirror.FollowNew).
type NewFollower interface {
	FollowNew(names []string)
}

// PartitionsChanged takes the leaf partitions (kind 'r') of followed
// partitioned tables as the daemon's catalog poll read them now (by the
// root's canonical name). A leaf created or attached since the start is
// followed from now on with no change lost:
//
//  1. the stream is restarted and its old session has ended: a walsender
//     may have cached the attached table as not published (PostgreSQL
//     14 keeps that entry after ATTACH PARTITION), the new one reads the
//     publication afresh and sends the leaf's changes from the mirror's
//     durable LSN on;
//  2. the target follows the leaf (holds its changes) and lists it for
//     a resync, which the stream loop runs under a snapshot taken after
//     both: changes before step 2 are in the copy, later ones are held
//     and those after the snapshot applied.
//
// A leaf detached or dropped is no longer counted as the root's; its
// mirror keeps its history. It does nothing before the stream runs (the
// start resolves the leaves itself) or when the publication publishes
// via the root.
func (f *Follower) PartitionsChanged(ctx context.Context, leaves map[string][]string) error {
	if f.cfg.Copy.ViaPartitionRoot {
		return nil
	}
	f.mu.Lock()
	s := f.streamer
	var added, removed []string
	for root, old := range f.leaves {
		cur, ok := leaves[root]
		if !ok {
			continue // not read (the root is gone or no longer partitioned): keep what is known
		}
		for _, l := range cur {
			if !slices.Contains(old, l) {
				added = append(added, l)
			}
		}
		for _, l := range old {
			if !slices.Contains(cur, l) {
				removed = append(removed, l)
			}
		}
	}
	f.mu.Unlock()
	if s == nil || len(added)+len(removed) == 0 {
		return nil
	}
	if len(added) > 0 {
		slices.Sort(added)
		f.log.Info("new partitions of a followed partitioned table: restarting the stream, then following them (their changes are held until they are copied)", "partitions", added)
		rctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := s.Restart(rctx)
		cancel()
		if err != nil {
			return fmt.Errorf("restart the stream to follow new partitions %v: %w", added, err)
		}
	}
	f.mu.Lock()
	for root := range f.leaves {
		if cur, ok := leaves[root]; ok {
			f.leaves[root] = slices.Clone(cur)
		}
	}
	f.mu.Unlock()
	if len(removed) > 0 {
		f.log.Info("partitions detached or dropped from a followed partitioned table: no longer read as part of it (their history stays readable)", "partitions", removed)
	}
	if nf, ok := f.cfg.Target.(NewFollower); ok && len(added) > 0 {
		nf.FollowNew(added)
	}
	return nil
}

// starRootsOf returns the partitioned tables tables ["*"] follows through
// the publication (a partitioned table is streamed and copied as its
// leaves) of which copied holds a leaf: on a restart the follower lists
// "*"'s tables by the copies the mirror holds, which are leaves only.
// Without them a restart forgot every root: the catalog poll recorded
// each as no longer followed, so FROM root was refused, and a partition
// attached since was never followed.
func (f *Follower) starRootsOf(ctx context.Context, conn *pgx.Conn, copied map[string]wal.LSN) ([]string, error) {
	if f.cfg.Copy.ViaPartitionRoot {
		return nil, nil // the root is copied and streamed itself: copied lists it
	}
	st, err := replication.ResolveStar(ctx, conn, f.cfg.Publication, false)
	if err != nil {
		return nil, fmt.Errorf("list partitioned tables: %w", err)
	}
	var roots []string
	for _, t := range st.Followable {
		if _, ok := copied[t.String()]; ok {
			continue
		}
		ls, err := leafPartitions(ctx, conn, t)
		if err != nil {
			return nil, fmt.Errorf("list partitions of %s: %w", t, err)
		}
		if slices.ContainsFunc(ls, func(l string) bool { _, ok := copied[l]; return ok }) {
			roots = append(roots, t.String())
		}
	}
	return roots, nil
}

// catalogConn opens an ordinary connection for reading the server's
// catalog; what names the step in the error.
func (f *Follower) catalogConn(ctx context.Context, what string) (*pgx.Conn, error) {
	conn, err := replication.Connect(ctx, f.cfg.ConnString)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return conn, nil
}
