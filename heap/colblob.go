package heap

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/s2"
	"github.com/zeebo/xxh3"
)

// Column-blocked cold images. A cold page kept with CodecS2 is its image
// (encodePage) cut into sections — the header with the live and dead
// bitmaps, then one section per column (its kind and flags bytes and
// everything after them), then the checksum — each compressed with s2
// on its own:
//
//	tag 4, nsec:u16,
//	per section: raw:u32 enc:u32 xxh3-64 of the raw bytes:u64, the raw bytes' first two (or fewer),
//	then the sections' s2 blocks in order
//
// Decompressed whole (decompress) the sections give the image's bytes
// back, checked by the image's own checksum as before. A reader of a few
// columns (ColReader: a scan reading 4 of lineitem's 16) decompresses the
// header and those columns' sections only, each checked by its own
// checksum, and steps over the others without touching their bytes: the
// whole-image decompression was 25–35 % of the CPU of TPC-H's scans of
// cold lineitem pages (bench/results/tpch-2026-12-06-s17-sf0.2-coldcols.md).
// Checkpoints store a cold page's image as it is, so they hold this form
// too; restore decompresses it whole.

// codecS2Cols tags a column-blocked image (not a Config.Codec: the form
// CodecS2 keeps cold pages in).
const codecS2Cols Codec = 4

// colBlobEntry is the size of a section's entry in the table.
const colBlobEntry = 4 + 4 + 8 + 2

// imageSections appends to bounds the end offsets of img's sections (see
// above); ok=false when img does not parse as an image of s.
func imageSections(bounds []int, img []byte, s *Schema) ([]int, bool) {
	if len(img) < len(pageMagic)+10+8 {
		return bounds, false
	}
	r := &reader{b: img[:len(img)-8]}
	r.take(4)
	r.u32()
	n := int(r.u32())
	r.take(2)
	r.take(16 * words(n))
	if r.err != nil {
		return bounds, false
	}
	bounds = append(bounds, len(img)-8-len(r.b))
	for _, col := range s.Columns {
		kf := r.take(2)
		if r.err != nil {
			return bounds, false
		}
		skipColumn(r, col.Kind, kf[1] == 1, n)
		if r.err != nil {
			return bounds, false
		}
		bounds = append(bounds, len(img)-8-len(r.b))
	}
	if len(r.b) != 0 {
		return bounds, false
	}
	return append(bounds, len(img)), true
}

// compressCols appends img's column-blocked form to dst (the plain s2
// form when img does not parse as an image of s: never for an image
// encodePage made); *bounds is scratch for the sections' offsets.
func compressCols(dst, img []byte, s *Schema, bounds *[]int) []byte {
	secs, ok := imageSections((*bounds)[:0], img, s)
	*bounds = secs
	if !ok || len(secs) > 1<<16-1 {
		return (*compressor)(nil).compress(dst, img, CodecS2) // s2 needs no coder
	}
	dst = append(dst, byte(codecS2Cols))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(secs)))
	table := len(dst)
	dst = append(dst, make([]byte, colBlobEntry*len(secs))...)
	from := 0
	for i, end := range secs {
		sec := img[from:end]
		n := len(dst)
		if m := s2.MaxEncodedLen(len(sec)); m > 0 {
			dst = append(dst, make([]byte, m)...)
		}
		enc := s2.Encode(dst[n:], sec)
		dst = dst[:n+len(enc)]
		e := dst[table+colBlobEntry*i:]
		binary.LittleEndian.PutUint32(e, uint32(len(sec)))
		binary.LittleEndian.PutUint32(e[4:], uint32(len(enc)))
		binary.LittleEndian.PutUint64(e[8:], xxh3.Hash(sec))
		copy(e[16:18], sec)
		from = end
	}
	return dst
}

// colBlob is a parsed column-blocked image.
type colBlob struct {
	nsec  int
	table []byte // the section entries
	data  []byte // the s2 blocks
}

