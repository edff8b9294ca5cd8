package refs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// GCOptions configure one garbage collection.
type GCOptions struct {
	DB      *store.DB
	Mirror  *mirror.Mirror
	Catalog *Catalog
	// ExtraRoots returns trees held only in memory outside the mirror that
	// must survive; called after the mark of stored roots, so a root
	// created meanwhile is included. (The mirror's own in-memory trees
	// are covered by mirror.RootWatch.)
	ExtraRoots func() []prolly.Root
	// Dir is the data directory, for the bytes-on-disk report ("" skips it).
	Dir string
	// ValueLogGC runs Badger's value-log GC afterwards, so space returns.
	ValueLogGC bool
	// CompactFirst flushes and compacts the LSM before the value-log GC
	// (store.DB.RunValueLogGC), so the deletes just made count at once;
	// it blocks Badger reads and writes for up to seconds: offline only.
	// Without it space returns over later collections.
	CompactFirst bool
	// CompactMinDeleted, when CompactFirst is false, compacts first anyway
	// when the sweep deleted at least this share of the nodes it scanned
	// (0: never): a running daemon pays the stall only when much space is
	// to come back.
	CompactMinDeleted float64
	// AfterMark, when set, is called between the mark of stored roots and
	// the collection of the mirror's in-memory roots: tests let the writer
	// flush groups there to exercise mirror.RootWatch.
	AfterMark func()
}

// GCStats reports one collection.
type GCStats struct {
	Expired     mirror.ExpireStats // what Expire did before (when it ran)
	Roots       int                // distinct roots marked from
	Live        int                // nodes reachable from them
	Scanned     int64              // nodes visited by the sweep
	Deleted     int64
	BytesBefore int64 // data directory size before and after ("" Dir: 0)
	BytesAfter  int64
	Mark        time.Duration
	Sweep       time.Duration
	ValueLog    time.Duration // value-log GC (space returned to the file system)
}

// Expire applies history.retain: versions committed before cutoff are
// dropped (mirror.Expire), except tagged ones. The version current at
// cutoff stays, so @cutoff still resolves. The caller must keep tags from
// being created meanwhile (history.Service serialises them) and must let
// readers that began before it finish before collecting garbage
// (mirror.WaitReaders).
func Expire(ctx context.Context, m *mirror.Mirror, c *Catalog, cutoff time.Time) (mirror.ExpireStats, error) {
	var st mirror.ExpireStats
	head := m.Head()
	if head.EndLSN == 0 || cutoff.IsZero() {
		return st, nil
	}
	r := &Resolver{Mirror: m, Catalog: c}
	v, ok, err := r.atTime(Ref{Kind: RefTime, Time: cutoff}, head)
	if err != nil {
		return st, fmt.Errorf("expire before %s: %w", cutoff.UTC().Format(time.RFC3339), err)
	}
	if !ok {
		return st, nil // every version is newer than the cutoff
	}
	tags, err := c.Tags()
	if err != nil {
		return st, fmt.Errorf("expire: %w", err)
	}
	keep := make([]wal.LSN, 0, len(tags))
	for _, t := range tags {
		keep = append(keep, t.LSN)
	}
	return m.Expire(ctx, v.EndLSN, keep)
}

