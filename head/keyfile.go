package head

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// Key store file (checkpoint record version 5, issue 24: lazy index and
// key store pages at restart): the key store's pages laid out so that a
// restore maps the file read-only and makes each page's slices views of
// it (mapKeyFile), reading only the page directory at the file's end; a
// page's bytes are faulted in the first time a key of it is read. All
// integers little-endian, every page's data 8-byte aligned.
//
//	header     "skeys" 2 0 0                               8 bytes
//	data       per page, at an 8-aligned offset:
//	             fixed layout:    live words × u64, buf
//	             variable layout: start slots × u32, end slots × u32, buf
//	directory  per page 40 bytes: kind u32 (0 none, 1 fixed, 2 variable),
//	           a u32 (width | slots), garbage u32, words u32, off u64,
//	           buf u64 (its length), sum u64 (xxh3-64 of the page's data)
//	trailer    dir u64 (offset), pages u64, dirsum u64 (xxh3-64 of the
//	           directory), sum u64 (xxh3-64 of the 24 bytes before)
//
// The directory's and the trailer's checksums are checked when the file is
// mapped; the pages' by verifyKeyFile, which reads the file (not the
// mapping) after the model is served. A mapped page is never written: its
// epoch is mappedEpoch, so the writer copies its slot bookkeeping before a
// change (keyStore.writable), and its buf has no spare capacity, so an
// append moves it (the store never overwrites key bytes it handed out).
const (
	keyFileMagic   = "skeys\x02\x00\x00"
	keyFileDirSize = 40
	keyFileTrailer = 32
	// mappedEpoch is the epoch of a page that is a view of a mapped key
	// file: never the store's, so writable always copies it first.
	mappedEpoch = ^uint64(0)
)

// writeKeyFile writes pages in the key file format to w and returns the
// bytes written.
func writeKeyFile(w io.Writer, pages []*keyPage) (int64, error) {
	n, _, err := writeKeyFileTail(w, pages)
	return n, err
}

// writeKeyFileTail is writeKeyFile also returning the file's tail: its
// directory and trailer, the bytes a restore reads to map it (kept in
// the key directory file, keydir.go).
func writeKeyFileTail(w io.Writer, pages []*keyPage) (int64, []byte, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	bw.WriteString(keyFileMagic)
	off := uint64(len(keyFileMagic))
	dir := make([]byte, 0, keyFileDirSize*len(pages))
	var scratch []byte
	for _, p := range pages {
		if p == nil {
			dir = append(dir, make([]byte, keyFileDirSize)...)
			continue
		}
		scratch = appendKeyPageData(scratch[:0], p)
		bw.Write(scratch)
		var e [keyFileDirSize]byte
		if p.width > 0 {
			binary.LittleEndian.PutUint32(e[0:], 1)
			binary.LittleEndian.PutUint32(e[4:], uint32(p.width))
			binary.LittleEndian.PutUint32(e[12:], uint32(len(p.live)))
		} else {
			binary.LittleEndian.PutUint32(e[0:], 2)
			binary.LittleEndian.PutUint32(e[4:], uint32(len(p.start)))
		}
		binary.LittleEndian.PutUint32(e[8:], uint32(p.garbage))
		binary.LittleEndian.PutUint64(e[16:], off)
		binary.LittleEndian.PutUint64(e[24:], uint64(len(p.buf)))
		binary.LittleEndian.PutUint64(e[32:], xxh3.Hash(scratch))
		dir = append(dir, e[:]...)
		off += uint64(len(scratch))
		if pad := -len(scratch) & 7; pad > 0 {
			bw.Write(make([]byte, pad))
			off += uint64(pad)
		}
	}
	var tr [keyFileTrailer]byte
	binary.LittleEndian.PutUint64(tr[0:], off)
	binary.LittleEndian.PutUint64(tr[8:], uint64(len(pages)))
	binary.LittleEndian.PutUint64(tr[16:], xxh3.Hash(dir))
	binary.LittleEndian.PutUint64(tr[24:], xxh3.Hash(tr[:24]))
	tail := append(dir, tr[:]...)
	bw.Write(tail)
	if err := bw.Flush(); err != nil {
		return cw.n, nil, fmt.Errorf("write key file: %w", err)
	}
	return cw.n, tail, nil
}

