package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/prolly"
)

// GCOptions configure GC.
type GCOptions struct {
	// Scope is the bucket-relative key prefix under which every sidecar's
	// manifest is listed (default: the parent of the writer's prefix, so
	// s3://b/team/a and s3://b/team/b see each other).
	Scope string
	// Grace is how long a pack waits in pending deletion: it must be
	// longer than the lease timeout + the longest read + the manifest
	// poll, so that no reader of an older manifest still reads it and no
	// fork taken from one is still being written (default 1 h).
	Grace time.Duration
	// CompactBelow: a pack whose live nodes are fewer than this share of
	// its nodes is compacted (its live nodes rewritten into a new pack);
	// default 0.25.
	CompactBelow float64
	// Local is read first when marking (the writer's node store, which
	// holds every retained node); the Store fetches what it lacks.
	Local prolly.NodeStore
	Now   func() time.Time
	// Logger; default discards.
	Logger *slog.Logger

	// crashAt, in tests, makes GC return errCrash at a named step.
	crashAt string
}

// GCStats says what one GC pass did.
type GCStats struct {
	Manifests   int // manifests under the scope, this one included
	Referenced  int // own packs another manifest references (never touched)
	LiveNodes   int
	Dead        int // own packs with no live node, moved to pending
	Compacted   int // own packs with few live nodes, rewritten and moved to pending
	Orphans     int // own packs in no manifest (an upload that crashed before its commit), moved to pending
	Deleted     int // pending packs deleted
	BytesFreed  int64
	Compactions int64 // bytes written by compaction
}

// errCrash is a crash injected by a test (GCOptions.crashAt).
var errCrash = errors.New("injected crash")

