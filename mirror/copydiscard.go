// The copy's discard (replication.CopyDiscarder): a copy that will not
// report a table copied forgets the ranges it closed.

package mirror

import (
	"os"

	"github.com/sidecar-dev/sidecar/wal"
)

// DiscardCopy implements replication.CopyDiscarder: the ranges of rel
// closed so far are forgotten (their runs and run files), so that the
// next copy of the table (under a fresh snapshot, after a table changed
// during the copy or a failed resync) starts empty instead of adding its
// rows to rows read under another snapshot. The copy calls it once every
// range of its own has ended.
func (m *Mirror) DiscardCopy(rel *wal.Relation) {
	name := rel.QualifiedName()
	m.copyMu.Lock()
	tc := m.copies[name]
	delete(m.copies, name)
	m.copyMu.Unlock()
	if tc != nil {
		tc.feed.fail()
		m.releaseRuns(tc)
		m.copyPool.Release(tc.spare.drain())
	}
	if tc != nil && tc.dir != "" {
		if err := os.RemoveAll(tc.dir); err != nil {
			m.log.Warn("could not remove a discarded copy's run files", "table", name, "dir", tc.dir, "err", err)
		}
	}
}
