package sqlfront

import (
	"errors"
	"fmt"

	"github.com/sidecar-dev/sidecar/membudget"
)

// Bounded prepared statements. A client may prepare statements without
// end (protocol Parse with new names, SQL PREPARE): each one keeps its
// text, parse tree and plan for the session's life. Measured on a BI
// table: 100,000 small named statements from one connection grew the
// daemon by 630 MB (≈ 6.3 KB each) — one client could take the memory
// replication and every other reader need. So every kept statement is
// charged to memory.query, the pool the running statements, cursors and
// suspended portals share, at an estimate of its size
// (preparedBytes); past it the Parse or PREPARE fails with 53200 and
// keeps nothing. The charge goes back when the statement is closed,
// replaced (the unnamed one, at every Parse), deallocated, discarded, or
// when the connection ends.

// preparedBaseBytes and preparedBytesPerChar estimate a kept statement:
// a fixed part (the prepared and plan structs, the parameter types, the
// plan's maps) and a part growing with its text (the parse tree and plan
// nodes hold about this many bytes per byte of SQL). Measured: 6.3 KB for
// a 50-byte statement.
const (
	preparedBaseBytes    = 4 << 10
	preparedBytesPerChar = 64
)

// preparedBytes is the charge of a statement of the given text.
func preparedBytes(query string) int64 {
	return preparedBaseBytes + preparedBytesPerChar*int64(len(query))
}

// keepPrepared stores ps under name, charging it to memory.query; a
// statement it replaces (the unnamed one) gives its charge back first.
// Past memory.query nothing is kept and the error is 53200.
func (s *session) keepPrepared(name string, ps *prepared) error {
	s.dropPrepared(name)
	if s.prepMem == nil {
		s.prepMem = membudget.NewAccount(s.srv.opts.QueryMemory)
	}
	n := preparedBytes(ps.query)
	if err := s.prepMem.Grow(n); err != nil {
		return preparedMemError(err, len(s.prepared))
	}
	ps.charged = n
	s.prepared[name] = ps
	return nil
}

// dropPrepared forgets the statement of that name, if any, and gives its
// charge back.
func (s *session) dropPrepared(name string) {
	if ps, ok := s.prepared[name]; ok {
		s.prepMem.Shrink(ps.charged)
		delete(s.prepared, name)
	}
}

// closePrepared forgets every statement and gives the charge back (the
// connection's end).
func (s *session) closePrepared() {
	clear(s.prepared)
	s.prepMem.Close()
}

// preparedMemError is the 53200 refusal of a statement that would pass
// memory.query.
func preparedMemError(err error, held int) error {
	var me *membudget.ExceededError
	if !errors.As(err, &me) {
		return err
	}
	return &Error{Code: codeOutOfMemory, Msg: "out of memory", Pos: -1,
		Detail: fmt.Sprintf("this session keeps %d prepared statements, charged to memory.query at about %d bytes each plus %d a byte of their text: %s", held, preparedBaseBytes, preparedBytesPerChar, me.Error()),
		Hint:   "Prepared statements are bounded by memory.query (shared by the running statements, cursors and portals); deallocate the statements no longer used (DEALLOCATE, or the protocol's Close), or raise memory.query."}
}