// parseColBlob parses blob (its tag byte first) as a column-blocked image.
func parseColBlob(blob []byte) (colBlob, error) {
	if len(blob) < 3 {
		return colBlob{}, fmt.Errorf("%w: column-blocked image of %d bytes", ErrCorruptPage, len(blob))
	}
	nsec := int(binary.LittleEndian.Uint16(blob[1:]))
	if nsec < 2 || len(blob)-3 < nsec*colBlobEntry {
		return colBlob{}, fmt.Errorf("%w: column-blocked image: %d sections in %d bytes", ErrCorruptPage, nsec, len(blob))
	}
	b := colBlob{nsec: nsec, table: blob[3 : 3+nsec*colBlobEntry], data: blob[3+nsec*colBlobEntry:]}
	total := 0
	for i := range nsec {
		total += int(binary.LittleEndian.Uint32(b.table[colBlobEntry*i+4:]))
	}
	if total != len(b.data) {
		return colBlob{}, fmt.Errorf("%w: column-blocked image: sections of %d bytes, %d held", ErrCorruptPage, total, len(b.data))
	}
	return b, nil
}

// section appends section i, decompressed and checked, to dst; off is
// where its s2 block starts in b.data.
func (b colBlob) section(dst []byte, i, off int) ([]byte, error) {
	e := b.table[colBlobEntry*i:]
	raw, enc := int(binary.LittleEndian.Uint32(e)), int(binary.LittleEndian.Uint32(e[4:]))
	if n, err := s2.DecodedLen(b.data[off : off+enc]); err != nil || n != raw {
		return dst, fmt.Errorf("%w: column-blocked image: section %d of %d bytes decodes to %d (%v)", ErrCorruptPage, i, raw, n, err)
	}
	n := len(dst)
	dst = append(dst, make([]byte, raw)...) // grows within dst's capacity once warm
	if _, err := s2.Decode(dst[n:], b.data[off:off+enc]); err != nil {
		return dst, fmt.Errorf("%w: s2: %v", ErrCorruptPage, err)
	}
	if xxh3.Hash(dst[n:]) != binary.LittleEndian.Uint64(e[8:]) || !bytes.Equal(e[16:16+min(2, raw)], dst[n:n+min(2, raw)]) {
		return dst, fmt.Errorf("%w: column-blocked image: section %d checksum mismatch", ErrCorruptPage, i)
	}
	return dst, nil
}

// encLen is section i's s2 block's length.
func (b colBlob) encLen(i int) int {
	return int(binary.LittleEndian.Uint32(b.table[colBlobEntry*i+4:]))
}

// decompressCols is decompress of a column-blocked image: the whole
// image's bytes.
func decompressCols(dst, blob []byte) ([]byte, error) {
	b, err := parseColBlob(blob)
	if err != nil {
		return nil, err
	}
	dst, off := dst[:0], 0
	for i := range b.nsec {
		if dst, err = b.section(dst, i, off); err != nil {
			return nil, err
		}
		off += b.encLen(i)
	}
	return dst, nil
}

// decompressColsPart is the body (no checksum) of a column-blocked image
// with the sections of the columns want does not mark left out, their
// kind and flags bytes alone in their place (decodeBodyAbsent reads
// that form).
func decompressColsPart(dst, blob []byte, want []bool) ([]byte, error) {
	b, err := parseColBlob(blob)
	if err != nil {
		return nil, err
	}
	if b.nsec != len(want)+2 {
		return nil, fmt.Errorf("%w: column-blocked image of %d sections, schema has %d columns", ErrCorruptPage, b.nsec, len(want))
	}
	dst, off := dst[:0], 0
	for i := range b.nsec - 1 { // the checksum's section is not read
		if i == 0 || want[i-1] {
			if dst, err = b.section(dst, i, off); err != nil {
				return nil, err
			}
		} else {
			e := b.table[colBlobEntry*i:]
			if binary.LittleEndian.Uint32(e) < 2 {
				return nil, fmt.Errorf("%w: column-blocked image: column section %d of %d bytes", ErrCorruptPage, i, binary.LittleEndian.Uint32(e))
			}
			dst = append(dst, e[16:18]...)
		}
		off += b.encLen(i)
	}
	return dst, nil
}

// thawCols is thaw of a column-blocked image for a reader of the columns
// want marks (stats: the cold page's summaries, shared; ColReader always
// has them).
func (h *Heap) thawCols(dst, blob []byte, epoch uint64, stats []ColStats, want []bool) (raw []byte, p *page, err error) {
	if raw, err = decompressColsPart(dst, blob, want); err != nil {
		return raw, nil, err
	}
	if p, err = decodeBodyAbsent(raw, &h.schema, h.cfg.PageRows, epoch, want); err != nil {
		return raw, nil, err
	}
	if stats != nil {
		p.stats = stats
	} // else left empty: a page of some columns has no whole summaries
	return raw, p, nil
}