// appendKeyPageData appends page p's data as the key file holds it.
func appendKeyPageData(dst []byte, p *keyPage) []byte {
	if p.width > 0 {
		for _, w := range p.live {
			dst = binary.LittleEndian.AppendUint64(dst, w)
		}
	} else {
		for _, o := range p.start {
			dst = binary.LittleEndian.AppendUint32(dst, o)
		}
		for _, o := range p.end {
			dst = binary.LittleEndian.AppendUint32(dst, o)
		}
	}
	return append(dst, p.buf...)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// keyFileEntry is one page's directory entry.
type keyFileEntry struct {
	kind, a, garbage, words uint32
	off, buf, sum           uint64
}

// dataLen is the bytes of the page's data.
func (e keyFileEntry) dataLen() uint64 {
	if e.kind == 1 {
		return 8*uint64(e.words) + e.buf
	}
	return 8*uint64(e.a) + e.buf
}

// keyFileDirectory checks b's header, trailer and directory (their
// checksums, every page's data inside the data section) and returns the
// directory.
func keyFileDirectory(b []byte) ([]keyFileEntry, error) {
	if len(b) < len(keyFileMagic)+keyFileTrailer || string(b[:len(keyFileMagic)]) != keyFileMagic {
		return nil, fmt.Errorf("%w: not a key store file", ErrCorruptCheckpoint)
	}
	return keyFileDirectoryTail(len(b), b[max(len(keyFileMagic), len(b)-keyFileTailLen(b)):])
}

// keyFileTailLen is the length of the tail (directory and trailer) of the
// key file b as its trailer says (past the file: whatever the file holds
// after its header, which keyFileDirectoryTail then refuses).
func keyFileTailLen(b []byte) int {
	tr := b[len(b)-keyFileTrailer:]
	pages := binary.LittleEndian.Uint64(tr[8:])
	if pages > uint64(len(b))/keyFileDirSize {
		return len(b)
	}
	return keyFileTrailer + int(pages)*keyFileDirSize
}

// keyFileDirectoryTail is keyFileDirectory of a key file of size bytes
// given only its tail (its directory and trailer, the file's last
// len(tail) bytes): it checks the trailer's and the directory's checksums
// and that every page's data lies inside the data section.
func keyFileDirectoryTail(size int, tail []byte) ([]keyFileEntry, error) {
	if len(tail) < keyFileTrailer || size < len(keyFileMagic)+len(tail) {
		return nil, fmt.Errorf("%w: key store file of %d bytes with a tail of %d", ErrCorruptCheckpoint, size, len(tail))
	}
	tr := tail[len(tail)-keyFileTrailer:]
	if xxh3.Hash(tr[:24]) != binary.LittleEndian.Uint64(tr[24:]) {
		return nil, fmt.Errorf("%w: key store file trailer checksum", ErrCorruptCheckpoint)
	}
	dirOff, pages := binary.LittleEndian.Uint64(tr[0:]), binary.LittleEndian.Uint64(tr[8:])
	dataEnd := uint64(size - keyFileTrailer)
	if dirOff < uint64(len(keyFileMagic)) || dirOff > dataEnd || pages > (dataEnd-dirOff)/keyFileDirSize || dirOff+pages*keyFileDirSize != dataEnd ||
		pages*keyFileDirSize+keyFileTrailer != uint64(len(tail)) {
		return nil, fmt.Errorf("%w: key store file directory of %d pages at %d in %d bytes", ErrCorruptCheckpoint, pages, dirOff, size)
	}
	dir := tail[:len(tail)-keyFileTrailer]
	if xxh3.Hash(dir) != binary.LittleEndian.Uint64(tr[16:]) {
		return nil, fmt.Errorf("%w: key store file directory checksum", ErrCorruptCheckpoint)
	}
	out := make([]keyFileEntry, pages)
	for i := range out {
		d := dir[i*keyFileDirSize:]
		e := keyFileEntry{kind: binary.LittleEndian.Uint32(d[0:]), a: binary.LittleEndian.Uint32(d[4:]),
			garbage: binary.LittleEndian.Uint32(d[8:]), words: binary.LittleEndian.Uint32(d[12:]),
			off: binary.LittleEndian.Uint64(d[16:]), buf: binary.LittleEndian.Uint64(d[24:]), sum: binary.LittleEndian.Uint64(d[32:])}
		switch e.kind {
		case 0:
		case 1, 2:
			if e.kind == 1 && (e.a == 0 || e.buf%uint64(e.a) != 0) || e.kind == 2 && e.words != 0 {
				return nil, fmt.Errorf("%w: key store file page %d: bad header", ErrCorruptCheckpoint, i)
			}
			if e.off%8 != 0 || e.off < uint64(len(keyFileMagic)) || e.buf > dirOff || e.off > dirOff || e.dataLen() > dirOff-e.off ||
				uint64(e.garbage) > e.buf {
				return nil, fmt.Errorf("%w: key store file page %d: data [%d, +%d) outside the data section", ErrCorruptCheckpoint, i, e.off, e.dataLen())
			}
		default:
			return nil, fmt.Errorf("%w: key store file page %d: kind %d", ErrCorruptCheckpoint, i, e.kind)
		}
		out[i] = e
	}
	return out, nil
}

// mapKeyFile returns the key store over b, a read-only mapping of a key
// file (8-byte aligned), its pages' slices views of b: it reads the
// directory only. b must stay mapped and unchanged for the store's life.
func mapKeyFile(b []byte) (keyStore, error) {
	if len(b) > 0 && uintptr(unsafe.Pointer(&b[0]))&7 != 0 {
		return keyStore{}, errors.New("key store file: mapping not 8-byte aligned")
	}
	dir, err := keyFileDirectory(b)
	if err != nil {
		return keyStore{}, err
	}
	return mapKeyFileDir(b, dir), nil
}

// mapKeyFileDir is mapKeyFile with the file's directory already read and
// checked (keyFileDirectoryTail against len(b)): it touches no byte of b,
// so mapping a part costs no read at all until its keys are looked up.
func mapKeyFileDir(b []byte, dir []keyFileEntry) keyStore {
	s := keyStore{pages: make([]*keyPage, len(dir))}
	for i, e := range dir {
		if e.kind == 0 {
			continue
		}
		data := b[e.off : e.off+e.dataLen() : e.off+e.dataLen()]
		p := &keyPage{garbage: int(e.garbage), epoch: mappedEpoch}
		if e.kind == 1 {
			p.width = int(e.a)
			if e.words > 0 {
				p.live = unsafe.Slice((*uint64)(unsafe.Pointer(&data[0])), e.words)
			}
			data = data[8*e.words:]
		} else if e.a > 0 {
			p.start = unsafe.Slice((*uint32)(unsafe.Pointer(&data[0])), e.a)
			p.end = unsafe.Slice((*uint32)(unsafe.Pointer(&data[4*e.a])), e.a)
			data = data[8*e.a:]
		}
		p.buf = data
		s.pages[i] = p
		s.bytes += len(data)
	}
	s.mapped, s.mappedPer = [][]byte{b}, max(len(dir), 1)
	return s
}

// verifyKeyFile checks every page of the key file f (whose directory
// mapKeyFile checked, dir) against its checksum, and its offsets against
// its arena, reading the file, one page at a time.
func verifyKeyFile(f io.ReaderAt, dir []keyFileEntry) error {
	var buf []byte
	for i, e := range dir {
		if e.kind == 0 {
			continue
		}
		n := int(e.dataLen())
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		b := buf[:n]
		if _, err := f.ReadAt(b, int64(e.off)); err != nil {
			return fmt.Errorf("key store file page %d: %w", i, err)
		}
		if xxh3.Hash(b) != e.sum {
			return fmt.Errorf("%w: key store file page %d: checksum mismatch", ErrCorruptCheckpoint, i)
		}
		// The offsets and live bits the page's reads trust.
		arena := e.buf
		if e.kind == 1 {
			slots := int(arena / uint64(e.a))
			for w := range int(e.words) {
				word := binary.LittleEndian.Uint64(b[8*w:])
				if hi := (w + 1) * 64; hi > slots && word>>max(slots-w*64, 0) != 0 {
					return fmt.Errorf("%w: key store file page %d: live slot past the arena", ErrCorruptCheckpoint, i)
				}
			}
			continue
		}
		for s := range int(e.a) {
			st, en := binary.LittleEndian.Uint32(b[4*s:]), binary.LittleEndian.Uint32(b[4*(int(e.a)+s):])
			if st > en || uint64(en) > arena {
				return fmt.Errorf("%w: key store file page %d: slot %d: key [%d, %d) of an arena of %d", ErrCorruptCheckpoint, i, s, st, en, arena)
			}
		}
	}
	return nil
}
