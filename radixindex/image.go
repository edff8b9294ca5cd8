package radixindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Image format, version 3 (version 2: the same without the free lists'
// padding, still read): the node slabs as they are in memory, so that a
// restore copies them back (ReadImage) or maps them (MapImage) instead of
// decoding a record per node (version 1, WriteCheckpoint: at 30M keys the restart spent
// seconds decoding it, issue 24 item 2). All integers little-endian.
//
//	header   64 bytes
//	  magic      "sradix"     6
//	  version    uint16       2
//	  lsn        uint64
//	  keys       uint64       Len
//	  root       uint64       the root's ref, as in memory
//	  layout     4 × uint16   the node sizes of the writer (node4 … node256)
//	  slots      4 × uint32   per kind, slots handed out (the slab's high-water mark)
//	  sum        uint64       xxh3-64 of the 56 bytes before it
//	free     uint64 length; per kind: uvarint count, count × uvarint slot,
//	         zeros to a multiple of 8 bytes (version 3); then xxh3-64 of
//	         that section
//	pages    per kind, per chunk covering its slots: the chunk's nodes as in
//	         memory, then xxh3-64 of those bytes
//
// A page is one slab chunk (≈ 16 KiB, see chunkBits4…): each is checked by
// its own checksum as it is read, and copied straight into the chunk that
// holds it, so a restore reads every byte once and allocates one chunk a
// page. The node layout is the machine's (the layout field refuses a
// checkpoint written by a build whose node sizes differ, and the magic's
// version byte order a big-endian writer); a checkpoint is read back by the
// process that owns the data directory, and a refused one is rebuilt.
// Nodes are not walked: the checksums stand for the structure the writer
// had (Index.Freeze verifies it in invariants builds; Verify checks a
// restored tree through the keys).
const (
	imageVersion    = 3
	imageHeaderSize = 64
	// imageUnpadded is version 2: the free lists' section not padded, so
	// that pages may sit at any offset (read, never mapped).
	imageUnpadded = 2
)

var nodeSizes = [4]int{size4, size16, size48, size256}

// slabBytes views a chunk of nodes as its bytes.
func slabBytes[T any](c []T) []byte {
	if len(c) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), len(c)*int(unsafe.Sizeof(zero)))
}

// WriteImage writes the tree, stamped with lsn, in the image format
// (version 2) to w and returns the bytes written. The tree must not
// change while it runs (a frozen view, or the index's read lock).
func (t *Tree) WriteImage(w io.Writer, lsn uint64) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	writeImageHead(bw, t, lsn)
	writeSlabImage(bw, &t.n4)
	writeSlabImage(bw, &t.n16)
	writeSlabImage(bw, &t.n48)
	writeSlabImage(bw, &t.n256)
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("radixindex: write image: %w", err)
	}
	return cw.n, nil
}

// writeImageHead writes the image's header and free lists (errors
// surface at the caller's Flush).
func writeImageHead(bw *bufio.Writer, t *Tree, lsn uint64) {
	var h [imageHeaderSize]byte
	copy(h[:], checkpointMagic)
	binary.LittleEndian.PutUint16(h[6:], imageVersion)
	binary.LittleEndian.PutUint64(h[8:], lsn)
	binary.LittleEndian.PutUint64(h[16:], uint64(t.n))
	binary.LittleEndian.PutUint64(h[24:], uint64(t.root))
	for i, s := range nodeSizes {
		binary.LittleEndian.PutUint16(h[32+2*i:], uint16(s))
	}
	for i, n := range [4]uint32{t.n4.n, t.n16.n, t.n48.n, t.n256.n} {
		binary.LittleEndian.PutUint32(h[40+4*i:], n)
	}
	binary.LittleEndian.PutUint64(h[56:], xxh3.Hash(h[:56]))
	bw.Write(h[:])
	var free []byte
	for _, f := range [4][]uint32{t.n4.free, t.n16.free, t.n48.free, t.n256.free} {
		free = binary.AppendUvarint(free, uint64(len(f)))
		for _, s := range f {
			free = binary.AppendUvarint(free, uint64(s))
		}
	}
	// Version 3: the section is padded to a multiple of 8 bytes (covered
	// by its checksum), so that every page of an image starting at an
	// aligned address is aligned for its nodes (MapImage).
	free = append(free, make([]byte, -len(free)&7)...)
	var fl [8]byte
	binary.LittleEndian.PutUint64(fl[:], uint64(len(free)))
	bw.Write(fl[:])
	free = binary.LittleEndian.AppendUint64(free, xxh3.Hash(free))
	bw.Write(free)
}