// GC runs one pass of remote garbage collection for the prefix w holds:
//
//  1. mark: list every manifest under the scope (the one place this package
//     LISTs); an own pack another manifest references (a fork) is never
//     touched; the nodes of the own packs are marked live from this
//     manifest's Roots. (Another sidecar's roots need no walk: every node
//     they need is in a pack its manifest names.)
//  2. an own pack with no live node goes to pending deletion; packs with
//     few live nodes are compacted: their live nodes are written as one new
//     pack, then the manifest is switched by CAS (new pack in, old ones to
//     pending); an own pack object in no manifest that is older than the
//     grace (a crashed upload) goes to pending too;
//  3. a pending pack older than the grace that no manifest references is
//     deleted, then dropped from pending by another CAS.
//
// Every step leaves the manifest naming every pack a read needs: a crash
// between them leaves at most an unreferenced object, which a later pass
// finds. GC must not run concurrently with an upload of the same Store
// (the Uploader runs it between uploads): the Store forgets the packs
// moved to pending (SetPacks), so a node only they held is uploaded again.
func GC(ctx context.Context, w *Writer, st *Store, o GCOptions) (GCStats, error) {
	var gs GCStats
	if o.Grace <= 0 {
		o.Grace = time.Hour
	}
	if o.CompactBelow <= 0 {
		o.CompactBelow = 0.25
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	c := w.c
	own := c.loc
	if o.Scope == "" && own.Prefix != "" {
		if d := path.Dir(own.Prefix); d != "." {
			o.Scope = d + "/"
		}
	}
	now := o.Now()
	man := w.Manifest()
	if len(man.Roots) == 0 && len(man.Packs) > 0 {
		return gs, nil // written before GC: nothing is known to be dead
	}

	// 1. Mark.
	refd, n, err := otherReferences(ctx, c, o.Scope)
	if err != nil {
		return gs, err
	}
	gs.Manifests = n + 1
	if err := st.AddPacks(ctx, man.Packs); err != nil {
		return gs, fmt.Errorf("remote gc: %w", err)
	}
	live, err := markLive(ctx, st, o.Local, man.Roots)
	if err != nil {
		return gs, fmt.Errorf("remote gc: mark: %w", err)
	}
	gs.LiveNodes = len(live)

	// 2. Sweep own packs into pending, compacting the sparse ones.
	inPacks := map[string]bool{}
	var dead, sparse []PackRef
	for _, p := range man.Packs {
		inPacks[p.Key(own)] = true
		if p.Prefix != "" && p.Prefix != own.Prefix {
			continue // another sidecar's pack: only its owner deletes it
		}
		if refd[p.Key(own)] {
			gs.Referenced++
			continue
		}
		hs, ok := st.PackNodes(p)
		if !ok {
			return gs, fmt.Errorf("remote gc: pack %s: index not loaded", p.Name)
		}
		nlive := 0
		for _, h := range hs {
			if live[h] {
				nlive++
			}
		}
		switch {
		case nlive == 0:
			dead = append(dead, p)
		case float64(nlive) < o.CompactBelow*float64(len(hs)):
			sparse = append(sparse, p)
		}
	}
	var compacted *PackRef
	if len(sparse) > 0 {
		ref, nbytes, err := compact(ctx, st, o.Local, sparse, live)
		if err != nil {
			return gs, fmt.Errorf("remote gc: compact: %w", err)
		}
		compacted = &ref
		gs.Compactions = nbytes
		if o.crashAt == "after-compact-pack" {
			return gs, errCrash
		}
	}
	inPending := map[string]bool{}
	for _, p := range man.Pending {
		inPending[p.Key(own)] = true
	}
	orphans, err := findOrphans(ctx, c, inPacks, inPending, refd, compacted, now.Add(-o.Grace))
	if err != nil {
		return gs, err
	}
	gs.Dead, gs.Orphans = len(dead), len(orphans)
	if len(dead)+len(sparse)+len(orphans) > 0 {
		drop := map[string]bool{}
		var add []PendingPack
		for _, p := range slices.Concat(dead, sparse) {
			drop[p.id()] = true
			add = append(add, PendingPack{PackRef: p, Since: now.UTC()})
		}
		for _, p := range orphans {
			add = append(add, PendingPack{PackRef: p, Since: now.UTC()})
		}
		if err := w.Commit(ctx, func(m *Manifest) {
			m.Packs = slices.DeleteFunc(m.Packs, func(p PackRef) bool { return drop[p.id()] })
			if compacted != nil {
				m.Packs = append(m.Packs, *compacted)
			}
			m.Pending = append(m.Pending, add...)
		}); err != nil {
			return gs, fmt.Errorf("remote gc: switch manifest: %w", err)
		}
		gs.Compacted = len(sparse)
		if err := st.SetPacks(ctx, w.Manifest().Packs); err != nil {
			return gs, fmt.Errorf("remote gc: %w", err)
		}
		if o.crashAt == "after-switch" {
			return gs, errCrash
		}
	}

	// 3. Delete what waited out the grace and nobody references.
	man = w.Manifest()
	deleted := map[string]bool{}
	for _, p := range man.Pending {
		k := p.Key(own)
		if now.Sub(p.Since) < o.Grace || refd[k] || inPacks[k] {
			continue
		}
		if err := c.deleteKey(ctx, k); err != nil {
			return gs, fmt.Errorf("remote gc: %w", err)
		}
		deleted[p.id()] = true
		gs.Deleted++
		gs.BytesFreed += p.Bytes
		if o.crashAt == "after-delete" {
			return gs, errCrash
		}
	}
	if len(deleted) > 0 {
		if err := w.Commit(ctx, func(m *Manifest) {
			m.Pending = slices.DeleteFunc(m.Pending, func(p PendingPack) bool { return deleted[p.id()] })
		}); err != nil {
			return gs, fmt.Errorf("remote gc: drop deleted from pending: %w", err)
		}
	}
	o.Logger.Info("remote gc", "manifests", gs.Manifests, "live_nodes", gs.LiveNodes, "dead", gs.Dead, "compacted", gs.Compacted,
		"orphans", gs.Orphans, "referenced", gs.Referenced, "deleted", gs.Deleted, "bytes_freed", gs.BytesFreed)
	return gs, nil
}

// otherReferences lists every manifest under scope but c's own and
// returns the keys of the packs they reference (Packs and Pending) and
// how many there are. A manifest that cannot be read stops GC: a pack it
// may reference must not be deleted.
func otherReferences(ctx context.Context, c *Client, scope string) (map[string]bool, int, error) {
	objs, err := c.List(ctx, scope)
	if err != nil {
		return nil, 0, fmt.Errorf("remote gc: %w", err)
	}
	ownKey := c.loc.key(manifestName)
	refd := map[string]bool{}
	n := 0
	for _, o := range objs {
		if o.Key == ownKey || (o.Key != manifestName && !strings.HasSuffix(o.Key, "/"+manifestName)) {
			continue
		}
		data, _, err := c.get(ctx, o.Key, -1, 0)
		if errors.Is(err, ErrNotExist) {
			continue // removed since the LIST
		}
		if err != nil {
			return nil, 0, fmt.Errorf("remote gc: %w", err)
		}
		m, err := decodeManifest(data)
		if err != nil {
			return nil, 0, fmt.Errorf("remote gc: manifest %s: %w", o.Key, err)
		}
		n++
		loc := Location{Bucket: c.loc.Bucket, Prefix: strings.TrimSuffix(strings.TrimSuffix(o.Key, manifestName), "/")}
		for _, p := range m.Packs {
			refd[p.Key(loc)] = true
		}
		for _, p := range m.Pending {
			refd[p.Key(loc)] = true
		}
	}
	return refd, n, nil
}

// markLive returns every node reachable from roots, read from local first
// and from st (its packs) for what local lacks; a leaf is marked from its
// parent without being read.
func markLive(ctx context.Context, st *Store, local prolly.NodeStore, roots []string) (map[addr.Hash]bool, error) {
	live := map[addr.Hash]bool{}
	var level []addr.Hash
	for _, s := range roots {
		h, err := addr.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("root %q: %w", s, err)
		}
		if !live[h] {
			live[h] = true
			level = append(level, h)
		}
	}
	for len(level) > 0 {
		var next []addr.Hash
		for batch := range slices.Chunk(level, 4096) {
			ns, err := getNodes(ctx, st, local, batch)
			if err != nil {
				return nil, err
			}
			for _, n := range ns {
				if n.IsLeaf() {
					continue
				}
				for i := range n.Len() {
					h := n.Child(i)
					if live[h] {
						continue
					}
					live[h] = true
					if n.Level() > 1 {
						next = append(next, h)
					}
				}
			}
		}
		level = next
	}
	return live, nil
}

