package history

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/wal"
)

// tree is one table at one point of history, with the engine that reads it.
type tree struct {
	table  string
	root   prolly.Root
	eng    *prolly.Engine
	rel    *wal.Relation
	codec  *rowenc.KeyCodec // nil: REPLICA IDENTITY FULL (key = whole row)
	exists bool             // false: the table did not exist there (empty root)
	// rows, from rowsAt: the snapshot tree to read rows through (its
	// root may be a base with the version's edits in memory).
	rows *snapshot.Tree
}

// tableInfo returns the mirror's description of table (see
// snapshot.LookupTable: callers use the returned info's Name from then
// on).
func (s *Service) tableInfo(table string) (mirror.TableInfo, error) {
	return snapshot.LookupTable(s.mirror, table)
}

// treeAt opens table at p (see snapshot.OpenTree).
func (s *Service) treeAt(ctx context.Context, p refs.Point, table string) (*tree, error) {
	t, err := snapshot.OpenTree(ctx, s.mirror, p, table)
	if err != nil {
		return nil, err
	}
	return &tree{table: t.Table, root: t.Root, eng: t.Eng, rel: t.Rel, codec: t.Codec, exists: t.Exists}, nil
}

// rowsAt opens table at p for reading rows only (see snapshot.OpenRows):
// read them through t.rows, never through root and eng.
func (s *Service) rowsAt(ctx context.Context, p refs.Point, table string) (*tree, error) {
	t, err := snapshot.OpenRows(ctx, s.mirror, p, table)
	if err != nil {
		return nil, err
	}
	return &tree{table: t.Table, root: t.Root, eng: t.Eng, rel: t.Rel, codec: t.Codec, exists: t.Exists, rows: t}, nil
}

// joinEngines returns one engine that reads every tree of ts: the
// mirror's engine when they all use it, otherwise an engine over a store
// that reads each tree's in-memory replay overlay (then the mirror's
// store) and keeps its own writes in memory. Merges write there; persist
// copies what a kept result needs into the mirror's store.
func (s *Service) joinEngines(ts ...*tree) (*prolly.Engine, error) {
	base := s.mirror.Engine()
	var stores []prolly.NodeStore
	for _, t := range ts {
		if t.eng != base {
			stores = append(stores, t.eng.Store())
		}
	}
	js := &joinStore{mem: map[prolly.Hash]*prolly.Node{}, reads: append(stores, base.Store())}
	return prolly.NewEngine(js, base.Spec(), prolly.RowHash{ID: base.Spec().RowHash, Fn: base.RowHash})
}

// joinStore reads through a list of stores and keeps writes in memory.
type joinStore struct {
	mu    sync.RWMutex
	mem   map[prolly.Hash]*prolly.Node
	reads []prolly.NodeStore
}

func (j *joinStore) Get(ctx context.Context, h prolly.Hash) (*prolly.Node, error) {
	j.mu.RLock()
	n, ok := j.mem[h]
	j.mu.RUnlock()
	if ok {
		return n, nil
	}
	var err error
	for _, s := range j.reads {
		if n, err = s.Get(ctx, h); err == nil {
			return n, nil
		}
		if !errors.Is(err, prolly.ErrNotFound) {
			return nil, err
		}
	}
	return nil, err
}

// GetMany asks the first read store for everything at once (it reads
// through to the disk store in parallel) and falls back to one at a time
// only when a node lives in another tree's overlay.
func (j *joinStore) GetMany(ctx context.Context, hs []prolly.Hash) ([]*prolly.Node, error) {
	j.mu.RLock()
	inMem := 0
	for _, h := range hs {
		if _, ok := j.mem[h]; ok {
			inMem++
		}
	}
	j.mu.RUnlock()
	if inMem == 0 {
		ns, err := j.reads[0].GetMany(ctx, hs)
		if err == nil || !errors.Is(err, prolly.ErrNotFound) {
			return ns, err
		}
	}
	out := make([]*prolly.Node, len(hs))
	for i, h := range hs {
		n, err := j.Get(ctx, h)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func (j *joinStore) Put(_ context.Context, h prolly.Hash, _ []byte, n *prolly.Node) error {
	j.mu.Lock()
	j.mem[h] = n
	j.mu.Unlock()
	return nil
}

func (j *joinStore) Flush(context.Context) error { return nil }

// persist makes the tree at root, read through eng, durable in the
// mirror's node store: a node the store already holds has its whole
// subtree there (nodes reach the store children first), so only nodes
// that live in memory overlays are read and written, O(changes · height).
func (s *Service) persist(ctx context.Context, eng *prolly.Engine, root prolly.Root) error {
	dst := s.mirror.Engine().Store()
	if eng.Store() == dst {
		return dst.Flush(ctx)
	}
	var walk func(h prolly.Hash) error
	walk = func(h prolly.Hash) error {
		if _, err := dst.Get(ctx, h); err == nil {
			return nil
		} else if !errors.Is(err, prolly.ErrNotFound) {
			return err
		}
		n, err := eng.Store().Get(ctx, h)
		if err != nil {
			return fmt.Errorf("read node %s: %w", h.Short(), err)
		}
		if !n.IsLeaf() {
			for i := range n.Len() {
				if err := walk(n.Child(i)); err != nil {
					return err
				}
			}
		}
		return dst.Put(ctx, h, n.Bytes(), n)
	}
	if err := walk(root.Hash); err != nil {
		return fmt.Errorf("persist root %s: %w", root, err)
	}
	return dst.Flush(ctx)
}
