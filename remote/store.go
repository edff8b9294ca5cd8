package remote

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/prolly"
)

// PackRef names one uploaded pack, as the manifest lists it.
type PackRef struct {
	Name string `json:"name"` // object name under the prefix: packs/<address>.pack
	// Prefix is the prefix of the sidecar that wrote the pack when it is
	// not this manifest's own: a fork references its origin's packs
	// instead of copying them, and only the owner ever deletes a pack.
	Prefix string `json:"prefix,omitempty"`
	Nodes  int    `json:"nodes"`
	Bytes  int64  `json:"bytes"`
}

// Key returns the pack's bucket-relative object key for a manifest
// under own.
func (r PackRef) Key(own Location) string {
	if r.Prefix != "" {
		return Location{Bucket: own.Bucket, Prefix: r.Prefix}.key(r.Name)
	}
	return own.key(r.Name)
}

// id names the pack among a manifest's (Name alone for the manifest's own).
func (r PackRef) id() string {
	if r.Prefix != "" {
		return r.Prefix + "/" + r.Name
	}
	return r.Name
}

// loc is where a node's body is: pack (index into Store.packs), offset, length.
type loc struct {
	pack int32
	n    uint32
	off  int64
}

// Store is a prolly.NodeStore over packs in object storage, with a local
// node store as its cache: Get and GetMany read the local store first and
// fetch what it lacks by ranged GETs of pack bodies (neighbours within
// MergeGap in one request), check every body against its address, and put
// fetched nodes into the local store. Put writes to the local store and
// queues the node for the next pack; Flush flushes the local store and
// uploads the queued nodes as one pack (one PUT). The packs it knows come
// from AddPacks (a manifest) and its own Flushes: it never LISTs.
//
// Safe for concurrent use.
type Store struct {
	c     *Client
	local prolly.NodeStore
	gap   int64

	mu    sync.RWMutex
	index map[addr.Hash]loc
	packs []PackRef
	ents  [][]entry      // per pack, its index (SetPacks rebuilds from them)
	known map[string]int // PackRef.id → index into packs

	pmu     sync.Mutex
	pending map[addr.Hash][]byte
	pbytes  int64
	upload  sync.Mutex // one pack upload at a time

	fetchedNodes, fetchRequests, corrupt atomic.Int64
}

// StoreOptions tune a Store.
type StoreOptions struct {
	// MergeGap: nodes of one pack closer than this many bytes are fetched
	// by one ranged GET (default 64 KiB).
	MergeGap int64
}

// NewStore returns a store reading and writing packs through c, caching
// in local.
func NewStore(c *Client, local prolly.NodeStore, opts StoreOptions) *Store {
	if opts.MergeGap <= 0 {
		opts.MergeGap = 64 << 10
	}
	return &Store{c: c, local: local, gap: opts.MergeGap, index: map[addr.Hash]loc{}, known: map[string]int{}, pending: map[addr.Hash][]byte{}}
}

// Packs returns the packs the store knows, in the order it learnt them.
func (s *Store) Packs() []PackRef {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.packs)
}

// Contains reports whether h is in an uploaded pack or queued for the next.
func (s *Store) Contains(h addr.Hash) bool {
	s.mu.RLock()
	_, ok := s.index[h]
	s.mu.RUnlock()
	if ok {
		return true
	}
	s.pmu.Lock()
	_, ok = s.pending[h]
	s.pmu.Unlock()
	return ok
}

