package sqlfront

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
)

// TestDamagedPageIsXX001 (issue 24 item 2): a heap page that cannot be
// read back, raised as a panic on the statement's goroutine
// (heap.Snapshot.Page) or returned by a parallel scan, fails the
// statement with XX001 (data_corrupted, as PostgreSQL answers for a page
// that fails its checks), not XX000 with the connection closed; any other
// panic still reaches the session's recover.
func TestDamagedPageIsXX001(t *testing.T) {
	pe := &heap.PageError{Page: 7, Off: 8192, Path: "pages", Err: fmt.Errorf("%w: checksum mismatch", heap.ErrCorruptPage)}
	run := func(fn func()) (err error) {
		defer catchPageError(&err)
		fn()
		return nil
	}
	err := run(func() { panic(pe) })
	var e *Error
	if !errors.As(err, &e) || e.Code != codeDataCorrupted {
		t.Fatalf("a damaged page raised in a statement: %v; want XX001", err)
	}
	if e := toError(fmt.Errorf("query: scan: %w", pe)); e.Code != codeDataCorrupted {
		t.Fatalf("a damaged page returned by a scan: %s %s; want XX001", e.Code, e.Msg)
	}
	if e := toError(errors.New("something else")); e.Code != codeInternal {
		t.Fatalf("an ordinary error: %s; want XX000", e.Code)
	}
	func() {
		defer func() {
			if r := recover(); r != "a bug" {
				t.Fatalf("another panic was turned into %v", r)
			}
		}()
		run(func() { panic("a bug") })
	}()
}
