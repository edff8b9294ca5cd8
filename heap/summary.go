package heap

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Page summaries in the checkpoint's manifest (issue 24 item 2: the
// checkpoint's pages mapped, not decoded, at a restart).
//
// A manifest of version 2 carries, after its per-page generations, what a
// cold page keeps in memory for every page: slot count, live and dead
// counts, the varlen bytes its image holds, the live and dead bitmaps and
// every column's ColStats. A restore with Config.RestoreCold then makes
// every page cold straight from its stored image (written to the page
// file as is, or kept compressed) without decoding a value: the summaries
// that scans, zone maps and the table's totals need come from here, and
// decoding is left to Warm, beside the reads.
//
// Per page:
//
//	n, nlive, ndead, varUsed: uvarint
//	live, dead: words(n) × u64
//	per column: flags:u8 (1 stale, 2 MinB set, 4 MaxB set, 8 NumSum set,
//	  16 MinN.Text set, 32 MaxN.Text set)
//	  Count Nulls Sum.Hi: varint; Sum.Lo: uvarint; MinI MaxI: varint;
//	  MinF MaxF: u64 bits; MinB MaxB (when set): uvarint length, bytes;
//	  MinN, MaxN: varint Unscaled, u8 Scale, (when set) uvarint length, Text;
//	  NumSum (when set): varint Scale, u8 sign, uvarint length, |Unscaled| bytes;
//	  NumNaN NumPosInf NumNegInf nMin nMax: varint
//
// All of it is what the page's own summaries are in memory: a page
// restored from it is the cold page freeze would have made.

const (
	sumStale = 1 << iota
	sumMinB
	sumMaxB
	sumNumSum
	sumMinNText
	sumMaxNText
)

// appendSummary appends page p's summary (the cold form's header).
func appendSummary(dst []byte, p *page) []byte {
	n := p.n
	dst = binary.AppendUvarint(dst, uint64(n))
	dst = binary.AppendUvarint(dst, uint64(p.nlive))
	dst = binary.AppendUvarint(dst, uint64(p.ndead))
	vu := p.varUsed
	if !p.isCold() {
		vu -= p.garbage // the image holds no garbage (freezeImage)
	}
	dst = binary.AppendUvarint(dst, uint64(vu))
	for w := range words(n) {
		dst = binary.LittleEndian.AppendUint64(dst, p.live[w]&tailMask(n, w))
	}
	for w := range words(n) {
		dst = binary.LittleEndian.AppendUint64(dst, p.dead[w]&tailMask(n, w))
	}
	for i := range p.stats {
		dst = appendColStats(dst, &p.stats[i])
	}
	return dst
}