// AddPacks learns the packs in refs it does not know yet, reading each
// index by a ranged GET of its tail (two when the index is longer than
// 64 KiB), several at once.
func (s *Store) AddPacks(ctx context.Context, refs []PackRef) error {
	var todo []PackRef
	s.mu.RLock()
	for _, r := range refs {
		if _, ok := s.known[r.id()]; !ok {
			todo = append(todo, r)
		}
	}
	s.mu.RUnlock()
	if len(todo) == 0 {
		return nil
	}
	idx := make([][]entry, len(todo))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cap(s.c.sem))
	for i, r := range todo {
		g.Go(func() error {
			ents, err := s.readIndex(gctx, r)
			idx[i] = ents
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range todo {
		if _, ok := s.known[r.id()]; !ok {
			s.addLocked(r, idx[i])
		}
	}
	return nil
}

// SetPacks makes refs the packs the store reads and counts as remote,
// learning the new ones (AddPacks) and forgetting the others: after remote
// GC moved a pack to pending deletion, no read may go to it, and a node
// only it held is no longer remote (the next upload carries it again).
func (s *Store) SetPacks(ctx context.Context, refs []PackRef) error {
	if err := s.AddPacks(ctx, refs); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := make(map[string]bool, len(refs))
	for _, r := range refs {
		keep[r.id()] = true
	}
	if len(keep) == len(s.packs) {
		return nil
	}
	packs, ents := s.packs, s.ents
	s.packs, s.ents, s.known, s.index = nil, nil, map[string]int{}, map[addr.Hash]loc{}
	for i, r := range packs {
		if keep[r.id()] {
			s.addLocked(r, ents[i])
		}
	}
	return nil
}

// PackNodes returns the addresses of the nodes in the known pack r, or
// false when the store does not know it.
func (s *Store) PackNodes(r PackRef) ([]addr.Hash, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.known[r.id()]
	if !ok {
		return nil, false
	}
	out := make([]addr.Hash, len(s.ents[i]))
	for j, e := range s.ents[i] {
		out[j] = e.h
	}
	return out, true
}

func (s *Store) addLocked(r PackRef, ents []entry) {
	p := int32(len(s.packs))
	s.packs = append(s.packs, r)
	s.ents = append(s.ents, ents)
	s.known[r.id()] = int(p)
	for _, e := range ents {
		if _, ok := s.index[e.h]; !ok {
			s.index[e.h] = loc{pack: p, off: e.off, n: e.n}
		}
	}
}

func (s *Store) readIndex(ctx context.Context, r PackRef) ([]entry, error) {
	want := min(r.Bytes, int64(indexTailGuess+footerLen))
	key := r.Key(s.c.loc)
	tail, _, err := s.c.get(ctx, key, r.Bytes-want, want)
	if err != nil {
		return nil, fmt.Errorf("pack %s index: %w", r.Name, err)
	}
	off, n, crc, err := parseFooter(tail, r.Bytes)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", r.Name, err)
	}
	var idx []byte
	if have := int64(len(tail) - footerLen); int64(n) <= have {
		idx = tail[have-int64(n) : have]
	} else if idx, _, err = s.c.get(ctx, key, off, int64(n)); err != nil {
		return nil, fmt.Errorf("pack %s index: %w", r.Name, err)
	}
	ents, err := parseIndex(idx, crc, off)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", r.Name, err)
	}
	if len(ents) != r.Nodes {
		return nil, fmt.Errorf("pack %s: %w: %d nodes, the manifest says %d", r.Name, errBadPack, len(ents), r.Nodes)
	}
	return ents, nil
}

// Get returns the node at h from the local store or, failing that, from
// its pack.
func (s *Store) Get(ctx context.Context, h addr.Hash) (*prolly.Node, error) {
	n, err := s.local.Get(ctx, h)
	if err == nil || !errors.Is(err, addr.ErrNotFound) {
		return n, err
	}
	ns, err := s.fetch(ctx, []addr.Hash{h})
	if err != nil {
		return nil, err
	}
	return ns[h], nil
}

// GetMany returns the nodes at hs in order: what the local store holds
// from it, the rest fetched, neighbours in one ranged GET.
func (s *Store) GetMany(ctx context.Context, hs []addr.Hash) ([]*prolly.Node, error) {
	out, err := s.local.GetMany(ctx, hs)
	if err == nil || !errors.Is(err, addr.ErrNotFound) {
		return out, err
	}
	out = make([]*prolly.Node, len(hs))
	var miss []addr.Hash
	for i, h := range hs {
		n, err := s.local.Get(ctx, h)
		switch {
		case err == nil:
			out[i] = n
		case errors.Is(err, addr.ErrNotFound):
			miss = append(miss, h)
		default:
			return nil, err
		}
	}
	got, err := s.fetch(ctx, miss)
	if err != nil {
		return nil, err
	}
	for i, h := range hs {
		if out[i] == nil {
			out[i] = got[h]
		}
	}
	return out, nil
}