// getNodes reads hs from local, then what it lacks from st.
func getNodes(ctx context.Context, st *Store, local prolly.NodeStore, hs []addr.Hash) ([]*prolly.Node, error) {
	if local == nil {
		return st.GetMany(ctx, hs)
	}
	out := make([]*prolly.Node, len(hs))
	var miss []addr.Hash
	var at []int
	for i, h := range hs {
		n, err := local.Get(ctx, h)
		switch {
		case err == nil:
			out[i] = n
		case errors.Is(err, addr.ErrNotFound):
			miss, at = append(miss, h), append(at, i)
		default:
			return nil, err
		}
	}
	if len(miss) > 0 {
		got, err := st.GetMany(ctx, miss)
		if err != nil {
			return nil, err
		}
		for j, i := range at {
			out[i] = got[j]
		}
	}
	return out, nil
}

// compact writes the live nodes of packs as one new pack (not yet in any
// manifest) and returns it with its size.
func compact(ctx context.Context, st *Store, local prolly.NodeStore, packs []PackRef, live map[addr.Hash]bool) (PackRef, int64, error) {
	var hs []addr.Hash
	seen := map[addr.Hash]bool{}
	for _, p := range packs {
		ps, _ := st.PackNodes(p)
		for _, h := range ps {
			if live[h] && !seen[h] {
				seen[h] = true
				hs = append(hs, h)
			}
		}
	}
	nodes := make(map[addr.Hash][]byte, len(hs))
	for batch := range slices.Chunk(hs, 4096) {
		ns, err := getNodes(ctx, st, local, batch)
		if err != nil {
			return PackRef{}, 0, err
		}
		for i, n := range ns {
			nodes[batch[i]] = n.Bytes()
		}
	}
	data, ents := encodePack(nodes)
	ref := PackRef{Name: "packs/" + addr.Of(data).String() + ".pack", Nodes: len(ents), Bytes: int64(len(data))}
	if _, err := st.c.Put(ctx, ref.Name, data, Cond{}); err != nil {
		return PackRef{}, 0, fmt.Errorf("upload compacted pack of %d nodes: %w", len(ents), err)
	}
	return ref, int64(len(data)), nil
}

// findOrphans lists the own packs/ objects and returns those in neither
// Packs nor Pending nor referenced by another manifest, last written
// before cutoff (an upload that crashed before its manifest commit; one
// that is younger may still be committed).
func findOrphans(ctx context.Context, c *Client, inPacks, inPending, refd map[string]bool, compacted *PackRef, cutoff time.Time) ([]PackRef, error) {
	objs, err := c.List(ctx, c.loc.key("packs/"))
	if err != nil {
		return nil, fmt.Errorf("remote gc: %w", err)
	}
	var out []PackRef
	for _, o := range objs {
		if inPacks[o.Key] || inPending[o.Key] || refd[o.Key] || !o.Modified.Before(cutoff) || !strings.HasSuffix(o.Key, ".pack") {
			continue
		}
		if compacted != nil && o.Key == compacted.Key(c.loc) {
			continue
		}
		name := strings.TrimPrefix(o.Key, c.loc.key(""))
		out = append(out, PackRef{Name: name, Bytes: o.Size})
	}
	return out, nil
}
