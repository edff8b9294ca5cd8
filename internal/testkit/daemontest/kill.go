package daemontest

import (
	"fmt"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// The moments a kill test waits for before it kills a child process.
// A kill timed from the process's start lands, on a loaded machine,
// before the process has done anything (no data directory yet, the
// initial copy not begun or never finished), so every kill in a row
// tests the same early moment and later phases are never reached. Each
// wait below is a condition on the child's own API, with its exit
// watched: a child that ends by itself fails the wait at once.

// AwaitAPI waits until p, serving its API at api, answers GET
// /api/status (its data directory is open and the run has begun). It
// returns an error when p exits first or within (Ceiling when 0) passes.
func (p *Process) AwaitAPI(api string, within time.Duration) error {
	return p.awaitStatus(api, within, "the API answering", func(Status) bool { return true })
}

// AwaitStreamingPast waits until p, serving its API at api, streams with
// its durable LSN past lsn: the initial copy is done and the stream has
// made something after lsn durable. An error when p exits first or within
// (Ceiling when 0) passes.
func (p *Process) AwaitStreamingPast(api string, lsn wal.LSN, within time.Duration) error {
	return p.awaitStatus(api, within, fmt.Sprintf("streaming with the durable LSN past %s", lsn), func(st Status) bool {
		return st.Phase == "streaming" && st.Durable() > lsn
	})
}

// AwaitProgress waits until p, serving its API at api, streams and has
// made durable something it applied itself: its durable LSN passes the
// one its API first answered with (where the run resumed). Unlike a
// marker committed now, this does not wait for a backlog left by earlier
// kills to drain (on a loaded machine that can take longer than any
// ceiling while a workload runs), only for the run to have streamed.
// An error when p exits first or within (Ceiling when 0) passes.
func (p *Process) AwaitProgress(api string, within time.Duration) error {
	var from *wal.LSN
	return p.awaitStatus(api, within, "durable progress while streaming", func(st Status) bool {
		if from == nil {
			d := st.Durable()
			from = &d
		}
		return st.Phase == "streaming" && st.Durable() > *from
	})
}

// AwaitMarker commits sql (a change of a followed table) on the database
// at pg and waits until p streams past it (AwaitStreamingPast from the
// WAL insert position before the commit): the run has copied, streams,
// and made a change committed during its own life durable.
func (p *Process) AwaitMarker(t testing.TB, api, pg, sql string, within time.Duration) error {
	t.Helper()
	before := InsertLSN(t, pg)
	if err := TryExec(pg, sql); err != nil {
		return fmt.Errorf("marker: %w", err)
	}
	return p.AwaitStreamingPast(api, before, within)
}

// awaitStatus polls GET /api/status until cond holds, p exits, or within
// passes.
func (p *Process) awaitStatus(api string, within time.Duration, what string, cond func(Status) bool) error {
	var exited error
	var last string
	err := Poll(within, func() bool {
		if err, ok := p.Exited(); ok {
			exited = fmt.Errorf("waiting for %s, the sidecar exited by itself (%v):\n%s", what, err, p.OutputTail())
			return true
		}
		var st Status
		if err := statusInto(api, "", &st); err != nil {
			last = err.Error()
			return false
		}
		last = fmt.Sprintf("%+v", st)
		return cond(st)
	})
	if exited != nil {
		return exited
	}
	if err != nil {
		return fmt.Errorf("%s: not within %s (last status: %s):\n%s", what, orCeiling(within), last, p.OutputTail())
	}
	return nil
}