// writeSlabImage writes every chunk of s, each followed by its checksum
// (errors surface at the caller's Flush).
func writeSlabImage[T any](bw *bufio.Writer, s *slab[T]) {
	var sum [8]byte
	for _, c := range s.chunks {
		b := slabBytes(c)
		bw.Write(b)
		binary.LittleEndian.PutUint64(sum[:], xxh3.Hash(b))
		bw.Write(sum[:])
	}
}

// WriteImage writes the frozen tree in the image format (Tree.WriteImage)
// as it was at the freeze, with its LSN. Safe for one caller at a time;
// the index may change meanwhile.
func (f *Frozen) WriteImage(w io.Writer) (int64, error) {
	return f.t.WriteImage(w, f.lsn)
}

// ReadImage reads an image (WriteImage) from r into a tree that reads
// keys through keyOf and returns it with the LSN it reflects. Each page is
// checked against its checksum as it is read; an error about the bytes
// wraps ErrCorrupt. It reads exactly the image's bytes from r.
func ReadImage(r io.Reader, keyOf KeyFunc) (*Tree, uint64, error) {
	t, lsn, err := readImage(r, keyOf)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: truncated image: %v", ErrCorrupt, err)
		}
		return nil, 0, err
	}
	return t, lsn, nil
}

func readImage(r io.Reader, keyOf KeyFunc) (*Tree, uint64, error) {
	var h [imageHeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, 0, err
	}
	if string(h[:6]) != checkpointMagic {
		return nil, 0, fmt.Errorf("%w: not an index checkpoint (magic %q)", ErrCorrupt, h[:6])
	}
	v := binary.LittleEndian.Uint16(h[6:])
	if v != imageVersion && v != imageUnpadded {
		return nil, 0, fmt.Errorf("%w: image version %d, this reader reads %d and %d", ErrCorrupt, v, imageUnpadded, imageVersion)
	}
	if got, want := xxh3.Hash(h[:56]), binary.LittleEndian.Uint64(h[56:]); got != want {
		return nil, 0, fmt.Errorf("%w: image header checksum %016x, stored %016x", ErrCorrupt, got, want)
	}
	for i, s := range nodeSizes {
		if w := int(binary.LittleEndian.Uint16(h[32+2*i:])); w != s {
			return nil, 0, fmt.Errorf("%w: image of nodes of %d bytes (kind %d), this build's are %d", ErrCorrupt, w, i+kind4, s)
		}
	}
	lsn := binary.LittleEndian.Uint64(h[8:])
	keys := binary.LittleEndian.Uint64(h[16:])
	if keys > math.MaxInt {
		return nil, 0, fmt.Errorf("%w: %d keys", ErrCorrupt, keys)
	}
	t := New(keyOf)
	t.n = int(keys)
	t.root = ref(binary.LittleEndian.Uint64(h[24:]))
	var slots [4]uint32
	for i := range slots {
		slots[i] = binary.LittleEndian.Uint32(h[40+4*i:])
	}
	free, err := readFreeLists(r, slots, v == imageVersion)
	if err != nil {
		return nil, 0, err
	}
	if err := readSlabImage(r, &t.n4, slots[0], free[0]); err != nil {
		return nil, 0, fmt.Errorf("node4 %w", err)
	}
	if err := readSlabImage(r, &t.n16, slots[1], free[1]); err != nil {
		return nil, 0, fmt.Errorf("node16 %w", err)
	}
	if err := readSlabImage(r, &t.n48, slots[2], free[2]); err != nil {
		return nil, 0, fmt.Errorf("node48 %w", err)
	}
	if err := readSlabImage(r, &t.n256, slots[3], free[3]); err != nil {
		return nil, 0, fmt.Errorf("node256 %w", err)
	}
	if err := t.checkRoot(); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return t, lsn, nil
}

