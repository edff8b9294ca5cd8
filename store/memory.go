package store

import (
	"sync"
	"weak"
)

// MemoryStats is what the DB's node stores hold in memory: their
// decoded-node caches (bounded by Options.CacheBytes each) and the Put
// nodes buffered for the background writer (about 2×PendingBytes each,
// plus at most 16 MiB of encoding arenas kept between batches).
type MemoryStats struct {
	CacheBytes, CacheCapacity int64
	PendingBytes              int64
	NodeStores                int
}

// memSources tracks the node stores opened on a DB, weakly: a store that
// is dropped without Close stops counting once it is collected.
type memSources struct {
	mu      sync.Mutex
	next    int
	sources map[int]func() (Stats, bool)
}

// trackNodeStore registers s with db's memory accounting until Close.
func trackNodeStore[N any](db *DB, s *NodeStore[N]) {
	w := weak.Make(s)
	m := &db.mem
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sources == nil {
		m.sources = map[int]func() (Stats, bool){}
	}
	id := m.next
	m.next++
	m.sources[id] = func() (Stats, bool) {
		if s := w.Value(); s != nil {
			return s.Stats(), true
		}
		return Stats{}, false
	}
	s.untrack = func() {
		m.mu.Lock()
		delete(m.sources, id)
		m.mu.Unlock()
	}
}

// Memory sums the memory of the node stores open on db.
func (db *DB) Memory() MemoryStats {
	m := &db.mem
	m.mu.Lock()
	defer m.mu.Unlock()
	var out MemoryStats
	for id, f := range m.sources {
		st, ok := f()
		if !ok {
			delete(m.sources, id)
			continue
		}
		out.NodeStores++
		out.CacheBytes += st.CacheBytes
		out.CacheCapacity += st.CacheCapacity
		out.PendingBytes += st.PendingBytes + st.ArenaBytes
	}
	return out
}

// MemTableBytes is the most Badger's memtables hold: each memtable's arena
// (its size plus Badger's batch headroom, about 1.3×) times their number.
func (o Options) MemTableBytes() int64 {
	o = o.withDefaults()
	return int64(o.NumMemtables) * o.MemTableSize * 13 / 10
}
