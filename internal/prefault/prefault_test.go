//go:build linux

package prefault

import (
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// resident counts the resident pages of the page-aligned b (mincore).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+pageSize-1)/pageSize)
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestWriteMakesPagesResident: fresh anonymous memory has no page
// resident; after Write every page is, its bytes unchanged; an unaligned
// slice gets its whole inner pages; a small one is left alone.
func TestWriteMakesPagesResident(t *testing.T) {
	const pages = 64
	m, err := unix.Mmap(-1, 0, pages*pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if got := resident(t, m); got != 0 {
		t.Fatalf("%d pages resident before any write", got)
	}
	// An unaligned slice from the middle of page 1 to the middle of page
	// 9: pages 2..8 are whole inside it.
	part := m[pageSize+100 : 9*pageSize+100 : 9*pageSize+100]
	if !Write(part) {
		t.Skip("MADV_POPULATE_WRITE not supported by this kernel")
	}
	if got := resident(t, m[:pageSize*2]); got != 0 {
		t.Fatalf("%d of pages 0-1 resident: Write went outside the slice's whole pages", got)
	}
	if got := resident(t, m[2*pageSize:9*pageSize]); got != 7 {
		t.Fatalf("%d of pages 2-8 resident after Write, want 7", got)
	}
	if got := resident(t, m[9*pageSize:]); got != 0 {
		t.Fatalf("%d pages past the slice resident", got)
	}
	m[20*pageSize] = 7
	if !Write(m[16*pageSize:]) {
		t.Fatal("Write of the rest failed")
	}
	if got := resident(t, m); got != 7+pages-16 {
		t.Fatalf("%d pages resident, want pages 2-8 and 16-%d (%d)", got, pages-1, 7+pages-16)
	}
	if m[20*pageSize] != 7 {
		t.Fatal("Write changed a byte already written")
	}
	// Below MinBytes: nothing.
	small := m[10*pageSize : 11*pageSize : 11*pageSize]
	if Write(small) {
		t.Fatal("Write of one page did something: below MinBytes it must not")
	}
}