// checkRoot checks what the header says of the root against the slabs
// (the nodes below it are the checksummed pages).
func (t *Tree) checkRoot() error {
	r := t.root
	switch {
	case r == 0:
		if t.n != 0 {
			return fmt.Errorf("empty root with %d keys", t.n)
		}
	case r.isLeaf():
		if t.n != 1 {
			return fmt.Errorf("leaf root with %d keys", t.n)
		}
	case r.kind() >= kind4 && r.kind() <= kind256:
		if r.index() >= [4]uint32{t.n4.n, t.n16.n, t.n48.n, t.n256.n}[r.kind()-kind4] {
			return fmt.Errorf("root node %d of kind %d past the slab", r.index(), r.kind())
		}
		if h := t.hdr(r); uint32(r.plen()) != h.prefixLen || h.entries() < 2 {
			return fmt.Errorf("root node of %d entries, path %d (ref says %d)", h.entries(), h.prefixLen, r.plen())
		}
	default:
		return fmt.Errorf("root ref kind %d", r.kind())
	}
	return nil
}

// readSlabImage reads the chunks covering n slots into s, each straight
// into its own memory, and checks each against its checksum.
func readSlabImage[T any](r io.Reader, s *slab[T], n uint32, free []uint32) error {
	s.n, s.free = n, free
	if n == 0 {
		return nil
	}
	last, _ := s.locate(n - 1)
	var sb [8]byte
	for c := 0; c <= last; c++ {
		chunk := make([]T, 1<<min(c, int(s.maxBits)))
		b := slabBytes(chunk)
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("page %d: %w", c, err)
		}
		if _, err := io.ReadFull(r, sb[:]); err != nil {
			return fmt.Errorf("page %d: %w", c, err)
		}
		if got, want := xxh3.Hash(b), binary.LittleEndian.Uint64(sb[:]); got != want {
			return fmt.Errorf("page %d: %w: checksum %016x, stored %016x", c, ErrCorrupt, got, want)
		}
		s.chunks = append(s.chunks, chunk)
		s.own = append(s.own, s.epoch)
	}
	return nil
}

// readFreeLists reads the free lists' section: its length, the lists
// (per kind uvarint count and slots) and their checksum.
func readFreeLists(r io.Reader, slots [4]uint32, padded bool) ([4][]uint32, error) {
	var free [4][]uint32
	var lb [8]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return free, err
	}
	n := binary.LittleEndian.Uint64(lb[:])
	if max := 4 * binary.MaxVarintLen32 * (1 + uint64(slots[0]) + uint64(slots[1]) + uint64(slots[2]) + uint64(slots[3])); n > max {
		return free, fmt.Errorf("%w: free lists of %d bytes", ErrCorrupt, n)
	}
	b := make([]byte, n+8)
	if _, err := io.ReadFull(r, b); err != nil {
		return free, err
	}
	if got, want := xxh3.Hash(b[:n]), binary.LittleEndian.Uint64(b[n:]); got != want {
		return free, fmt.Errorf("%w: image free lists checksum %016x, stored %016x", ErrCorrupt, got, want)
	}
	return parseFreeLists(b[:n], slots, padded)
}

// parseFreeLists parses the free lists' section b (its checksum checked),
// padded to a multiple of 8 bytes with zeros when padded.
func parseFreeLists(b []byte, slots [4]uint32, padded bool) ([4][]uint32, error) {
	var free [4][]uint32
	next := func() (uint64, bool) {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return v, true
	}
	for k := range free {
		c, ok := next()
		if !ok || c > uint64(slots[k]) {
			return free, fmt.Errorf("%w: free list of kind %d: bad count", ErrCorrupt, k+kind4)
		}
		free[k] = make([]uint32, c)
		for i := range free[k] {
			s, ok := next()
			if !ok || s >= uint64(slots[k]) {
				return free, fmt.Errorf("%w: free list of kind %d: bad slot", ErrCorrupt, k+kind4)
			}
			free[k][i] = uint32(s)
		}
	}
	if padded && len(b) < 8 && string(b) == string(make([]byte, len(b))) {
		b = nil
	}
	if len(b) != 0 {
		return free, fmt.Errorf("%w: %d bytes past the free lists", ErrCorrupt, len(b))
	}
	return free, nil
}

// RestoreImageIndex reads an image (ReadImage) into an index at the
// image's LSN.
func RestoreImageIndex(r io.Reader, keyOf KeyFunc) (*Index, error) {
	t, lsn, err := ReadImage(r, keyOf)
	if err != nil {
		return nil, err
	}
	return &Index{t: t, lsn: lsn, scanChunk: defaultScanChunk}, nil
}
