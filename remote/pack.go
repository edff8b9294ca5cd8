package remote

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"

	"github.com/klauspost/compress/s2"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/store"
)

// A pack is one object holding the new nodes of one upload (a commit group):
//
//	node bodies, each s2-compressed, in address order
//	index: per node address (20) ‖ offset u64 ‖ stored length u32
//	footer (24 bytes): index offset u64 ‖ index length u32 ‖ CRC-32C of the index u32 ‖ "SCPACK01"
//
// all integers big-endian. Its key is packs/<address of the whole pack>.pack,
// so a retried upload rewrites the same object and two sidecars uploading
// the same nodes in the same order share it. A reader fetches the index by
// one ranged GET of the tail, and a node by a ranged GET of its body; every
// body is decompressed and hashed against its address before use.

const (
	packMagic      = "SCPACK01"
	footerLen      = 8 + 4 + 4 + len(packMagic)
	entryLen       = addr.Size + 8 + 4
	indexTailGuess = 64 << 10 // first ranged GET of an index: the last 64 KiB
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// errBadPack is wrapped by every malformed pack or index.
var errBadPack = errors.New("malformed pack")

// entry locates one node in a pack.
type entry struct {
	h   addr.Hash
	off int64
	n   uint32
}

// encodePack builds a pack of nodes (address → encoded node bytes) and
// returns it with its index.
func encodePack(nodes map[addr.Hash][]byte) ([]byte, []entry) {
	hs := make([]addr.Hash, 0, len(nodes))
	for h := range nodes {
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b addr.Hash) int { return bytes.Compare(a[:], b[:]) })
	var buf []byte
	ents := make([]entry, len(hs))
	for i, h := range hs {
		off := len(buf)
		buf = appendBody(buf, nodes[h])
		ents[i] = entry{h: h, off: int64(off), n: uint32(len(buf) - off)}
	}
	idxOff := len(buf)
	for _, e := range ents {
		buf = append(buf, e.h[:]...)
		buf = binary.BigEndian.AppendUint64(buf, uint64(e.off))
		buf = binary.BigEndian.AppendUint32(buf, e.n)
	}
	idx := buf[idxOff:]
	crc := crc32.Checksum(idx, castagnoli)
	buf = binary.BigEndian.AppendUint64(buf, uint64(idxOff))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(idx)))
	buf = binary.BigEndian.AppendUint32(buf, crc)
	buf = append(buf, packMagic...)
	return buf, ents
}

func appendBody(dst, data []byte) []byte {
	need := s2.MaxEncodedLen(len(data))
	if cap(dst)-len(dst) < need {
		nd := make([]byte, len(dst), 2*cap(dst)+need)
		copy(nd, dst)
		dst = nd
	}
	enc := s2.Encode(dst[len(dst):len(dst)+need], data)
	return dst[:len(dst)+len(enc)]
}

// decodeBody decompresses a node body and checks it against h.
func decodeBody(h addr.Hash, body []byte) ([]byte, error) {
	data, err := s2.Decode(nil, body)
	if err != nil {
		return nil, &CorruptError{Hash: h, Reason: "body does not decompress: " + err.Error()}
	}
	if got := addr.Of(data); got != h {
		return nil, &CorruptError{Hash: h, Reason: fmt.Sprintf("%d fetched bytes hash to %s", len(data), got)}
	}
	return data, nil
}

// parseFooter reads the footer at the end of tail (the last bytes of a
// pack of size bytes) and returns where the index is.
func parseFooter(tail []byte, size int64) (off int64, n int, crc uint32, err error) {
	if len(tail) < footerLen || string(tail[len(tail)-len(packMagic):]) != packMagic {
		return 0, 0, 0, fmt.Errorf("%w: no footer", errBadPack)
	}
	f := tail[len(tail)-footerLen:]
	off = int64(binary.BigEndian.Uint64(f))
	n = int(binary.BigEndian.Uint32(f[8:]))
	crc = binary.BigEndian.Uint32(f[12:])
	if n%entryLen != 0 || off < 0 || off+int64(n)+int64(footerLen) != size {
		return 0, 0, 0, fmt.Errorf("%w: index at %d+%d in %d bytes", errBadPack, off, n, size)
	}
	return off, n, crc, nil
}

// parseIndex decodes an index checked against its CRC.
func parseIndex(idx []byte, crc uint32, idxOff int64) ([]entry, error) {
	if crc32.Checksum(idx, castagnoli) != crc {
		return nil, fmt.Errorf("%w: index checksum mismatch", errBadPack)
	}
	ents := make([]entry, len(idx)/entryLen)
	for i := range ents {
		b := idx[i*entryLen:]
		copy(ents[i].h[:], b)
		ents[i].off = int64(binary.BigEndian.Uint64(b[addr.Size:]))
		ents[i].n = binary.BigEndian.Uint32(b[addr.Size+8:])
		if ents[i].off < 0 || ents[i].off+int64(ents[i].n) > idxOff {
			return nil, fmt.Errorf("%w: node %s at %d+%d past the bodies", errBadPack, ents[i].h.Short(), ents[i].off, ents[i].n)
		}
	}
	return ents, nil
}

// CorruptError is a fetched node whose bytes are not its address's.
type CorruptError struct {
	Hash   addr.Hash
	Pack   string
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt remote node %s (pack %s): %s", e.Hash, e.Pack, e.Reason)
}

// Is makes errors.Is(err, store.ErrCorrupt) true, as for a corrupt local node.
func (e *CorruptError) Is(target error) bool { return target == store.ErrCorrupt }
