package heap

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/xxh3"

	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// Page images: what a checkpoint writes per page, and what cold pages are
// kept as (see Config.Memory).
//
//	"HPG1" id:u32 n:u32 ncols:u16
//	live, dead: words(n) × u64
//	per column: kind:u8 flags:u8 (1 = exceptions)
//	  nulls: words(n) × u64
//	  ints: n × i64 | floats: n × u64 bits | numeric: n × i64, n × u8 scale
//	  exceptions (flag 1): words(n) × u64
//	  text or flag 1: n × u32 length, then the bytes of those slots in slot order
//	xxh3-64 of all the above
//
// All integers little-endian. Only live slots carry values: every other
// slot is written as zeros, so an image is canonical (decode then encode
// gives the same bytes) and garbage is dropped on the way. Summaries are
// not stored: decoding recomputes them from the values.

const pageMagic = "HPG1"

// ErrCorruptPage is wrapped by every error about page image bytes.
var ErrCorruptPage = corrupt.New("corrupt heap page image")

// encodePage appends p's image to dst.
func encodePage(dst []byte, p *page, s *Schema) []byte {
	start := len(dst)
	n := p.n
	nw := words(n)
	dst = append(dst, pageMagic...)
	dst = binary.LittleEndian.AppendUint32(dst, p.id)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(s.Columns)))
	for w := range nw {
		dst = binary.LittleEndian.AppendUint64(dst, p.live[w]&tailMask(n, w))
	}
	for w := range nw {
		dst = binary.LittleEndian.AppendUint64(dst, p.dead[w]&tailMask(n, w))
	}
	for c, col := range s.Columns {
		g := &p.cols[c]
		hasExc := g.exc != nil && g.nexc > 0 && anyAnd(g.exc, p.live, nw)
		flags := byte(0)
		if hasExc {
			flags = 1
		}
		dst = append(dst, byte(col.Kind), flags)
		for w := range nw {
			dst = binary.LittleEndian.AppendUint64(dst, g.nulls[w]&p.live[w]&tailMask(n, w))
		}
		liveVal := func(slot int) bool { return bit(p.live, slot) && !bit(g.nulls, slot) }
		switch {
		case col.Kind == KindText:
		case col.Kind.IsFloat():
			for slot := range n {
				v := uint64(0)
				if liveVal(slot) {
					v = math.Float64bits(g.flts[slot])
				}
				dst = binary.LittleEndian.AppendUint64(dst, v)
			}
		default:
			for slot := range n {
				v := int64(0)
				if liveVal(slot) {
					v = g.ints[slot]
				}
				dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
			}
			if g.scale != nil {
				for slot := range n {
					v := uint8(0)
					if liveVal(slot) {
						v = g.scale[slot]
					}
					dst = append(dst, v)
				}
			}
		}
		if hasExc {
			for w := range nw {
				dst = binary.LittleEndian.AppendUint64(dst, g.exc[w]&p.live[w]&^g.nulls[w]&tailMask(n, w))
			}
		}
		if col.Kind == KindText || hasExc {
			for slot := range n {
				dst = binary.LittleEndian.AppendUint32(dst, uint32(p.varBytes(col.Kind, c, slot)*b2i(bit(p.live, slot))))
			}
			for slot := range n {
				if bit(p.live, slot) && p.varBytes(col.Kind, c, slot) > 0 {
					dst = append(dst, g.text(slot)...)
				}
			}
		}
	}
	return binary.LittleEndian.AppendUint64(dst, xxh3.Hash(dst[start:]))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tailMask keeps the bits of word w that are slots below n.
func tailMask(n, w int) uint64 {
	if rem := n - w*64; rem < 64 {
		return 1<<uint(rem) - 1
	}
	return ^uint64(0)
}

func anyAnd(a, b []uint64, nw int) bool {
	for w := range nw {
		if a[w]&b[w] != 0 {
			return true
		}
	}
	return false
}

// reader reads a page image, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = fmt.Errorf("%w: truncated", ErrCorruptPage)
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u64() uint64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (r *reader) u32() uint32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *reader) bitmap(dst []uint64, n int) {
	for w := range words(n) {
		dst[w] = r.u64()
		if dst[w]&^tailMask(n, w) != 0 && r.err == nil {
			r.err = fmt.Errorf("%w: bits set past slot %d", ErrCorruptPage, n)
		}
	}
}

