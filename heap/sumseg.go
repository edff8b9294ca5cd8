package heap

import (
	"encoding/binary"
	"fmt"

	"github.com/zeebo/xxh3"
)

// Page summaries in segments (manifest version 3, issue 24 item 2).
//
// Version 2 carried every page's summary inside the manifest, rewritten
// whole at every checkpoint: 0.48 B a row, 48 MB at 100M rows for a
// checkpoint that may have changed a few pages. Version 3 cuts the
// summaries into segments of summarySegPages pages, each stored as an
// image of its own (PageKey{Gen, summaryIDBase + segment}: page ids stay
// far below) and named in the manifest by generation, length and xxh3-64,
// as the page images are by generation. A checkpoint encodes every
// segment (cheap, no I/O) and writes only those whose bytes differ from
// the segment the previous checkpoint named; the others keep their older
// generation, which Retain keeps because the new manifest names it. A
// segment is written before the manifest, like an image, so a kill leaves
// the previous checkpoint whole and the new segments unnamed garbage for
// the next Retain. A restore that needs the summaries (RestoreCold) reads
// the segments and checks each against the manifest's checksum: a
// missing or damaged one refuses the checkpoint.

// summarySegPages is how many pages' summaries one segment holds by
// default (Config.SummarySegPages; ≈ 500 KB at the scale benchmark's
// 1,024-row pages).
const summarySegPages = 1024

// summaryIDBase is the PageKey.ID of summary segment 0.
const summaryIDBase = 1 << 31

// IsSummaryKey reports whether k names a summary segment, not a page
// image.
func IsSummaryKey(k PageKey) bool { return k.ID >= summaryIDBase }

// sumSeg is one segment as a manifest names it.
type sumSeg struct {
	gen uint64 // the generation whose image holds it
	n   uint32 // its length
	sum uint64 // xxh3-64 of its bytes
}

func sumSegKey(s sumSeg, i int) PageKey { return PageKey{Gen: s.gen, ID: summaryIDBase + uint32(i)} }

// summarySegments encodes the summaries of v's pages in segments and
// returns the segments a manifest of generation gen names and the images
// of those that differ from prev (the previous checkpoint's): those must
// be stored as gen's.
func summarySegments(v *version, per int, prev []sumSeg, gen uint64, put func(PageImage) error) ([]sumSeg, error) {
	n := v.pages.len()
	segs := make([]sumSeg, 0, (n+per-1)/per)
	var b []byte
	for s := 0; s*per < n; s++ {
		b = b[:0]
		for id := s * per; id < min(n, (s+1)*per); id++ {
			b = appendSummary(b, v.pages.at(id))
		}
		seg := sumSeg{gen: gen, n: uint32(len(b)), sum: xxh3.Hash(b)}
		if s < len(prev) && prev[s].gen != 0 && prev[s].n == seg.n && prev[s].sum == seg.sum {
			segs = append(segs, prev[s])
			continue
		}
		if err := put(PageImage{Key: sumSegKey(seg, s), Data: append([]byte(nil), b...)}); err != nil {
			return nil, err
		}
		segs = append(segs, seg)
	}
	return segs, nil
}

// appendSegTable appends the manifest's segment table and its checksum.
func appendSegTable(b []byte, per int, segs []sumSeg) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(per))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(segs)))
	for _, s := range segs {
		b = binary.LittleEndian.AppendUint64(b, s.gen)
		b = binary.LittleEndian.AppendUint32(b, s.n)
		b = binary.LittleEndian.AppendUint64(b, s.sum)
	}
	return binary.LittleEndian.AppendUint64(b, xxh3.Hash(b[start:]))
}

// readSegTable reads what appendSegTable appended (the rest of the
// manifest) for a manifest of pages pages, and the pages a segment holds.
func readSegTable(b []byte, pages int) ([]sumSeg, int, error) {
	if len(b) < 16 {
		return nil, 0, fmt.Errorf("%w: no summary segment table", errManifest)
	}
	body := b[:len(b)-8]
	if xxh3.Hash(body) != binary.LittleEndian.Uint64(b[len(b)-8:]) {
		return nil, 0, fmt.Errorf("%w: summary segment table: checksum mismatch", errManifest)
	}
	per, n := int(binary.LittleEndian.Uint32(body)), int(binary.LittleEndian.Uint32(body[4:]))
	if per <= 0 || n != (pages+per-1)/per || len(body) != 8+20*n {
		return nil, 0, fmt.Errorf("%w: summary segment table of %d segments of %d pages for %d pages in %d bytes", errManifest, n, per, pages, len(body))
	}
	segs := make([]sumSeg, n)
	for i := range segs {
		e := body[8+20*i:]
		segs[i] = sumSeg{gen: binary.LittleEndian.Uint64(e), n: binary.LittleEndian.Uint32(e[8:]), sum: binary.LittleEndian.Uint64(e[12:])}
		if segs[i].gen == 0 || segs[i].gen > 1<<62 {
			return nil, 0, fmt.Errorf("%w: summary segment %d of generation %d", errManifest, i, segs[i].gen)
		}
	}
	return segs, per, nil
}

// loadSummaries reads m's summary segments from store into m.sums,
// checking each against the manifest.
func loadSummaries(m *manifest, store PageStore, table string) error {
	keys := make([]PageKey, len(m.segs))
	total := 0
	for i, s := range m.segs {
		keys[i] = sumSegKey(s, i)
		total += int(s.n)
	}
	blobs, err := getPages(store, table, keys)
	if err != nil {
		return fmt.Errorf("summary segments: %w", err)
	}
	sums := make([]byte, 0, total)
	for i, b := range blobs {
		if s := m.segs[i]; len(b) != int(s.n) || xxh3.Hash(b) != s.sum {
			return fmt.Errorf("%w: summary segment %d (generation %d): %d bytes, checksum %016x; the manifest says %d, %016x", errManifest, i, s.gen, len(b), xxh3.Hash(b), s.n, s.sum)
		}
		sums = append(sums, b...)
	}
	m.sums = sums
	return nil
}
