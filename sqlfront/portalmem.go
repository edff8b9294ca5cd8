package sqlfront

import (
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/membudget"
)

// Bounded portals. An extended-protocol Execute with a row limit
// (max_rows: pgjdbc's setFetchSize, pgx's and psql's FETCH_COUNT-style
// reads) sends that many rows and suspends; the statement has run to
// its end, so the rows not yet sent are held with the portal until the
// next Execute. Those rows are charged to memory.query (as a cursor's
// are): a portal whose held rows would pass it fails with 53200 and holds
// nothing, instead of growing the process by a result of any size. The
// charge is given back as rows are sent and when the portal is closed
// (Close, the Sync that ends its implicit transaction, a Bind that
// replaces it, the connection's end).

// holdRow charges one row the portal keeps for a later Execute.
func (pt *portal) holdRow(pool *membudget.Pool, row []Value) error {
	if pt.mem == nil {
		pt.mem = membudget.NewAccount(pool)
	}
	if err := pt.mem.Grow(cursorRowBytes(row)); err != nil {
		return portalMemError(err)
	}
	return nil
}

// sentRows gives back the memory of the first n held rows and drops them.
func (pt *portal) sentRows(n int) {
	pt.rows = releaseHeld(pt.rows, n, pt.mem.Shrink) // cursor.go
}

// drop closes the portal: its held rows' memory goes back to the pool.
func (pt *portal) drop() {
	if pt == nil {
		return
	}
	pt.rows = nil
	pt.mem.Close()
}

// dropPortal closes the named portal, if any.
func (s *session) dropPortal(name string) {
	if pt := s.portals[name]; pt != nil {
		s.prepBytes -= pt.charged // portalbound.go
	}
	s.portals[name].drop()
	delete(s.portals, name)
}

// closePortals closes every portal of the session.
func (s *session) closePortals() {
	for name := range s.portals {
		s.dropPortal(name)
	}
}

// portalMemError is the 53200 refusal of a portal whose held rows would
// pass memory.query.
func portalMemError(err error) error {
	var me *membudget.ExceededError
	if !errors.As(err, &me) {
		return err
	}
	return &Error{Code: codeOutOfMemory, Msg: "out of memory", Pos: -1,
		Detail: fmt.Sprintf("a portal executed with a row limit holds the rows not yet sent in memory until the next Execute: %s", me.Error()),
		Hint:   "A suspended portal's rows are bounded by memory.query (shared by the running statements, cursors and portals); raise it, fetch in larger batches, or narrow the query."}
}
