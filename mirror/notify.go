package mirror

import (
	"sync"

	"github.com/sidecar-dev/sidecar/wal"
)

// notifier is a level-triggered signal: signal never blocks, and a
// receiver that was not waiting still sees one pending signal.
type notifier struct {
	once sync.Once
	ch   chan struct{}
}

func (n *notifier) c() chan struct{} {
	n.once.Do(func() { n.ch = make(chan struct{}, 1) })
	return n.ch
}

func (n *notifier) signal() {
	select {
	case n.c() <- struct{}{}:
	default:
	}
}

// ResyncNeeded receives a value after a table was put in state
// resync_needed (a schema change, a row the mirror lacks, MarkResync):
// the follower then copies NeedsResync() again. One value stands for any
// number of tables marked since the last receive; read NeedsResync until
// it is empty.
func (m *Mirror) ResyncNeeded() <-chan struct{} { return m.resyncNote.c() }

// CopyStates returns, for every table with a record, the LSN its copy was
// taken at (CopiedAt), and the names of those that are not ready (sorted)
// and have no copy waiting to land (held until the stream reaches it,
// even across a restart: heldcopy.go): what a follower needs to resume
// without importing the mirror's types.
func (m *Mirror) CopyStates() (copiedAt map[string]wal.LSN, notReady []string) {
	copiedAt = map[string]wal.LSN{}
	for _, t := range m.Tables() {
		copiedAt[t.Name] = t.CopiedAt
		if t.State != StateReady && t.HeldUntil == 0 {
			notReady = append(notReady, t.Name)
		}
	}
	return copiedAt, notReady
}
