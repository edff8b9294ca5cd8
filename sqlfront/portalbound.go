package sqlfront

import "fmt"

// Bounded named portals and cursors (issue 21, a hostile client). Every Bind to a new
// portal name keeps the portal — its parameters, up to
// sql.max_message_size each Bind — until Close, the Sync that ends its
// implicit transaction, or COMMIT/ROLLBACK; inside a transaction block,
// or with no Sync at all, a client can keep binding new names without
// end. So named portals are counted with the session's named prepared
// statements against its share of memory.query (preparedmem.go): a Bind
// past it fails with 53200 and keeps nothing. The unnamed portal is
// replaced at every Bind and not counted. A portal's held rows (a
// suspended Execute) are charged to memory.query itself (portalmem.go).
// Cursors likewise: a WITH HOLD cursor outlives its transaction, and
// 20,000 empty ones grew one session by 128 MB (≈ 6.4 KB each) before;
// each is counted at cursorBytes until it is closed (its rows are
// charged to memory.query, cursor.go).

// cursorBytes estimates a kept cursor apart from its rows (the cursor,
// its plan, its DECLARE's parse tree): 6.4 KB measured for a 2 KB
// statement.
const cursorBytes = 8 << 10

// portalBytes estimates a kept portal: a fixed part (the portal, its
// plan reference, formats) and its parameters' bytes, decoded.
func portalBytes(params [][]byte) int64 {
	n := int64(preparedBaseBytes)
	for _, p := range params {
		n += 2*int64(len(p)) + 32
	}
	return n
}

// chargeKept counts a new named portal or cursor (kind) of n bytes
// against the session's share, or refuses it with 53200.
func (s *session) chargeKept(kind, name string, n int64) error {
	if name == "" {
		return nil
	}
	if share := s.preparedShare(); share > 0 && s.prepBytes+n > share {
		return &Error{Code: codeOutOfMemory, Msg: "out of memory", Pos: -1,
			Detail: fmt.Sprintf("this session keeps %d portals, %d cursors and %d prepared statements of about %d bytes; %s \"%s\" of about %d bytes would pass its share of memory.query (%d bytes: memory.query over sql.max_connections)",
				len(s.portals), len(s.cursors), len(s.prepared), s.prepBytes, kind, name, n, share),
			Hint: "Close the portals and cursors no longer used (the protocol's Close, Sync outside a transaction block, CLOSE), or raise memory.query."}
	}
	s.prepBytes += n
	return nil
}

// uncharge gives back a cursor's count (drop).
func (c *cursor) uncharge() {
	if c.kept != nil {
		*c.kept -= c.charged
		c.kept, c.charged = nil, 0
	}
}

// closeNamedPortals closes the named portals at a transaction's end, as
// PostgreSQL drops a transaction's portals at COMMIT and ROLLBACK (a
// simple-query COMMIT included, where no Sync follows to close them):
// their share is free again. The unnamed one is left to the next Bind
// or Sync.
func (s *session) closeNamedPortals() {
	for name := range s.portals {
		if name != "" {
			s.dropPortal(name)
		}
	}
}
