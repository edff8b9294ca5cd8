// Package prefault makes fresh memory resident before it is written, in
// one system call instead of one page fault per page.
//
// Why: a 10M-row initial copy builds about 2 GB of new memory (the
// HEAD's heap pages, the copy's arena chunks, the radix index), and on
// this VM each first touch of a 4 KiB page costs ~10–15 µs of system CPU
// (sidecar-bench copy at 10M: 622k minor faults, 9.0 s of the copy's
// 29.5 s CPU in the kernel). madvise(MADV_POPULATE_WRITE) (Linux 5.14)
// maps a whole range in one call: 512 MiB took 0.22 s of system CPU
// instead of 1.0 s touched page by page (copy-2026-12-08-s27.md). It only
// maps pages: their contents are unchanged, so it is safe on memory
// already written, and it does nothing where unsupported.
package prefault

import "unsafe"

// MinBytes is the smallest capacity worth a call: below two pages a
// fault is as cheap as the system call.
const MinBytes = 2 * pageSize

const pageSize = 4096

// Slice is Write for any slice: the whole pages inside its capacity's
// bytes.
func Slice[T any](s []T) bool {
	if cap(s) == 0 {
		return false
	}
	var zero T
	full := s[:cap(s)]
	return Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(full))), uintptr(cap(s))*unsafe.Sizeof(zero)))
}
