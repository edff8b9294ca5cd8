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

// TablesAppeared takes the tables tables ["*"] follows now (the daemon's
// catalog poll reads them with replication.ResolveStar, which first adds
// new tables to the sidecar's own publication) and starts following
// those not followed yet, the way PartitionsChanged follows a new
// partition, with no change lost and none applied twice:
//
//  1. the stream is restarted and its old session has ended: the new
//     walsender reads the publication afresh (the table was added to it
//     after the old one started) and sends the table's changes from the
//     mirror's durable LSN on;
//  2. the target follows the table (holds its changes) and lists it for
//     a resync, which the stream loop runs under a snapshot taken after
//     both: rows written before it are in the copy (a change streamed and
//     ignored before step 2 committed before it), later ones are held and
//     those committed after the snapshot applied.
//
// A partitioned table read as its leaves is followed as its leaves. It
// returns the tables it started following; it does nothing without
// AllTables or before the stream runs (a start resolves its tables
// itself, and the first poll once streaming picks up the rest).
func (f *Follower) TablesAppeared(ctx context.Context, tables []wal.TableName) ([]string, error) {
	if !f.cfg.AllTables {
		return nil, nil
	}
	f.mu.Lock()
	s := f.streamer
	known := map[string]bool{}
	for _, n := range f.names {
		known[n] = true
	}
	for _, ls := range f.leaves {
		for _, l := range ls {
			known[l] = true
		}
	}
	f.mu.Unlock()
	if s == nil {
		return nil, nil
	}
	recorded, _ := f.cfg.Target.CopyStates()
	var cand []wal.TableName
	for _, t := range tables {
		if _, rec := recorded[t.String()]; !rec && !known[t.String()] {
			cand = append(cand, t)
		}
	}
	if len(cand) == 0 {
		return nil, nil
	}
	// A partitioned table is streamed and copied as its leaves (unless
	// via the root): one whose leaves are followed already is known (a
	// restart lists "*"'s tables by the names the mirror holds).
	leaves := map[string][]string{}
	if !f.cfg.Copy.ViaPartitionRoot {
		conn, err := replication.Connect(ctx, f.cfg.ConnString)
		if err != nil {
			return nil, fmt.Errorf("list partitions: %w", err)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		kept := cand[:0]
		for _, t := range cand {
			ls, err := leafPartitions(ctx, conn, t)
			if err != nil {
				return nil, fmt.Errorf("list partitions of %s: %w", t, err)
			}
			if slices.ContainsFunc(ls, func(l string) bool { _, ok := recorded[l]; return ok || known[l] }) {
				continue
			}
			if ls != nil {
				leaves[t.String()] = ls
			}
			kept = append(kept, t)
		}
		cand = kept
	}
	if len(cand) == 0 {
		return nil, nil
	}
	var added, follow []string
	for _, t := range cand {
		added = append(added, t.String())
		if ls, ok := leaves[t.String()]; ok {
			follow = append(follow, ls...)
		} else {
			follow = append(follow, t.String())
		}
	}
	f.log.Info("new tables to follow (tables [\"*\"]): restarting the stream, then copying them (their changes are held until they are copied)", "tables", added)
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	err := s.Restart(rctx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("restart the stream to follow new tables %v: %w", added, err)
	}
	f.mu.Lock()
	for _, t := range cand {
		f.tables = append(f.tables, t)
		f.names = append(f.names, t.String())
		if ls, ok := leaves[t.String()]; ok {
			if f.leaves == nil {
				f.leaves = map[string][]string{}
			}
			f.leaves[t.String()] = ls
		}
	}
	f.mu.Unlock()
	if lf, ok := f.cfg.Target.(LeafFollower); ok {
		lf.FollowAlso(follow)
	}
	nf, ok := f.cfg.Target.(NewFollower)
	if !ok {
		return nil, fmt.Errorf("follow new tables %v: the target cannot follow tables while it runs", added)
	}
	nf.FollowNew(follow)
	return added, nil
}

// NewForgetter is an optional extension of [Target]: ForgetNew stops
// following tables FollowNew added that were never copied.
type NewForgetter interface {
	ForgetNew(names []string)
}

// forgetVanished: the tables of need that PostgreSQL no longer has and
// the target holds no record of (new tables picked up, then dropped
// before their copy landed: a staging table) are no longer followed, so
// their failed copy does not stop following. It reports whether any was.
func (f *Follower) forgetVanished(ctx context.Context, need []string) bool {
	fg, ok := f.cfg.Target.(NewForgetter)
	if !ok {
		return false
	}
	recorded, _ := f.cfg.Target.CopyStates()
	byQuoted := map[string]string{}
	var quoted []string
	for _, n := range need {
		tn, err := wal.ParseTableName(n)
		if _, rec := recorded[n]; rec || err != nil {
			continue
		}
		byQuoted[tn.Quoted()] = n
		quoted = append(quoted, tn.Quoted())
	}
	if len(quoted) == 0 {
		return false
	}
	conn, err := replication.Connect(ctx, f.cfg.ConnString)
	if err != nil {
		return false
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, "SELECT n FROM unnest($1::text[]) AS n WHERE pg_catalog.to_regclass(n) IS NULL", quoted)
	if err != nil {
		return false
	}
	missing, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(missing) == 0 {
		return false
	}
	var names []string
	for _, q := range missing {
		names = append(names, byQuoted[q])
	}
	fg.ForgetNew(names)
	f.mu.Lock()
	gone := func(n string) bool { return slices.Contains(names, n) }
	for root, ls := range f.leaves {
		f.leaves[root] = slices.DeleteFunc(ls, gone)
	}
	keep := f.tables[:0]
	for _, t := range f.tables {
		ls, part := f.leaves[t.String()]
		if !gone(t.String()) && !(part && len(ls) == 0) {
			keep = append(keep, t)
		} else {
			delete(f.leaves, t.String())
		}
	}
	f.tables = keep
	f.names = f.names[:0]
	for _, t := range f.tables {
		f.names = append(f.names, t.String())
	}
	f.mu.Unlock()
	f.log.Warn("new tables dropped before their copy landed: no longer followed", "tables", names)
	return true
}
