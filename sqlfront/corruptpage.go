package sqlfront

import (
	"errors"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// codeDataCorrupted is PostgreSQL's data_corrupted: what it answers for a
// page that fails its checks ("invalid page in block").
const codeDataCorrupted = "XX001"

// corruptData reports whether err is about stored bytes that fail their
// own format (the one corruption marker, internal/corrupt) or a heap page
// of the in-memory HEAD that cannot be read back (*heap.PageError: its
// page file record is damaged or unreadable).
func corruptData(err error) bool {
	var pe *heap.PageError
	return errors.Is(err, corrupt.Err) || errors.As(err, &pe)
}

// catchPageError, deferred by a statement's run, turns a panic with a
// *heap.PageError (heap.Snapshot.Page raises it for a cold page that
// cannot be read back; scans on the statement's goroutine read pages
// through it) into the statement's error: the client gets XX001 and its
// connection goes on, as PostgreSQL's does. Any other panic goes on up to
// the session's recover (XX000, the connection closed, the stack logged).
func catchPageError(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if e, ok := r.(error); ok {
		var pe *heap.PageError
		if errors.As(e, &pe) {
			*err = toError(e)
			return
		}
	}
	panic(r)
}
