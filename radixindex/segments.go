package radixindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Image parts (issue 24, session 20: checkpoints that write only what
// changed). An image (WriteImage) is its head — the header and the free
// lists, which change with every write — followed by each kind's pages,
// one slab chunk each, at offsets fixed by the chunk's kind and number
// (a slab's chunks are only ever appended, and chunk c of a kind always
// holds the same number of nodes). A caller can therefore store an image
// as its head plus runs of pages, write again only the runs whose pages
// changed since it last wrote them, and map them back (MapImageParts),
// each run from wherever it is kept. The bytes of every part are exactly
// the image's: a page followed by its xxh3-64.

// ImageKinds is the number of node kinds, each with its own pages.
const ImageKinds = 4

// WriteImageHead writes the frozen tree's image up to its first page
// (the header and the free lists; WriteImage writes the same bytes first)
// and returns the bytes written.
func (f *Frozen) WriteImageHead(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	writeImageHead(bw, f.t, f.lsn)
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("radixindex: write image head: %w", err)
	}
	return cw.n, nil
}

// ImagePages is the number of pages (slab chunks) of kind k (0 … 3: node4
// … node256) of the frozen tree's image.
func (f *Frozen) ImagePages(k int) int {
	switch k {
	case 0:
		return len(f.t.n4.chunks)
	case 1:
		return len(f.t.n16.chunks)
	case 2:
		return len(f.t.n48.chunks)
	default:
		return len(f.t.n256.chunks)
	}
}

// ImagePage returns page c of kind k of the frozen tree's image, without
// its checksum, and whether it is a view of the mapped image the index was
// restored from (MapImageParts, MapImage) that no change has touched since:
// such a page is known to equal that image's page c without reading it.
// The bytes are the frozen view's: valid until Release.
func (f *Frozen) ImagePage(k, c int) (b []byte, mapped bool) {
	switch k {
	case 0:
		return slabPage(&f.t.n4, c)
	case 1:
		return slabPage(&f.t.n16, c)
	case 2:
		return slabPage(&f.t.n48, c)
	default:
		return slabPage(&f.t.n256, c)
	}
}

func slabPage[T any](s *slab[T], c int) ([]byte, bool) {
	return slabBytes(s.chunks[c]), c < len(s.own) && s.own[c] == mappedEpoch
}

// ImagePageSize is the bytes of page c of kind k (without its checksum).
func ImagePageSize(k, c int) int {
	return (1 << min(c, int(chunkBitsOf[k]))) * nodeSizes[k]
}

var chunkBitsOf = [ImageKinds]uint8{chunkBits4, chunkBits16, chunkBits48, chunkBits256}

// AppendImagePage appends page b (ImagePage's bytes) as an image holds it:
// the bytes, then their xxh3-64.
func AppendImagePage(dst, b []byte) []byte {
	dst = append(dst, b...)
	return binary.LittleEndian.AppendUint64(dst, xxh3.Hash(b))
}

// ImageHeadPages checks head (an image's head: WriteImageHead) and returns
// the number of pages of each kind the image has.
func ImageHeadPages(head []byte) ([ImageKinds]int, error) {
	var pages [ImageKinds]int
	h, slots, err := readImageHeader(bytes.NewReader(head))
	if err != nil {
		return pages, err
	}
	if v := binary.LittleEndian.Uint16(h[6:]); v != imageVersion {
		return pages, fmt.Errorf("%w: image version %d cannot be mapped (its pages are not aligned)", ErrCorrupt, v)
	}
	for k := range pages {
		if slots[k] > 0 {
			s := slab[struct{}]{maxBits: chunkBitsOf[k]}
			last, _ := s.locate(slots[k] - 1)
			pages[k] = last + 1
		}
	}
	return pages, nil
}

