//go:build linux

package prefault

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// unsupported is set once the kernel refused MADV_POPULATE_WRITE
// (EINVAL before Linux 5.14): a fact about the kernel, the same for
// every caller, so later calls do not ask again.
var unsupported atomic.Bool

// Write makes the whole pages inside b's capacity resident and writable
// (MADV_POPULATE_WRITE) and reports whether it did. Their contents are
// unchanged. Capacities under MinBytes, and kernels without the advice,
// do nothing. b must be Go memory the caller keeps alive (or any mapped
// memory), never memory shared with a file it does not mean to extend.
func Write(b []byte) bool {
	c := cap(b)
	if c < MinBytes || unsupported.Load() {
		return false
	}
	full := b[:c]
	p := uintptr(unsafe.Pointer(unsafe.SliceData(full)))
	start := (p + pageSize - 1) &^ (pageSize - 1)
	end := (p + uintptr(c)) &^ (pageSize - 1)
	if end <= start {
		return false
	}
	off := int(start - p)
	err := unix.Madvise(full[off:off+int(end-start)], unix.MADV_POPULATE_WRITE)
	if err == unix.EINVAL {
		unsupported.Store(true)
	}
	return err == nil
}