// CollectGarbage deletes the nodes no retained version needs: it marks
// every node reachable from every stored group record (so every retained
// version stays readable: versions inside a group replay the log onto
// its roots), from every branch, from the mirror's in-memory trees and
// ExtraRoots, then sweeps the rest with store.NodeStore.Sweep at a store
// version taken before the mark, so a node written while GC runs is kept
// whatever the mark saw.
//
// Safety next to the running mirror: mirror.WatchRoots flushes the
// mirror's write queue before the store version is taken (every group
// record queued before is listed) and records every root written after;
// RootWatch.Roots adds the tables' current roots, a large transaction's
// scratch trees and the result of a group flush or copy in flight. A
// tree begun after that writes its nodes after the sweep version. Readers
// that resolved a version or branch before it was dropped must be done
// (mirror.WaitReaders); callers that persist trees by skipping nodes
// already stored (history branches) must not run concurrently with it
// (history.Service serialises them).
func CollectGarbage(ctx context.Context, o GCOptions) (GCStats, error) {
	var st GCStats
	ns, ok := o.Mirror.Engine().Store().(*store.NodeStore[*prolly.Node])
	if !ok {
		return st, errors.New("gc: the mirror's node store is not a store.NodeStore")
	}
	if o.Dir != "" {
		st.BytesBefore = dirSize(o.Dir)
	}
	start := time.Now()
	// Every Put from here on is kept by the sweep; Puts before are in
	// Badger before the sweep version (the flush) and either reachable
	// from what is marked or garbage. Begun before the watch: a copy
	// build the watch counts as later puts every node after this
	// (mirror.ErrCopyBuilding).
	if err := ns.BeginSweep(); err != nil {
		return st, fmt.Errorf("gc: %w", err)
	}
	defer ns.EndSweep()
	watch, err := o.Mirror.WatchRoots()
	if err != nil {
		return st, fmt.Errorf("gc: %w", err)
	}
	defer watch.Stop()
	if err := ns.Flush(ctx); err != nil {
		return st, fmt.Errorf("gc: flush: %w", err)
	}
	asOf := o.DB.Version()
	roots, err := storedRoots(ctx, o)
	if err != nil {
		return st, err
	}
	live := map[prolly.Hash]struct{}{}
	mark := func(rs []prolly.Root) error {
		for _, r := range rs {
			if err := markTree(ctx, ns, r.Hash, live); err != nil {
				return fmt.Errorf("gc: mark root %s: %w", r, err)
			}
		}
		return nil
	}
	if err := mark(roots); err != nil {
		return st, err
	}
	if o.AfterMark != nil {
		o.AfterMark()
	}
	extra, err := watch.Roots(ctx)
	if err != nil {
		return st, fmt.Errorf("gc: %w", err)
	}
	if o.ExtraRoots != nil {
		extra = append(extra, o.ExtraRoots()...)
	}
	roots = append(roots, extra...)
	if err := mark(extra); err != nil {
		return st, err
	}
	st.Roots, st.Live = len(roots), len(live)
	st.Mark = time.Since(start)
	start = time.Now()
	ss, err := ns.Sweep(ctx, asOf, func(h prolly.Hash) bool { _, ok := live[h]; return ok })
	st.Scanned, st.Deleted = ss.Scanned, ss.Deleted
	st.Sweep = time.Since(start)
	if err != nil {
		return st, fmt.Errorf("gc: sweep: %w", err)
	}
	if o.ValueLogGC {
		start = time.Now()
		run := o.DB.RunValueLogGCOnline
		worth := o.CompactMinDeleted > 0 && st.Scanned > 0 && float64(st.Deleted) >= o.CompactMinDeleted*float64(st.Scanned)
		if o.CompactFirst || worth {
			run = o.DB.RunValueLogGC
		}
		if _, err := run(ctx, 0.5); err != nil {
			return st, fmt.Errorf("gc: value log: %w", err)
		}
		st.ValueLog = time.Since(start)
	}
	if o.Dir != "" {
		st.BytesAfter = dirSize(o.Dir)
	}
	return st, nil
}

// storedRoots lists the distinct roots of every group record and branch.
func storedRoots(ctx context.Context, o GCOptions) ([]prolly.Root, error) {
	out, err := o.Mirror.GroupRoots(ctx)
	if err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	bs, err := o.Catalog.Branches()
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		for _, r := range b.Roots {
			out = append(out, r.Root)
		}
	}
	return out, nil
}

// markTree marks h and everything below it; a subtree already marked is
// not read again, so shared history costs one visit. Leaves are marked
// from their parent's child list without being read.
func markTree(ctx context.Context, ns *store.NodeStore[*prolly.Node], h prolly.Hash, live map[prolly.Hash]struct{}) error {
	if _, ok := live[h]; ok {
		return nil
	}
	live[h] = struct{}{}
	n, err := ns.Get(ctx, h)
	if err != nil {
		return fmt.Errorf("read node %s: %w", h.Short(), err)
	}
	if n.IsLeaf() {
		return nil
	}
	for i := range n.Len() {
		c := n.Child(i)
		if n.Level() == 1 {
			live[c] = struct{}{}
			continue
		}
		if err := markTree(ctx, ns, c, live); err != nil {
			return err
		}
	}
	return nil
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