// MapImageParts returns an index over an image stored in parts: head (its
// header and free lists, WriteImageHead, checked here) and page(k, c),
// which returns page c of kind k (ImagePageSize bytes, 8-byte aligned,
// without the checksum) as a view of a read-only mapping that must stay
// mapped and unchanged while any page of it is the index's (MapImage's
// terms). Pages are not checked (VerifyImagePages reads them).
func MapImageParts(head []byte, page func(k, c int) ([]byte, error), keyOf KeyFunc) (*Index, error) {
	r := bytes.NewReader(head)
	h, slots, err := readImageHeader(r)
	if err != nil {
		return nil, err
	}
	if v := binary.LittleEndian.Uint16(h[6:]); v != imageVersion {
		return nil, fmt.Errorf("%w: image version %d cannot be mapped (its pages are not aligned)", ErrCorrupt, v)
	}
	free, err := readFreeLists(r, slots, true)
	if err != nil {
		return nil, err
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%w: %d bytes past the image's head", ErrCorrupt, r.Len())
	}
	t := New(keyOf)
	t.n = int(binary.LittleEndian.Uint64(h[16:]))
	t.root = ref(binary.LittleEndian.Uint64(h[24:]))
	if err := mapSlabParts(&t.n4, 0, slots[0], free[0], page); err != nil {
		return nil, fmt.Errorf("node4 %w", err)
	}
	if err := mapSlabParts(&t.n16, 1, slots[1], free[1], page); err != nil {
		return nil, fmt.Errorf("node16 %w", err)
	}
	if err := mapSlabParts(&t.n48, 2, slots[2], free[2], page); err != nil {
		return nil, fmt.Errorf("node48 %w", err)
	}
	if err := mapSlabParts(&t.n256, 3, slots[3], free[3], page); err != nil {
		return nil, fmt.Errorf("node256 %w", err)
	}
	if err := t.checkRoot(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return &Index{t: t, lsn: binary.LittleEndian.Uint64(h[8:]), scanChunk: defaultScanChunk}, nil
}

func mapSlabParts[T any](s *slab[T], k int, n uint32, free []uint32, page func(k, c int) ([]byte, error)) error {
	s.n, s.free = n, free
	if n == 0 {
		return nil
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	last, _ := s.locate(n - 1)
	for c := 0; c <= last; c++ {
		nodes := 1 << min(c, int(s.maxBits))
		b, err := page(k, c)
		if err != nil {
			return fmt.Errorf("page %d: %w", c, err)
		}
		if len(b) != nodes*size {
			return fmt.Errorf("page %d: %w: %d bytes, want %d", c, ErrCorrupt, len(b), nodes*size)
		}
		if uintptr(unsafe.Pointer(&b[0]))&7 != 0 {
			return fmt.Errorf("page %d: not 8-byte aligned", c)
		}
		chunk := unsafe.Slice((*T)(unsafe.Pointer(&b[0])), nodes)
		s.chunks = append(s.chunks, chunk[:nodes:nodes])
		s.own = append(s.own, mappedEpoch)
	}
	return nil
}

// VerifyImagePages reads pages [from, to) of kind k, each followed by its
// checksum (AppendImagePage), from r and checks them, one page at a time.
func VerifyImagePages(r io.Reader, k, from, to int) error {
	var buf []byte
	for c := from; c < to; c++ {
		n := ImagePageSize(k, c) + 8
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		b := buf[:n]
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("%w: kind %d page %d: %v", ErrCorrupt, k+kind4, c, err)
		}
		if got, want := xxh3.Hash(b[:n-8]), binary.LittleEndian.Uint64(b[n-8:]); got != want {
			return fmt.Errorf("%w: kind %d page %d: checksum %016x, stored %016x", ErrCorrupt, k+kind4, c, got, want)
		}
	}
	return nil
}

// Exclusive runs fn with exclusive access to the tree without changing
// it or the LSN: no reader is inside the tree meanwhile, and a reader
// after it does not resume from pointers it took before (an Index.Scan in
// progress re-seeks). fn must not change the tree or call back into the
// Index. For head's release of image mappings nothing reads any more.
func (ix *Index) Exclusive(fn func(t *Tree)) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.gen++
	fn(ix.t)
}

// MappedPages calls fn(k, c) for every page (slab chunk) of kind k that is
// still a view of the mapped image the tree was restored from: no change
// has copied it. The caller holds the index's lock.
func (t *Tree) MappedPages(fn func(k, c int)) {
	for k, own := range [ImageKinds][]uint64{t.n4.own, t.n16.own, t.n48.own, t.n256.own} {
		for c, e := range own {
			if e == mappedEpoch {
				fn(k, c)
			}
		}
	}
}
