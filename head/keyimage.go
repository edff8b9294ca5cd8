package head

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/zeebo/xxh3"
)

// Key store image (checkpoint record version 4): the key store's pages as
// they are in memory, each under its own checksum, so that a restore
// copies each page's arena back in one piece instead of setting every key
// (version 3's stream, encodeKeyPages: ≈ 70 ms of CPU per 1M keys, the
// larger half of a 30M-row restart with the index's, issue 24 item 2).
// All integers little-endian.
//
//	header  "skeys" 1 (version), uint32 pages, xxh3-64 of those 9 bytes
//	page    uint32 body length, xxh3-64 of the body, body:
//	  0                                       no page
//	  1 width:u32 garbage:u32 words:u32 live:words×u64 buf     fixed layout
//	  2 slots:u32 garbage:u32 start:slots×u32 end:slots×u32 buf variable layout
//
// buf is the page's arena as it is (garbage included: a page's offsets
// name its bytes). A page read back owns its arena (its own allocation:
// the store appends to it later).
const (
	keyImageMagic   = "skeys"
	keyImageVersion = 1
)

// writeKeyImage writes pages in the image format to w, a page at a time
// through a buffer of about 64 KiB.
func writeKeyImage(w io.Writer, pages []*keyPage) error {
	head := append([]byte(keyImageMagic), keyImageVersion)
	head = binary.LittleEndian.AppendUint32(head, uint32(len(pages)))
	head = binary.LittleEndian.AppendUint64(head, xxh3.Hash(head))
	return writeKeyPages(w, head, pages, func(dst []byte, p *keyPage) []byte {
		at := len(dst)
		dst = appendKeyPageImage(append(dst, make([]byte, 12)...), p)
		body := dst[at+12:]
		binary.LittleEndian.PutUint32(dst[at:], uint32(len(body)))
		binary.LittleEndian.PutUint64(dst[at+4:], xxh3.Hash(body))
		return dst
	})
}

func appendKeyPageImage(dst []byte, p *keyPage) []byte {
	switch {
	case p == nil:
		return append(dst, 0)
	case p.width > 0:
		dst = append(dst, 1)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p.width))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p.garbage))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p.live)))
		for _, w := range p.live {
			dst = binary.LittleEndian.AppendUint64(dst, w)
		}
	default:
		dst = append(dst, 2)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(p.start)))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(p.garbage))
		for _, o := range p.start {
			dst = binary.LittleEndian.AppendUint32(dst, o)
		}
		for _, o := range p.end {
			dst = binary.LittleEndian.AppendUint32(dst, o)
		}
	}
	return append(dst, p.buf...)
}

// readKeyImage replaces s with the key store image read from r, checking
// every page against its checksum and its offsets against its arena. An
// error about the bytes wraps ErrCorruptCheckpoint.
func (s *keyStore) readKeyImage(r io.Reader) error {
	err := s.readImage(r)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("%w: key store image truncated: %v", ErrCorruptCheckpoint, err)
	}
	return err
}

func (s *keyStore) readImage(r io.Reader) error {
	var h [18]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return err
	}
	if string(h[:5]) != keyImageMagic || h[5] != keyImageVersion {
		return fmt.Errorf("%w: not a key store image (%q version %d)", ErrCorruptCheckpoint, h[:5], h[5])
	}
	if xxh3.Hash(h[:10]) != binary.LittleEndian.Uint64(h[10:]) {
		return fmt.Errorf("%w: key store image header checksum", ErrCorruptCheckpoint)
	}
	n := binary.LittleEndian.Uint32(h[6:])
	*s = keyStore{pages: make([]*keyPage, 0, min(n, 1<<20))}
	var body []byte
	for pi := range n {
		var ph [12]byte
		if _, err := io.ReadFull(r, ph[:]); err != nil {
			return err
		}
		size := binary.LittleEndian.Uint32(ph[:])
		if size > 1<<30 {
			return fmt.Errorf("%w: key store page %d of %d bytes", ErrCorruptCheckpoint, pi, size)
		}
		if cap(body) < int(size) {
			body = make([]byte, size)
		}
		body = body[:size]
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		if xxh3.Hash(body) != binary.LittleEndian.Uint64(ph[4:]) {
			return fmt.Errorf("%w: key store page %d: checksum mismatch", ErrCorruptCheckpoint, pi)
		}
		p, err := keyPageFromImage(body)
		if err != nil {
			return fmt.Errorf("%w: key store page %d: %v", ErrCorruptCheckpoint, pi, err)
		}
		if p != nil {
			s.bytes += len(p.buf)
		}
		s.pages = append(s.pages, p)
	}
	return nil
}

// keyPageFromImage builds a page from its image body; its slices are its
// own (body is reused).
func keyPageFromImage(b []byte) (*keyPage, error) {
	if len(b) == 0 {
		return nil, errors.New("empty page record")
	}
	kind, b := b[0], b[1:]
	u32 := func() (int, bool) {
		if len(b) < 4 {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(b)
		b = b[4:]
		return int(v), true
	}
	switch kind {
	case 0:
		if len(b) != 0 {
			return nil, errors.New("bytes in an absent page")
		}
		return nil, nil
	case 1:
		width, ok1 := u32()
		garbage, ok2 := u32()
		words, ok3 := u32()
		if !ok1 || !ok2 || !ok3 || width == 0 || words > len(b)/8 {
			return nil, errors.New("bad fixed page header")
		}
		p := &keyPage{width: width, garbage: garbage, live: make([]uint64, words)}
		for i := range p.live {
			p.live[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		b = b[8*words:]
		if len(b)%width != 0 || garbage > len(b) {
			return nil, fmt.Errorf("arena of %d bytes for keys of %d", len(b), width)
		}
		// No live bit past the arena's slots (key would slice past it).
		slots := len(b) / width
		for i, w := range p.live {
			if hi := (i + 1) * 64; hi > slots && w>>(max(slots-i*64, 0)) != 0 {
				return nil, errors.New("live slot past the arena")
			}
		}
		p.buf = append(make([]byte, 0, len(b)), b...)
		return p, nil
	case 2:
		slots, ok1 := u32()
		garbage, ok2 := u32()
		if !ok1 || !ok2 || slots > len(b)/8 {
			return nil, errors.New("bad variable page header")
		}
		p := &keyPage{garbage: garbage, start: make([]uint32, slots), end: make([]uint32, slots)}
		for i := range slots {
			p.start[i] = binary.LittleEndian.Uint32(b[4*i:])
			p.end[i] = binary.LittleEndian.Uint32(b[4*(slots+i):])
		}
		b = b[8*slots:]
		for i := range slots {
			if p.start[i] > p.end[i] || int(p.end[i]) > len(b) {
				return nil, fmt.Errorf("slot %d: key [%d, %d) of an arena of %d", i, p.start[i], p.end[i], len(b))
			}
		}
		if garbage > len(b) {
			return nil, fmt.Errorf("garbage %d of an arena of %d", garbage, len(b))
		}
		p.buf = append(make([]byte, 0, len(b)), b...)
		return p, nil
	}
	return nil, fmt.Errorf("page kind %d", kind)
}
