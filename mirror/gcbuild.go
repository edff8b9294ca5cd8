package mirror

import (
	"errors"
	"sync"
)

// Copies building trees beside a GC. A copy's tree (TableCopied) is built
// and written node by node long before it is recorded; a GC that listed
// roots while it was building would sweep its nodes. The GC used to wait
// for every running build under a write lock (buildMu): at 100M rows the
// first automatic GC waited 28 min for the copy's build, holding the
// history's GC lock (tags and branches waited behind it) and, Go's
// RWMutex taking new readers behind a waiting writer, stopping any other
// table's copy from starting its build. Now builds register here and the
// GC never waits: a build registered after the GC's sweep began puts
// every node after it (the sweep keeps what is Put since BeginSweep), and
// one registered before defers the collection (ErrCopyBuilding; AutoGC
// tries again at its next check).

// ErrCopyBuilding is returned by RootWatch.Roots when a copy that began
// building its tree before the watch is still building: its nodes may
// predate the sweep and be named by no root yet.
var ErrCopyBuilding = errors.New("a table copy is building its tree; the collection is deferred")

// builds registers the copies building their trees.
type builds struct {
	mu      sync.Mutex
	seq     uint64              // the last build's number
	running map[uint64]struct{} // numbers of the builds running
}

// begin registers a build; the returned func ends it (once the tree is
// recorded or the build failed).
func (b *builds) begin() func() {
	b.mu.Lock()
	b.seq++
	id := b.seq
	if b.running == nil {
		b.running = map[uint64]struct{}{}
	}
	b.running[id] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.running, id)
			b.mu.Unlock()
		})
	}
}

// mark is the last build number so far: builds numbered above it began
// after the call.
func (b *builds) mark() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

// olderRunning reports whether a build numbered at or below mark is still
// running. The caller holds b.mu.
func (b *builds) olderRunningLocked(mark uint64) bool {
	for id := range b.running {
		if id <= mark {
			return true
		}
	}
	return false
}
