package radixindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"

	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// Checkpoint format, version 1 (all integers little-endian; uvarint is
// encoding/binary's):
//
//	magic    "sradix"            6 bytes
//	version  uint16              1
//	lsn      uint64              the LSN the index reflects
//	keys     uint64              Len
//	records  one per inner node, children before their parent
//	nodes    4 × uint32          node4, node16, node48, node256 records
//	root     uint64              the root's ref
//	crc      uint32              CRC-32C of every byte before it
//
// A ref is payload<<3 | kind (uvarint inside records): kind 1 is a leaf
// whose payload is the row id, kinds 2–5 are node4/16/48/256 whose payload
// is the node's number among the records of its kind (0, 1, … in record
// order); the empty tree's root is 0. A record is
//
//	kind      byte (2–5)
//	pathLen   uvarint            the compressed path's length
//	path      min(pathLen, 8) bytes
//	flags     byte               bit 0: the node has an end slot
//	end       uvarint            the end slot's row id, if flagged
//	children  uvarint n, then n × (branch byte, ref), bytes increasing
//
// Records come in post-order, so a child is always decoded before the
// node that refers to it: Restore checks that every ref points back to a
// node not yet claimed, which makes the decoded nodes a tree without a
// second pass. The counts follow the records because the writer learns
// them by writing. No key is stored: restoring reads nothing through the
// KeyFunc, and the keys must be the ones the rows had when the checkpoint
// was written (the heap checkpointed at the same LSN).
const (
	checkpointMagic   = "sradix"
	checkpointVersion = 1
	headerSize        = 6 + 2 + 8 + 8
	trailerSize       = 16 + 8
	maxPathLen        = MaxKeyLen
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt is wrapped by every Restore error about the bytes themselves.
var ErrCorrupt = corrupt.New("radixindex: corrupt checkpoint")

// encodeRef is a ref's checkpoint form: a leaf's row id or a node's index,
// and the kind (a node's path length is in its record).
func encodeRef(r ref) uint64 {
	if r.isLeaf() {
		return r.rowID()<<3 | kindLeaf
	}
	return uint64(r.index())<<3 | uint64(r.kind())
}

// WriteCheckpoint writes the tree, stamped with lsn, to w and returns the
// bytes written. The tree must not change while it runs (hold the read
// lock of Index, or call Index.Checkpoint).
func (t *Tree) WriteCheckpoint(w io.Writer, lsn uint64) (int64, error) {
	crc := crc32.New(castagnoli)
	cw := &countWriter{w: io.MultiWriter(w, crc)}
	bw := bufio.NewWriterSize(cw, 1<<16)
	e := encoder{t: t, w: bw}
	var hdr [headerSize]byte
	copy(hdr[:], checkpointMagic)
	binary.LittleEndian.PutUint16(hdr[6:], checkpointVersion)
	binary.LittleEndian.PutUint64(hdr[8:], lsn)
	binary.LittleEndian.PutUint64(hdr[16:], uint64(t.n))
	bw.Write(hdr[:])
	root := t.root
	if root != 0 && !root.isLeaf() {
		root = e.node(root, 0)
	}
	var tr [trailerSize]byte
	for i, c := range e.next {
		binary.LittleEndian.PutUint32(tr[4*i:], c)
	}
	binary.LittleEndian.PutUint64(tr[16:], encodeRef(root))
	bw.Write(tr[:])
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("radixindex: write checkpoint: %w", err)
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	k, err := w.Write(sum[:])
	if err != nil {
		return cw.n + int64(k), fmt.Errorf("radixindex: write checkpoint: %w", err)
	}
	return cw.n + int64(k), nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	k, err := c.w.Write(p)
	c.n += int64(k)
	return k, err
}

type encoder struct {
	t     *Tree
	w     *bufio.Writer
	next  [4]uint32 // next record number per kind
	refs  [][]ref   // children's new refs, one buffer per depth
	bytes [][]byte  // and their branch bytes
	buf   [binary.MaxVarintLen64]byte
}

func (e *encoder) uvarint(v uint64) {
	e.w.Write(e.buf[:binary.PutUvarint(e.buf[:], v)])
}

// node writes r's subtree in post-order and returns r's new ref.
func (e *encoder) node(r ref, depth int) ref {
	t := e.t
	if len(e.refs) == depth {
		e.refs = append(e.refs, make([]ref, 0, 256))
		e.bytes = append(e.bytes, make([]byte, 0, 256))
	}
	refs, bs := e.refs[depth][:0], e.bytes[depth][:0]
	for pos := posEnd; ; {
		p, c, ok := t.nextEntry(r, pos)
		if !ok {
			break
		}
		pos = p
		switch r.kind() {
		case kind4:
			bs = append(bs, t.n4.at(r.index()).keys[p])
		case kind16:
			bs = append(bs, t.n16.at(r.index()).keys[p])
		default:
			bs = append(bs, byte(p))
		}
		if !c.isLeaf() {
			c = e.node(c, depth+1)
		}
		refs = append(refs, c)
	}
	e.refs[depth], e.bytes[depth] = refs, bs
	h := t.hdr(r)
	e.w.WriteByte(r.kind())
	e.uvarint(uint64(h.prefixLen))
	e.w.Write(h.prefix[:min(int(h.prefixLen), maxPrefix)])
	if h.hasEnd {
		e.w.WriteByte(1)
		e.uvarint(h.end)
	} else {
		e.w.WriteByte(0)
	}
	e.uvarint(uint64(len(refs)))
	for i, c := range refs {
		e.w.WriteByte(bs[i])
		e.uvarint(encodeRef(c))
	}
	k := r.kind() - kind4
	nr := nodeRef(r.kind(), e.next[k])
	e.next[k]++
	return nr
}

// Restore decodes a checkpoint written by WriteCheckpoint (or an image,
// WriteImage, read through ReadImage) into a tree that
// reads keys through keyOf, and returns it with the LSN it reflects. It
// checks the checksum and the structure (every node claimed exactly once,
// counts, capacities, branch order), not the keys: the caller restores the
// heap from the same checkpoint LSN, or calls Verify to be sure. An error
// wraps ErrCorrupt when the bytes are at fault.
func Restore(data []byte, keyOf KeyFunc) (*Tree, uint64, error) {
	if len(data) < headerSize+trailerSize+4 {
		return nil, 0, fmt.Errorf("%w: %d bytes, shorter than an empty checkpoint", ErrCorrupt, len(data))
	}
	if string(data[:6]) != checkpointMagic {
		return nil, 0, fmt.Errorf("%w: not an index checkpoint (magic %q)", ErrCorrupt, data[:6])
	}
	if v := binary.LittleEndian.Uint16(data[6:]); v == imageVersion || v == imageUnpadded {
		r := bytes.NewReader(data)
		t, lsn, err := ReadImage(r, keyOf)
		if err == nil && r.Len() != 0 {
			err = fmt.Errorf("%w: %d bytes past the image", ErrCorrupt, r.Len())
		}
		return t, lsn, err
	} else if v != checkpointVersion {
		return nil, 0, fmt.Errorf("%w: format version %d, this build reads %d", ErrCorrupt, v, checkpointVersion)
	}
	body := data[:len(data)-4]
	if want, got := binary.LittleEndian.Uint32(data[len(data)-4:]), crc32.Checksum(body, castagnoli); want != got {
		return nil, 0, fmt.Errorf("%w: checksum %08x, stored %08x", ErrCorrupt, got, want)
	}
	lsn := binary.LittleEndian.Uint64(data[8:])
	keys := binary.LittleEndian.Uint64(data[16:])
	trailer := body[len(body)-trailerSize:]
	d := decoder{t: New(keyOf), b: body[:len(body)-trailerSize], off: headerSize}
	for i := range d.want {
		d.want[i] = binary.LittleEndian.Uint32(trailer[4*i:])
	}
	if err := d.run(keys, binary.LittleEndian.Uint64(trailer[16:])); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return d.t, lsn, nil
}

type decoder struct {
	t       *Tree
	b       []byte
	off     int
	want    [4]uint32   // node counts from the trailer
	have    [4]uint32   // decoded so far
	claimed [4][]uint64 // bitsets: node already some node's child
	leaves  uint64
	err     error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: %s", d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) byte1() byte {
	if d.off >= len(d.b) {
		d.fail("truncated")
		return 0
	}
	c := d.b[d.off]
	d.off++
	return c
}

func (d *decoder) uvarint() uint64 {
	v, k := binary.Uvarint(d.b[d.off:])
	if k <= 0 {
		d.fail("bad or truncated varint")
		return 0
	}
	d.off += k
	return v
}

// ref decodes a child ref and claims the node it names.
func (d *decoder) ref() ref {
	v := d.uvarint()
	kind, payload := uint8(v&7), v>>3
	switch {
	case kind == kindLeaf:
		d.leaves++
		return leafRef(payload)
	case kind < kind4 || kind > kind256:
		d.fail("ref kind %d", kind)
		return 0
	}
	k := kind - kind4
	if payload >= uint64(d.have[k]) {
		d.fail("ref to node %d of kind %d, only %d decoded", payload, kind, d.have[k])
		return 0
	}
	word, bit := payload/64, payload%64
	for uint64(len(d.claimed[k])) <= word {
		d.claimed[k] = append(d.claimed[k], 0)
	}
	if d.claimed[k][word]&(1<<bit) != 0 {
		d.fail("node %d of kind %d claimed twice", payload, kind)
		return 0
	}
	d.claimed[k][word] |= 1 << bit
	return d.t.decodedRef(kind, uint32(payload))
}

func (d *decoder) run(keys, rootV uint64) error {
	for d.err == nil && d.off < len(d.b) {
		d.record()
	}
	if d.err != nil {
		return d.err
	}
	var nodes uint64
	for i := range d.want {
		if d.have[i] != d.want[i] {
			return fmt.Errorf("%d records of kind %d, the trailer says %d", d.have[i], i+kind4, d.want[i])
		}
		nodes += uint64(d.have[i])
	}
	kind, payload := uint8(rootV&7), rootV>>3
	switch {
	case rootV == 0:
		if nodes != 0 || keys != 0 {
			return fmt.Errorf("empty root with %d nodes, %d keys", nodes, keys)
		}
	case kind == kindLeaf:
		if nodes != 0 {
			return fmt.Errorf("leaf root with %d nodes", nodes)
		}
		d.leaves++
		d.t.root = leafRef(payload)
	case kind >= kind4 && kind <= kind256:
		k := kind - kind4
		// The root is the last record of its kind, and unclaimed; every
		// other node was claimed once, so the nodes form one tree.
		if payload+1 != uint64(d.have[k]) {
			return fmt.Errorf("root is node %d of kind %d, not the last of %d", payload, kind, d.have[k])
		}
		var claimed uint64
		for i := range d.claimed {
			for _, w := range d.claimed[i] {
				claimed += uint64(bits.OnesCount64(w))
			}
		}
		if claimed != nodes-1 {
			return fmt.Errorf("%d of %d nodes hang below the root", claimed, nodes-1)
		}
		word, bit := payload/64, payload%64
		if word < uint64(len(d.claimed[k])) && d.claimed[k][word]&(1<<bit) != 0 {
			return fmt.Errorf("the root is some node's child")
		}
		d.t.root = d.t.decodedRef(kind, uint32(payload))
	default:
		return fmt.Errorf("root ref kind %d", kind)
	}
	if d.leaves != keys {
		return fmt.Errorf("%d keys in the nodes, header says %d", d.leaves, keys)
	}
	if keys > math.MaxInt {
		return fmt.Errorf("%d keys", keys)
	}
	d.t.n = int(keys)
	return nil
}

// record decodes one node.
func (d *decoder) record() {
	kind := d.byte1()
	if kind < kind4 || kind > kind256 {
		d.fail("record kind %d", kind)
		return
	}
	k := kind - kind4
	if d.have[k] >= d.want[k] {
		d.fail("more records of kind %d than the trailer's %d", kind, d.want[k])
		return
	}
	var h header
	plen := d.uvarint()
	if plen > maxPathLen {
		d.fail("path of %d bytes", plen)
		return
	}
	h.prefixLen = uint32(plen)
	stored := min(int(plen), maxPrefix)
	if d.off+stored > len(d.b) {
		d.fail("truncated path")
		return
	}
	copy(h.prefix[:], d.b[d.off:d.off+stored])
	d.off += stored
	switch flags := d.byte1(); flags {
	case 0:
	case 1:
		h.hasEnd = true
		d.leaves++
		if h.end = d.uvarint(); h.end > MaxRowID {
			d.fail("end row id %#x", h.end)
		}
	default:
		d.fail("flags %#x", flags)
	}
	n := d.uvarint()
	if capacity := [4]uint64{4, 16, 48, 256}[k]; n > capacity {
		d.fail("%d children in a node of %d", n, capacity)
	}
	if d.err != nil {
		return
	}
	h.n = uint16(n)
	if h.entries() < 2 {
		d.fail("node with %d entries", h.entries())
		return
	}
	var bs [256]byte
	var rs [256]ref
	for i := range int(n) {
		bs[i] = d.byte1()
		rs[i] = d.ref()
		if i > 0 && bs[i] <= bs[i-1] {
			d.fail("branch bytes out of order")
		}
		if d.err != nil {
			return
		}
	}
	t := d.t
	switch kind {
	case kind4:
		m := t.n4.at(t.n4.alloc())
		m.h = h
		copy(m.keys[:], bs[:n])
		copy(m.child[:], rs[:n])
	case kind16:
		m := t.n16.at(t.n16.alloc())
		m.h = h
		copy(m.keys[:], bs[:n])
		copy(m.child[:], rs[:n])
	case kind48:
		m := t.n48.at(t.n48.alloc())
		m.h = h
		for i := range int(n) {
			m.index[bs[i]] = uint8(i + 1)
		}
		copy(m.child[:], rs[:n])
	case kind256:
		m := t.n256.at(t.n256.alloc())
		m.h = h
		for i := range int(n) {
			m.child[bs[i]] = rs[i]
		}
	}
	d.have[k]++
}

// decodedRef returns the ref of a decoded node, carrying its path length.
func (t *Tree) decodedRef(kind uint8, i uint32) ref {
	r := nodeRef(kind, i)
	return r.withPlen(t.hdr(r).prefixLen)
}