// decodePage decodes an image into a page owned by epoch, with summaries
// recomputed. It checks everything it reads: a corrupt image is an error,
// never a panic or a page that breaks the heap's invariants.
func decodePage(img []byte, s *Schema, capSlots int, epoch uint64) (*page, error) {
	return decodePageStats(img, s, capSlots, epoch, nil)
}

// decodePageStats is decodePage with the page's summaries given (stats,
// when not nil, is shared, not copied) instead of recomputed from its
// values: a cold page keeps its summaries decoded, and recomputing them
// was most of the cost of reading one back.
func decodePageStats(img []byte, s *Schema, capSlots int, epoch uint64, stats []ColStats) (*page, error) {
	return decodePageCols(img, s, capSlots, epoch, stats, nil)
}

// decodePageCols is decodePageStats decoding only the columns want marks
// (nil: every column); the others' segments are left empty (a reader of
// those columns only: ColReader). The checksum still covers the whole
// image.
func decodePageCols(img []byte, s *Schema, capSlots int, epoch uint64, stats []ColStats, want []bool) (*page, error) {
	if len(img) < len(pageMagic)+14+8 {
		return nil, fmt.Errorf("%w: %d bytes", ErrCorruptPage, len(img))
	}
	body, sum := img[:len(img)-8], binary.LittleEndian.Uint64(img[len(img)-8:])
	if xxh3.Hash(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorruptPage)
	}
	p, err := decodeBodyCols(body, s, capSlots, epoch, want)
	if err != nil {
		return nil, err
	}
	if stats != nil {
		p.stats = stats
	} else {
		p.recomputeStats(s)
	}
	return p, nil
}

// decodeBody decodes a page image without its checksum.
func decodeBody(body []byte, s *Schema, capSlots int, epoch uint64) (*page, error) {
	p, err := decodeBodyRaw(body, s, capSlots, epoch)
	if err != nil {
		return nil, err
	}
	p.recomputeStats(s)
	return p, nil
}

// decodeBodyRaw is decodeBody without the page's summaries (left as
// newPage made them).
func decodeBodyRaw(body []byte, s *Schema, capSlots int, epoch uint64) (*page, error) {
	return decodeBodyCols(body, s, capSlots, epoch, nil)
}

// decodeBodyCols is decodeBodyRaw decoding only the columns want marks
// (nil: every column): the others are stepped over (their value bytes are
// neither copied nor checked) and their segments left empty.
func decodeBodyCols(body []byte, s *Schema, capSlots int, epoch uint64, want []bool) (*page, error) {
	return decodeBodyColsAbsent(body, s, capSlots, epoch, want, false)
}

// decodeBodyAbsent is decodeBodyCols of a body whose columns want does
// not mark are their kind and flags bytes alone (decompressColsPart).
func decodeBodyAbsent(body []byte, s *Schema, capSlots int, epoch uint64, want []bool) (*page, error) {
	return decodeBodyColsAbsent(body, s, capSlots, epoch, want, true)
}

