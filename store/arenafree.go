package store

import (
	"sync"
	"sync/atomic"
)

// arenaFree keeps the encoding arenas of NodeStore.write once Badger has
// copied a batch out of them (WriteBatch.Flush returned), so that the
// next batch writes into them instead of into fresh memory: a 10M-row
// copy's tree encoded 287 MB of arenas, each MiB first touched (a page
// fault per 4 KiB, ~15 µs of CPU each on this VM) while the in-memory
// HEAD grew beside it and the GC seldom ran. At most arenaKeep arenas
// of arenaBytes are kept: a batch's worth (Options.PendingBytes,
// compressed, fits in fewer).
type arenaFree struct {
	mu   sync.Mutex
	free [][]byte
	made atomic.Int64 // arenas allocated
}

// arenaKeep bounds the arenas kept: 16 MiB, DefaultPendingBytes'
// worth even uncompressed.
const arenaKeep = 16

// get returns an empty arena of at least need bytes: a kept one when
// need fits in arenaBytes and one is kept, else a new one.
func (f *arenaFree) get(need int) []byte {
	if need <= arenaBytes {
		f.mu.Lock()
		if n := len(f.free); n > 0 {
			a := f.free[n-1]
			f.free[n-1] = nil
			f.free = f.free[:n-1]
			f.mu.Unlock()
			return a
		}
		f.mu.Unlock()
	}
	f.made.Add(1)
	return make([]byte, 0, max(arenaBytes, need))
}

// put keeps a, no longer referenced, if it is arenaBytes long and fewer
// than arenaKeep are kept.
func (f *arenaFree) put(a []byte) {
	if cap(a) != arenaBytes {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.free) < arenaKeep {
		f.free = append(f.free, a[:0])
	}
}

// kept is how many arenas are kept.
func (f *arenaFree) kept() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.free)
}
