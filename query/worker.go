package query

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/sidecar-dev/sidecar/heap"
)

// scanWorker runs one scan worker's fn on its own goroutine's behalf and
// turns a panic there into something the waiting goroutine can handle: a
// heap page that cannot be read back (Source.Page panics with its
// *heap.PageError: a damaged page file record, an I/O error) becomes the
// worker's error, so the statement fails with it (SQLSTATE XX001 on the
// SQL port) and the process lives; any other panic, a bug, is returned in
// *bug with the worker's stack, for the caller to raise again on its own
// goroutine (where the session's recover ends that one connection). A
// panic left on a worker goroutine would end the whole process.
func scanWorker(err *error, bug *any, fn func() error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if e, ok := r.(error); ok {
			var pe *heap.PageError
			if errors.As(e, &pe) {
				*err = fmt.Errorf("query: scan: %w", e)
				return
			}
		}
		*bug = fmt.Sprintf("scan worker: %v\n%s", r, debug.Stack())
	}()
	*err = fn()
}

// raiseWorkerBug panics on the caller's goroutine with the first bug a
// scan worker recovered (scanWorker), if any.
func raiseWorkerBug(bugs []any) {
	for _, b := range bugs {
		if b != nil {
			panic(b)
		}
	}
}
