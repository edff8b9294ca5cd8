// The consumers' builds fed by the copy's intake (issue 24 item 5: build
// HEAD as the ranges arrive, not after the COPY): a consumer whose builds
// take rows in any order (CopyIntakeBuilder: the in-memory HEAD, whose
// heap gives row ids in arrival order and whose radix index takes keys
// in any order) gets each range's rows when the range cuts a run, while
// the other ranges go on receiving theirs, instead of from the merge
// after the last range. The tree, which needs the rows in global key
// order, is still built by the merge at TableCopied.

package mirror

import (
	"sync"

	"github.com/sidecar-dev/sidecar/wal"
)

// CopyIntakeBuilder is a CopyBuilder whose builds accept the copy's rows
// in any order. Their Add is then called with every row of the table
// once, as the copy's ranges deliver them: from the ranges' goroutines,
// one call at a time (serialized by the copy), rows of different ranges
// interleaved. A key delivered twice (a copy with duplicate keys, which
// fails at its merge) is the build's to detect: it must then decline at
// its reset. A consumer that returns false from BuildsInAnyOrder (or
// does not implement it) gets the rows in key order from the merge.
type CopyIntakeBuilder interface {
	CopyBuilder
	BuildsInAnyOrder() bool
}

// copyFeed hands the rows of one table's copy to the intake builds as
// the ranges cut their runs. A range that aborts after its rows were fed
// makes the feed fail: its builds are discarded (the rows cannot be
// taken back), and TableCopied starts builds from the merge instead.
type copyFeed struct {
	name string
	rel  *wal.Relation
	m    *Mirror

	mu      sync.Mutex
	started bool
	failed  bool // a fed range aborted, or the copy was discarded
	taken   bool // TableCopied took the builds
	bs      copyBuilds
	fed     int64 // rows fed (Add called on every build)
}

// newCopyFeed returns the intake feed of a table's copy, or nil for a
// REPLICA IDENTITY FULL table (its rows' keys are occurrence numbers
// given by the merge).
func (m *Mirror) newCopyFeed(name string, rel *wal.Relation, full bool) *copyFeed {
	if full {
		return nil
	}
	return &copyFeed{name: name, rel: rel, m: m}
}

// add passes rows to the intake builds (starting them at the first
// rows), under the feed's lock. It reports whether any build took them
// (the range must then fail the feed if it aborts).
func (f *copyFeed) add(rows []bufRow) bool {
	if f == nil || len(rows) == 0 {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed || f.taken {
		return false
	}
	if !f.started {
		f.started = true
		f.bs = f.m.startCopyBuilds(f.name, f.rel, true, nil)
	}
	if len(f.bs) == 0 {
		return false
	}
	for _, b := range f.bs {
		for _, r := range rows {
			b.Add(r.key(false), r.val())
		}
	}
	f.fed += int64(len(rows))
	return true
}

// fail discards the intake builds: rows of an aborted range (or of a
// discarded copy) are in them.
func (f *copyFeed) fail() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken {
		return
	}
	f.failed = true
	f.bs.discard()
}

// take hands the intake builds over to TableCopied (every range is
// closed): nil when the feed failed or no consumer builds at intake.
func (f *copyFeed) take() copyBuilds {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.taken = true
	if f.failed {
		return nil
	}
	return f.bs
}

// rows is how many rows the intake builds took (0 without a feed).
func (f *copyFeed) rows() int64 {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fed
}
