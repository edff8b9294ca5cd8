package radixindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Mapping an image (issue 24: lazy index pages at restart). ReadImage
// copies every page of an image into memory, so a restart's time and its
// resident memory grow with the index (at 100M keys, 777 MiB read and
// copied before the first query). MapImage instead takes an image that is
// already in memory as a read-only file mapping (version 3, whose pages are
// aligned) and makes each page's slab chunk a view of its bytes: nothing
// is read or checked, a page is faulted in by the kernel the first time a
// lookup touches it, and a clean mapped page is the kernel's to evict
// under memory pressure at no cost (it is read back from the file).
//
// A mapped chunk is never written: its owner epoch is mappedEpoch, which
// no freeze or unshare gives back, so the writer copies it into memory of
// its own before its first change (slab.mut), exactly as it copies a chunk
// shared with a frozen view. The bytes must stay mapped, unchanged, for
// as long as the tree (or any frozen view of it, or any slice a reader
// took from it) may be used: the caller keeps the mapping for the process's
// life (a mapping of a file unlinked since stays valid on Linux).
//
// The pages' checksums are not checked here (that would read them all):
// VerifyImage checks them, reading the file, not the mapping, so the
// check does not make the pages resident in the process.

// MapImage returns an index over image b (version 3, WriteImage) whose
// node chunks are views of b, reading keys through keyOf, with the LSN the
// image reflects. It checks the header and the free lists (their
// checksums) and the sizes, not the pages. b must be 8-byte aligned and
// must never change or be unmapped while the index lives.
func MapImage(b []byte, keyOf KeyFunc) (*Index, error) {
	t, lsn, err := mapImage(b, keyOf)
	if err != nil {
		return nil, err
	}
	return &Index{t: t, lsn: lsn, scanChunk: defaultScanChunk}, nil
}

func mapImage(b []byte, keyOf KeyFunc) (*Tree, uint64, error) {
	if len(b) > 0 && uintptr(unsafe.Pointer(&b[0]))&7 != 0 {
		return nil, 0, fmt.Errorf("radixindex: map image: bytes not 8-byte aligned")
	}
	r := bytes.NewReader(b)
	h, slots, err := readImageHeader(r)
	if err != nil {
		return nil, 0, err
	}
	if v := binary.LittleEndian.Uint16(h[6:]); v != imageVersion {
		return nil, 0, fmt.Errorf("%w: image version %d cannot be mapped (its pages are not aligned)", ErrCorrupt, v)
	}
	free, err := readFreeLists(r, slots, true)
	if err != nil {
		return nil, 0, err
	}
	t := New(keyOf)
	t.n = int(binary.LittleEndian.Uint64(h[16:]))
	t.root = ref(binary.LittleEndian.Uint64(h[24:]))
	off := len(b) - r.Len()
	if off, err = mapSlab(b, off, &t.n4, slots[0], free[0]); err != nil {
		return nil, 0, fmt.Errorf("node4 %w", err)
	}
	if off, err = mapSlab(b, off, &t.n16, slots[1], free[1]); err != nil {
		return nil, 0, fmt.Errorf("node16 %w", err)
	}
	if off, err = mapSlab(b, off, &t.n48, slots[2], free[2]); err != nil {
		return nil, 0, fmt.Errorf("node48 %w", err)
	}
	if off, err = mapSlab(b, off, &t.n256, slots[3], free[3]); err != nil {
		return nil, 0, fmt.Errorf("node256 %w", err)
	}
	if off != len(b) {
		return nil, 0, fmt.Errorf("%w: %d bytes past the image's pages", ErrCorrupt, len(b)-off)
	}
	if err := t.checkRoot(); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return t, binary.LittleEndian.Uint64(h[8:]), nil
}

// mapSlab makes the chunks covering n slots of s views of b from off, each
// page followed by its (unchecked) checksum, and returns the offset past
// them.
func mapSlab[T any](b []byte, off int, s *slab[T], n uint32, free []uint32) (int, error) {
	s.n, s.free = n, free
	if n == 0 {
		return off, nil
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	last, _ := s.locate(n - 1)
	for c := 0; c <= last; c++ {
		nodes := 1 << min(c, int(s.maxBits))
		end := off + nodes*size
		if end+8 > len(b) || end < off {
			return off, fmt.Errorf("page %d: %w: image truncated", c, ErrCorrupt)
		}
		chunk := unsafe.Slice((*T)(unsafe.Pointer(&b[off])), nodes)
		s.chunks = append(s.chunks, chunk[:nodes:nodes])
		s.own = append(s.own, mappedEpoch)
		off = end + 8
	}
	return off, nil
}

// readImageHeader reads and checks an image's header (magic, version 2
// or 3, checksum, node layout, key count) and returns it with the slots
// handed out per kind.
func readImageHeader(r io.Reader) ([imageHeaderSize]byte, [4]uint32, error) {
	var h [imageHeaderSize]byte
	var slots [4]uint32
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return h, slots, fmt.Errorf("%w: truncated image: %v", ErrCorrupt, err)
	}
	if string(h[:6]) != checkpointMagic {
		return h, slots, fmt.Errorf("%w: not an index checkpoint (magic %q)", ErrCorrupt, h[:6])
	}
	if v := binary.LittleEndian.Uint16(h[6:]); v != imageVersion && v != imageUnpadded {
		return h, slots, fmt.Errorf("%w: image version %d, this reader reads %d and %d", ErrCorrupt, v, imageUnpadded, imageVersion)
	}
	if got, want := xxh3.Hash(h[:56]), binary.LittleEndian.Uint64(h[56:]); got != want {
		return h, slots, fmt.Errorf("%w: image header checksum %016x, stored %016x", ErrCorrupt, got, want)
	}
	for i, s := range nodeSizes {
		if w := int(binary.LittleEndian.Uint16(h[32+2*i:])); w != s {
			return h, slots, fmt.Errorf("%w: image of nodes of %d bytes (kind %d), this build's are %d", ErrCorrupt, w, i+kind4, s)
		}
	}
	if keys := binary.LittleEndian.Uint64(h[16:]); keys > math.MaxInt {
		return h, slots, fmt.Errorf("%w: %d keys", ErrCorrupt, keys)
	}
	for i := range slots {
		slots[i] = binary.LittleEndian.Uint32(h[40+4*i:])
	}
	return h, slots, nil
}

// VerifyImage reads an image (WriteImage) from r and checks every page
// against its checksum, keeping nothing but one page at a time: what
// MapImage leaves unchecked. It reads exactly the image's bytes.
func VerifyImage(r io.Reader) error {
	_, slots, err := readImageHeader(r)
	if err != nil {
		return err
	}
	if _, err := readFreeLists(r, slots, true); err != nil {
		return err
	}
	for k := range nodeSizes {
		if slots[k] == 0 {
			continue
		}
		s := slab[struct{}]{maxBits: chunkBitsOf[k]}
		last, _ := s.locate(slots[k] - 1)
		if err := VerifyImagePages(r, k, 0, last+1); err != nil {
			return err
		}
	}
	return nil
}

// MappedBytes is the part of MemoryBytes that is views of a mapped image
// not yet copied by a change (MapImage): file-backed, clean, evictable.
func (t *Tree) MappedBytes() int {
	return t.n4.mappedBytes(size4) + t.n16.mappedBytes(size16) + t.n48.mappedBytes(size48) + t.n256.mappedBytes(size256)
}