// span is one ranged GET: bytes [off, end) of a pack, holding nodes.
type span struct {
	pack     int32
	off, end int64
	nodes    []located
}

// located is a node and where it is, as of one read of the index.
type located struct {
	h addr.Hash
	l loc
}

// fetch reads the nodes hs from their packs, caching them locally.
func (s *Store) fetch(ctx context.Context, hs []addr.Hash) (map[addr.Hash]*prolly.Node, error) {
	var ls []located
	seen := map[addr.Hash]bool{}
	s.mu.RLock()
	for _, h := range hs {
		if seen[h] {
			continue
		}
		seen[h] = true
		l, ok := s.index[h]
		if !ok {
			s.mu.RUnlock()
			if data, ok := s.queued(h); ok {
				// Queued for upload and gone from the local cache: never
				// with a persistent local store; decode the queued bytes.
				n, err := prolly.DecodeNode(data)
				if err != nil {
					return nil, fmt.Errorf("queued node %s: %w", h.Short(), err)
				}
				return s.fetchRest(ctx, hs, h, n)
			}
			return nil, fmt.Errorf("remote get node %s: in no known pack: %w", h, addr.ErrNotFound)
		}
		ls = append(ls, located{h, l})
	}
	packs := s.packs
	s.mu.RUnlock()
	slices.SortFunc(ls, func(a, b located) int {
		if a.l.pack != b.l.pack {
			return int(a.l.pack - b.l.pack)
		}
		return int(a.l.off - b.l.off)
	})
	var spans []span
	for _, x := range ls {
		end := x.l.off + int64(x.l.n)
		if k := len(spans) - 1; k >= 0 && spans[k].pack == x.l.pack && x.l.off-spans[k].end <= s.gap {
			spans[k].end = max(spans[k].end, end)
			spans[k].nodes = append(spans[k].nodes, x)
			continue
		}
		spans = append(spans, span{pack: x.l.pack, off: x.l.off, end: end, nodes: []located{x}})
	}
	out := make(map[addr.Hash]*prolly.Node, len(ls))
	var omu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cap(s.c.sem))
	for _, sp := range spans {
		g.Go(func() error {
			name := packs[sp.pack].id()
			s.fetchRequests.Add(1)
			buf, _, err := s.c.get(gctx, packs[sp.pack].Key(s.c.loc), sp.off, sp.end-sp.off)
			if err != nil {
				return fmt.Errorf("remote get nodes: %w", err)
			}
			for _, x := range sp.nodes {
				h, l := x.h, x.l
				data, err := decodeBody(h, buf[l.off-sp.off:l.off-sp.off+int64(l.n)])
				if err != nil {
					s.corrupt.Add(1)
					err.(*CorruptError).Pack = name
					return err
				}
				n, err := prolly.DecodeNode(data)
				if err != nil {
					return fmt.Errorf("remote node %s (pack %s): %w", h.Short(), name, err)
				}
				if err := s.local.Put(gctx, h, data, n); err != nil {
					return fmt.Errorf("cache remote node %s: %w", h.Short(), err)
				}
				s.fetchedNodes.Add(1)
				omu.Lock()
				out[h] = n
				omu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// fetchRest is fetch for hs when h (already decoded as n) was queued.
func (s *Store) fetchRest(ctx context.Context, hs []addr.Hash, h addr.Hash, n *prolly.Node) (map[addr.Hash]*prolly.Node, error) {
	rest := make([]addr.Hash, 0, len(hs))
	for _, x := range hs {
		if x != h {
			rest = append(rest, x)
		}
	}
	out, err := s.fetch(ctx, rest)
	if err != nil {
		return nil, err
	}
	out[h] = n
	return out, nil
}

func (s *Store) queued(h addr.Hash) ([]byte, bool) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	d, ok := s.pending[h]
	return d, ok
}

// Put stores the node locally and queues it for the next pack unless it is
// already remote.
func (s *Store) Put(ctx context.Context, h addr.Hash, data []byte, n *prolly.Node) error {
	if err := s.local.Put(ctx, h, data, n); err != nil {
		return err
	}
	s.Queue(h, data)
	return nil
}

// Queue queues a node the local store already holds for the next pack,
// unless it is already remote.
func (s *Store) Queue(h addr.Hash, data []byte) {
	s.mu.RLock()
	_, ok := s.index[h]
	s.mu.RUnlock()
	if ok {
		return
	}
	s.pmu.Lock()
	if _, ok := s.pending[h]; !ok {
		s.pending[h] = data
		s.pbytes += int64(len(data))
	}
	s.pmu.Unlock()
}

// Flush flushes the local store, then uploads the queued nodes as one pack.
func (s *Store) Flush(ctx context.Context) error {
	if err := s.local.Flush(ctx); err != nil {
		return err
	}
	_, err := s.FlushPack(ctx)
	return err
}

// FlushPack uploads the queued nodes as one pack and returns it (Nodes 0
// when nothing was queued). The pack is known to the store once uploaded;
// making it part of history is the manifest's job (Writer.Commit).
func (s *Store) FlushPack(ctx context.Context) (PackRef, error) {
	s.upload.Lock()
	defer s.upload.Unlock()
	s.pmu.Lock()
	nodes := s.pending
	s.pending = map[addr.Hash][]byte{}
	s.pbytes = 0
	s.pmu.Unlock()
	if len(nodes) == 0 {
		return PackRef{}, nil
	}
	data, ents := encodePack(nodes)
	ref := PackRef{Name: "packs/" + addr.Of(data).String() + ".pack", Nodes: len(ents), Bytes: int64(len(data))}
	if _, err := s.c.Put(ctx, ref.Name, data, Cond{}); err != nil {
		// Requeue: the nodes go into the next attempt.
		s.pmu.Lock()
		for h, d := range nodes {
			if _, ok := s.pending[h]; !ok {
				s.pending[h] = d
				s.pbytes += int64(len(d))
			}
		}
		s.pmu.Unlock()
		return PackRef{}, fmt.Errorf("upload pack of %d nodes: %w", len(ents), err)
	}
	s.mu.Lock()
	if _, ok := s.known[ref.id()]; !ok {
		s.addLocked(ref, ents)
	}
	s.mu.Unlock()
	return ref, nil
}

// StoreStats are cumulative counters of a Store.
type StoreStats struct {
	Packs         int
	IndexedNodes  int
	QueuedNodes   int
	QueuedBytes   int64
	FetchedNodes  int64 // nodes fetched remotely
	FetchRequests int64 // ranged GETs of node bodies
	Corrupt       int64
}

// Stats returns the store's counters.
func (s *Store) Stats() StoreStats {
	s.mu.RLock()
	st := StoreStats{Packs: len(s.packs), IndexedNodes: len(s.index)}
	s.mu.RUnlock()
	s.pmu.Lock()
	st.QueuedNodes, st.QueuedBytes = len(s.pending), s.pbytes
	s.pmu.Unlock()
	st.FetchedNodes, st.FetchRequests, st.Corrupt = s.fetchedNodes.Load(), s.fetchRequests.Load(), s.corrupt.Load()
	return st
}

// ReadPack fetches a whole pack by one GET and calls fn with every node,
// checked against its address, in address order (restore).
func (s *Store) ReadPack(ctx context.Context, r PackRef, fn func(h addr.Hash, data []byte) error) error {
	buf, _, err := s.c.get(ctx, r.Key(s.c.loc), -1, 0)
	if err != nil {
		return fmt.Errorf("read pack: %w", err)
	}
	off, n, crc, err := parseFooter(buf, int64(len(buf)))
	if err != nil {
		return fmt.Errorf("pack %s: %w", r.Name, err)
	}
	ents, err := parseIndex(buf[off:off+int64(n)], crc, off)
	if err != nil {
		return fmt.Errorf("pack %s: %w", r.Name, err)
	}
	for _, e := range ents {
		data, err := decodeBody(e.h, buf[e.off:e.off+int64(e.n)])
		if err != nil {
			err.(*CorruptError).Pack = r.Name
			return err
		}
		if err := fn(e.h, data); err != nil {
			return err
		}
	}
	return nil
}
