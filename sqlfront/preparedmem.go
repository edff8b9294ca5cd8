package sqlfront

import "fmt"

// Bounded prepared statements. A client may prepare statements without
// end (protocol Parse with new names, SQL PREPARE): each one keeps its
// text, parse tree and plan for the session's life. Measured on a BI
// table: 100,000 small named statements from one connection grew the
// daemon by 630 MB (≈ 6.3 KB each) — one client could take the memory
// replication and every other reader need. So a session's named
// statements are bounded by its share of memory.query: memory.query over
// sql.max_connections (1.5 GiB / 100 ≈ 16 MB by default, ≈ 2,000 small
// statements; pgx caches 512 and pgjdbc 256 a connection), at an
// estimate of each statement's size (preparedBytes). Past it the Parse or
// PREPARE fails with 53200 and keeps nothing; Close, DEALLOCATE and
// DISCARD ALL free their share. The statements are not reserved from
// memory.query itself: a client's statement cache lives as long as its
// connection, and charging it there would starve the running statements
// of the pool they share (the worst case is memory.query again, across
// every session). The unnamed statement is not counted: there is one per
// connection, bounded by sql.max_message_size, replaced at every Parse.

// preparedBaseBytes and preparedBytesPerChar estimate a kept statement:
// a fixed part (the prepared and plan structs, the parameter types, the
// plan's maps) and a part growing with its text (the parse tree and plan
// nodes hold about this many bytes per byte of SQL). Measured: 6.3 KB for
// a 50-byte statement.
const (
	preparedBaseBytes    = 4 << 10
	preparedBytesPerChar = 64
)

// preparedBytes is the estimated size of a statement of the given text.
func preparedBytes(query string) int64 {
	return preparedBaseBytes + preparedBytesPerChar*int64(len(query))
}

// preparedShare is the bytes of named statements one session may keep
// (0: unbounded, when memory.query is).
func (s *session) preparedShare() int64 {
	lim := s.srv.opts.QueryMemory.Limit()
	if lim <= 0 {
		return 0
	}
	return lim / int64(max(s.srv.opts.MaxConnections, 1))
}

// keepPrepared stores ps under name; a named statement counts against
// the session's share (past it nothing is kept and the error is 53200).
func (s *session) keepPrepared(name string, ps *prepared) error {
	s.dropPrepared(name)
	if name != "" {
		n := preparedBytes(ps.query)
		if share := s.preparedShare(); share > 0 && s.prepBytes+n > share {
			return &Error{Code: codeOutOfMemory, Msg: "out of memory", Pos: -1,
				Detail: fmt.Sprintf("this session keeps %d prepared statements of about %d bytes; one more of about %d bytes would pass its share of memory.query (%d bytes: memory.query over sql.max_connections)", len(s.prepared), s.prepBytes, n, share),
				Hint:   "Deallocate the statements no longer used (DEALLOCATE, or the protocol's Close), or raise memory.query."}
		}
		ps.charged = n
		s.prepBytes += n
	}
	s.prepared[name] = ps
	return nil
}

// dropPrepared forgets the statement of that name, if any, and frees its
// share.
func (s *session) dropPrepared(name string) {
	if ps, ok := s.prepared[name]; ok {
		s.prepBytes -= ps.charged
		delete(s.prepared, name)
	}
}