func appendColStats(dst []byte, s *ColStats) []byte {
	flags := byte(0)
	if s.stale {
		flags |= sumStale
	}
	if s.MinB != nil {
		flags |= sumMinB
	}
	if s.MaxB != nil {
		flags |= sumMaxB
	}
	if s.NumSum != nil {
		flags |= sumNumSum
	}
	if s.MinN.Text != nil {
		flags |= sumMinNText
	}
	if s.MaxN.Text != nil {
		flags |= sumMaxNText
	}
	dst = append(dst, flags)
	dst = binary.AppendVarint(dst, s.Count)
	dst = binary.AppendVarint(dst, s.Nulls)
	dst = binary.AppendVarint(dst, s.Sum.Hi)
	dst = binary.AppendUvarint(dst, s.Sum.Lo)
	dst = binary.AppendVarint(dst, s.MinI)
	dst = binary.AppendVarint(dst, s.MaxI)
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.MinF))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.MaxF))
	appendBytes := func(dst, b []byte) []byte {
		return append(binary.AppendUvarint(dst, uint64(len(b))), b...)
	}
	if s.MinB != nil {
		dst = appendBytes(dst, s.MinB)
	}
	if s.MaxB != nil {
		dst = appendBytes(dst, s.MaxB)
	}
	for _, v := range []*Numeric{&s.MinN, &s.MaxN} {
		dst = binary.AppendVarint(dst, v.Unscaled)
		dst = append(dst, v.Scale)
		if v.Text != nil {
			dst = appendBytes(dst, v.Text)
		}
	}
	if d := s.NumSum; d != nil {
		dst = binary.AppendVarint(dst, int64(d.Scale))
		dst = append(dst, byte(d.Unscaled.Sign()+1))
		dst = appendBytes(dst, d.Unscaled.Bytes())
	}
	for _, v := range []int64{s.NumNaN, s.NumPosInf, s.NumNegInf, s.nMin, s.nMax} {
		dst = binary.AppendVarint(dst, v)
	}
	return dst
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad uvarint", errManifest)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: bad varint", errManifest)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytesCopy reads a uvarint length and that many bytes, copied (never
// nil, so a set MinB of length 0 stays set).
func (r *reader) bytesCopy() []byte {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: truncated", errManifest)
	}
	b := r.take(int(n))
	if r.err != nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

func (r *reader) byte1() byte {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// readSummary reads one page's summary into the cold page header of page
// id (no columns: cols nil; the caller gives it its image).
func (r *reader) readSummary(id uint32, ncols, capSlots int) (*page, error) {
	n := r.uvarint()
	nlive, ndead, vu := r.uvarint(), r.uvarint(), r.uvarint()
	if r.err != nil {
		return nil, r.err
	}
	if n > uint64(capSlots) || nlive+ndead > n || vu > math.MaxInt32 {
		return nil, fmt.Errorf("%w: page %d summary: %d slots (%d live, %d dead) of %d", errManifest, id, n, nlive, ndead, capSlots)
	}
	p := &page{id: id, n: int(n), nlive: int(nlive), ndead: int(ndead), varUsed: int(vu)}
	p.live = make([]uint64, words(capSlots))
	p.dead = make([]uint64, words(capSlots))
	r.bitmap(p.live, p.n)
	r.bitmap(p.dead, p.n)
	p.stats = make([]ColStats, ncols)
	for c := range p.stats {
		r.readColStats(&p.stats[c])
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: page %d summary: %v", errManifest, id, r.err)
	}
	live, dead := 0, 0
	for w := range words(p.n) {
		live += popcount(p.live[w])
		dead += popcount(p.dead[w])
	}
	if live != p.nlive || dead != p.ndead {
		return nil, fmt.Errorf("%w: page %d summary: bitmaps hold %d live and %d dead, counts say %d and %d", errManifest, id, live, dead, p.nlive, p.ndead)
	}
	return p, nil
}

func (r *reader) readColStats(s *ColStats) {
	flags := r.byte1()
	s.stale = flags&sumStale != 0
	s.Count, s.Nulls = r.varint(), r.varint()
	s.Sum.Hi, s.Sum.Lo = r.varint(), r.uvarint()
	s.MinI, s.MaxI = r.varint(), r.varint()
	s.MinF, s.MaxF = math.Float64frombits(r.u64()), math.Float64frombits(r.u64())
	if flags&sumMinB != 0 {
		s.MinB = r.bytesCopy()
	}
	if flags&sumMaxB != 0 {
		s.MaxB = r.bytesCopy()
	}
	for i, v := range []*Numeric{&s.MinN, &s.MaxN} {
		v.Unscaled = r.varint()
		v.Scale = r.byte1()
		if flags&(sumMinNText<<i) != 0 {
			v.Text = r.bytesCopy()
		}
	}
	if flags&sumNumSum != 0 {
		d := &Decimal{Scale: int32(r.varint())}
		sign := int(r.byte1()) - 1
		d.Unscaled.SetBytes(r.bytesCopy())
		if sign < 0 {
			d.Unscaled.Neg(&d.Unscaled)
		}
		s.NumSum = d
	}
	s.NumNaN, s.NumPosInf, s.NumNegInf = r.varint(), r.varint(), r.varint()
	s.nMin, s.nMax = r.varint(), r.varint()
}