func decodeBodyColsAbsent(body []byte, s *Schema, capSlots int, epoch uint64, want []bool, absent bool) (*page, error) {
	r := &reader{b: body}
	if string(r.take(4)) != pageMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorruptPage)
	}
	id := r.u32()
	n := int(r.u32())
	nc := r.take(2)
	if r.err != nil {
		return nil, r.err
	}
	if n > capSlots {
		return nil, fmt.Errorf("%w: %d slots, pages hold %d", ErrCorruptPage, n, capSlots)
	}
	if int(binary.LittleEndian.Uint16(nc)) != len(s.Columns) {
		return nil, fmt.Errorf("%w: %d columns, schema has %d", ErrCorruptPage, binary.LittleEndian.Uint16(nc), len(s.Columns))
	}
	p := newPageCols(id, s, capSlots, epoch, want)
	p.n = n
	r.bitmap(p.live, n)
	r.bitmap(p.dead, n)
	for w := range words(n) {
		if p.live[w]&p.dead[w] != 0 && r.err == nil {
			r.err = fmt.Errorf("%w: slot both live and dead", ErrCorruptPage)
		}
		p.nlive += popcount(p.live[w])
		p.ndead += popcount(p.dead[w])
	}
	for c, col := range s.Columns {
		kf := r.take(2)
		if r.err != nil {
			return nil, r.err
		}
		if Kind(kf[0]) != col.Kind || kf[1] > 1 {
			return nil, fmt.Errorf("%w: column %d is %v/%d, schema says %v", ErrCorruptPage, c, Kind(kf[0]), kf[1], col.Kind)
		}
		hasExc := kf[1] == 1
		if hasExc && col.Kind == KindText {
			return nil, fmt.Errorf("%w: text column %d with exceptions", ErrCorruptPage, c)
		}
		if want != nil && !want[c] {
			if absent {
				continue
			}
			skipColumn(r, col.Kind, hasExc, n)
			if r.err != nil {
				return nil, r.err
			}
			continue
		}
		g := &p.cols[c]
		r.bitmap(g.nulls, n)
		switch {
		case col.Kind == KindText:
		case col.Kind.IsFloat():
			for slot := range n {
				g.flts[slot] = math.Float64frombits(r.u64())
			}
		default:
			for slot := range n {
				g.ints[slot] = int64(r.u64())
			}
			if g.scale != nil {
				copy(g.scale, r.take(n))
			}
		}
		if hasExc {
			g.exc = make([]uint64, words(capSlots))
			r.bitmap(g.exc, n)
			for w := range words(n) {
				g.nexc += popcount(g.exc[w])
			}
		}
		if col.Kind == KindText || hasExc {
			g.off = make([]uint32, capSlots)
			g.ln = make([]uint32, capSlots)
			total := 0
			for slot := range n {
				l := int(r.u32())
				g.ln[slot] = uint32(l)
				g.off[slot] = uint32(total)
				total += l
				if r.err == nil && l > 0 && !(bit(p.live, slot) && !bit(g.nulls, slot) && (col.Kind == KindText || bit(g.exc, slot))) {
					r.err = fmt.Errorf("%w: column %d slot %d has bytes it cannot hold", ErrCorruptPage, c, slot)
				}
				if total > len(r.b) && r.err == nil {
					r.err = fmt.Errorf("%w: truncated varlen", ErrCorruptPage)
				}
			}
			g.data = append([]byte(nil), r.take(total)...)
			p.varUsed += total
		}
		if r.err != nil {
			return nil, r.err
		}
		if col.Kind.IsInt() || col.Kind.IsFloat() {
			if err := checkTyped(p, col.Kind, c); err != nil {
				return nil, err
			}
		}
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorruptPage, len(r.b))
	}
	return p, nil
}

// checkTyped rejects typed values no parse could have produced (a bool of
// 7, a date out of range), so a decoded page prints only valid text.
func checkTyped(p *page, k Kind, c int) error {
	g := &p.cols[c]
	for slot := range p.n {
		if !bit(p.live, slot) || bit(g.nulls, slot) {
			continue
		}
		exc := g.exc != nil && bit(g.exc, slot)
		if exc && k != KindNumeric {
			// The kept text must be a text of the stored value.
			v, err := parseTyped(k, g.text(slot))
			if err != nil || (k.IsFloat() && math.Float64bits(v.f) != math.Float64bits(g.flts[slot])) || (!k.IsFloat() && v.i != g.ints[slot]) {
				return fmt.Errorf("%w: column %d slot %d: exception text %q is not the stored value", ErrCorruptPage, c, slot, clip(g.text(slot)))
			}
		}
		if k == KindNumeric {
			if !exc && g.ints[slot] == math.MinInt64 {
				return fmt.Errorf("%w: column %d slot %d: numeric out of range", ErrCorruptPage, c, slot)
			}
			if exc {
				if _, ok := parseNumeric(g.text(slot)); !ok {
					return fmt.Errorf("%w: column %d slot %d: numeric text %q", ErrCorruptPage, c, slot, clip(g.text(slot)))
				}
			}
			continue
		}
		if k.IsFloat() {
			continue
		}
		v := g.ints[slot]
		ok := true
		switch k {
		case KindInt2:
			ok = v >= math.MinInt16 && v <= math.MaxInt16
		case KindInt4:
			ok = v >= math.MinInt32 && v <= math.MaxInt32
		case KindBool:
			ok = v == 0 || v == 1
		case KindDate:
			ok = v == dateNegInf || v == datePosInf || (v+postgresEpochJDate >= minJulian && v+postgresEpochJDate <= maxJulian)
		case KindTimestamp, KindTimestampTZ:
			days := v / usecsPerDay
			ok = v == tsNegInf || v == tsPosInf || (days+postgresEpochJDate >= minJulian && days+postgresEpochJDate <= maxJulian)
		}
		if !ok {
			return fmt.Errorf("%w: column %d slot %d: %v value %d out of range", ErrCorruptPage, c, slot, k, v)
		}
	}
	return nil
}

