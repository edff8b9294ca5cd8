package snapshot

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/store"
)

// GCOptions configure one garbage collection.
type GCOptions struct {
	DB      *store.DB
	Mirror  *mirror.Mirror
	Catalog *Catalog
	// ExtraRoots returns trees held only in memory that must survive (a
	// writer's scratch trees); called after the mark of stored roots, so a
	// root created meanwhile is included.
	ExtraRoots func() []prolly.Root
	// Dir is the data directory, for the bytes-on-disk report ("" skips it).
	Dir string
	// ValueLogGC runs Badger's value-log GC afterwards, so space returns.
	ValueLogGC bool
}

// GCStats reports one collection.
type GCStats struct {
	Roots       int   // distinct roots marked from
	Live        int   // nodes reachable from them
	Scanned     int64 // nodes visited by the sweep
	Deleted     int64
	BytesBefore int64 // data directory size before and after ("" Dir: 0)
	BytesAfter  int64
}

// catalogGroupPrefix is the mirror's group records ('c' 'g' endLSN, see
// mirror/doc.go): every version's trees are reachable from the group at
// or before it (versions inside a group replay the log onto its root).
var catalogGroupPrefix = []byte{store.PrefixCatalog, 'g'}

// CollectGarbage deletes the nodes no retained version needs: it marks
// every node reachable from every group record's trees (so every commit
// stays readable: history is retained whole, tags included), from every
// branch, and from ExtraRoots, then sweeps the rest with
// store.NodeStore.Sweep at a store version taken before the mark, so a
// node written while GC runs is kept whatever the mark saw.
//
// Safety: a node the mark misses is deleted only if it was last written
// before GC started and is not reachable from a stored record. A writer
// that builds from stored roots (group flushes) writes new nodes, which
// are kept. A tree held only in memory across the start of GC (a spilled
// transaction's scratch tree) must come from ExtraRoots; without that hook
// run GC only while the mirror is not applying (e.g. from the CLI with no
// daemon). Callers that persist trees by skipping nodes already stored
// (history branches) must not run concurrently with it (history.Service
// serialises them).
func CollectGarbage(ctx context.Context, o GCOptions) (GCStats, error) {
	var st GCStats
	ns, ok := o.Mirror.Engine().Store().(*store.NodeStore[*prolly.Node])
	if !ok {
		return st, errors.New("gc: the mirror's node store is not a store.NodeStore")
	}
	if o.Dir != "" {
		st.BytesBefore = dirSize(o.Dir)
	}
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
	if o.ExtraRoots != nil {
		extra := o.ExtraRoots()
		roots = append(roots, extra...)
		if err := mark(extra); err != nil {
			return st, err
		}
	}
	st.Roots, st.Live = len(roots), len(live)
	ss, err := ns.Sweep(ctx, asOf, func(h prolly.Hash) bool { _, ok := live[h]; return ok })
	st.Scanned, st.Deleted = ss.Scanned, ss.Deleted
	if err != nil {
		return st, fmt.Errorf("gc: sweep: %w", err)
	}
	if o.ValueLogGC {
		if _, err := o.DB.RunValueLogGC(ctx, 0.5); err != nil {
			return st, fmt.Errorf("gc: value log: %w", err)
		}
	}
	if o.Dir != "" {
		st.BytesAfter = dirSize(o.Dir)
	}
	return st, nil
}

// storedRoots lists the distinct roots of every group record and branch.
func storedRoots(ctx context.Context, o GCOptions) ([]prolly.Root, error) {
	var groups []replication.LSN
	err := o.DB.Badger().View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: catalogGroupPrefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != len(catalogGroupPrefix)+8 {
				return fmt.Errorf("group record key %x: want %d bytes", k, len(catalogGroupPrefix)+8)
			}
			groups = append(groups, replication.LSN(binary.BigEndian.Uint64(k[len(catalogGroupPrefix):])))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gc: list groups: %w", err)
	}
	seen := map[prolly.Root]bool{}
	var out []prolly.Root
	add := func(r prolly.Root) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, g := range groups {
		for _, t := range o.Mirror.Tables() {
			tr, err := o.Mirror.TreeAt(ctx, t.Name, g)
			if errors.Is(err, mirror.ErrUnknownTable) || errors.Is(err, mirror.ErrNoVersion) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("gc: roots of group %s: %w", g, err)
			}
			if tr.Engine() == o.Mirror.Engine() { // a stored root, no replay
				add(tr.Root)
			}
		}
	}
	for _, t := range o.Mirror.Tables() {
		add(t.Root)
	}
	bs, err := o.Catalog.Branches()
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		for _, r := range b.Roots {
			add(r.Root)
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