// Codec compresses page images at rest.
type Codec uint8

const (
	// CodecS2 (the default): klauspost/compress s2, measured fastest to
	// decode on real pages (bench/results/heap-2026-12-01.md).
	CodecS2 Codec = iota + 1
	// CodecZstd: zstd, smaller and slower to decode.
	CodecZstd
	// CodecNone stores images as they are.
	CodecNone
)

func (c Codec) String() string {
	switch c {
	case CodecS2:
		return "s2"
	case CodecZstd:
		return "zstd"
	case CodecNone:
		return "none"
	}
	return fmt.Sprintf("Codec(%d)", uint8(c))
}

// compressor owns the zstd coders, made on first use (their
// EncodeAll/DecodeAll are safe for concurrent use).
type compressor struct {
	mu   sync.Mutex
	zenc *zstd.Encoder
	zdec *zstd.Decoder
}

func newCompressor() *compressor { return &compressor{} }

func (z *compressor) coders() (*zstd.Encoder, *zstd.Decoder) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.zenc == nil {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // only on invalid options
		}
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			panic(err)
		}
		z.zenc, z.zdec = enc, dec
	}
	return z.zenc, z.zdec
}

// compress returns codec byte + compressed img.
func (z *compressor) compress(dst, img []byte, c Codec) []byte {
	dst = append(dst, byte(c))
	switch c {
	case CodecS2:
		// Encoded in place past dst's tag byte (s2.Encode uses dst's
		// capacity when it is at least MaxEncodedLen).
		n := len(dst)
		if m := s2.MaxEncodedLen(len(img)); m > 0 {
			dst = slices.Grow(dst, m)
		}
		enc := s2.Encode(dst[n:cap(dst)], img)
		return append(dst[:n], enc...) // a no-op copy when encoded in place
	case CodecZstd:
		enc, _ := z.coders()
		return enc.EncodeAll(img, dst)
	}
	return append(dst, img...)
}

// decompress reverses compress.
func (z *compressor) decompress(dst, blob []byte) ([]byte, error) {
	if len(blob) == 0 {
		return nil, fmt.Errorf("%w: empty blob", ErrCorruptPage)
	}
	switch Codec(blob[0]) {
	case CodecS2:
		n, err := s2.DecodedLen(blob[1:])
		if err != nil || n > 1<<31 {
			return nil, fmt.Errorf("%w: s2: %v", ErrCorruptPage, err)
		}
		if cap(dst) < n {
			dst = make([]byte, n)
		}
		out, err := s2.Decode(dst[:n], blob[1:])
		if err != nil {
			return nil, fmt.Errorf("%w: s2: %v", ErrCorruptPage, err)
		}
		return out, nil
	case CodecZstd:
		_, dec := z.coders()
		out, err := dec.DecodeAll(blob[1:], dst[:0])
		if err != nil {
			return nil, fmt.Errorf("%w: zstd: %v", ErrCorruptPage, err)
		}
		return out, nil
	case CodecNone:
		return append(dst[:0], blob[1:]...), nil
	case codecS2Cols:
		return decompressCols(dst, blob) // colblob.go
	}
	return nil, fmt.Errorf("%w: unknown codec %d", ErrCorruptPage, blob[0])
}

func (z *compressor) close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.zenc != nil {
		z.zenc.Close()
		z.zdec.Close()
		z.zenc, z.zdec = nil, nil
	}
}
