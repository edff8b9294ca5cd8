package head

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/zeebo/xxh3"
)

// Key directory file (record version 6 with KeyDirFile set, issue 24,
// session 21): the tails (directory and trailer) of a table's key store
// parts, all in one file written at every checkpoint beside the index
// image's head, so that a restore reads one file instead of one tail at
// the end of every part (each a read of its own, latency-bound on a cold
// page cache: 10M keys restored in 33 ms before parts, 142–249 ms with
// them). The parts are then mapped without reading a byte of them; their
// pages are checked against the directory's sums by the warmer as before
// (verifyKeyFile). Named <gen:016x>-<i>.d. All integers little-endian.
//
//	header   "skeyd" 1 0 0                      8 bytes
//	parts    per part: tail length u64, the part's tail
//	trailer  parts u64, xxh3-64 of every byte before it u64
//
// A record without KeyDirFile (written before) restores by reading each
// part's own tail.
const keyDirMagic = "skeyd\x01\x00\x00"

// writeKeyDirFile writes the key directory file dir/name holding tails
// (one per key part, in order) and syncs it; it returns its length.
func writeKeyDirFile(dir, name string, tails [][]byte) (int64, error) {
	return writeImageFile(dir, name, func(w io.Writer) (int64, error) {
		b := encodeKeyDir(tails)
		n, err := w.Write(b)
		return int64(n), err
	})
}

func encodeKeyDir(tails [][]byte) []byte {
	size := len(keyDirMagic) + 16
	for _, t := range tails {
		size += 8 + len(t)
	}
	b := make([]byte, 0, size)
	b = append(b, keyDirMagic...)
	for _, t := range tails {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(t)))
		b = append(b, t...)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(tails)))
	return binary.LittleEndian.AppendUint64(b, xxh3.Hash(b))
}

// readKeyDirFile reads dir/name (size bytes, as the record says) and
// returns its parts' tails, want of them; each is checked against its
// part when mapped (keyFileDirectoryTail).
func readKeyDirFile(dir, name string, size, want int) ([][]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("key directory: %w", err)
	}
	if len(b) != size {
		return nil, fmt.Errorf("%w: key directory %s of %d bytes, the record says %d", ErrCorruptCheckpoint, name, len(b), size)
	}
	return decodeKeyDir(b, want)
}

func decodeKeyDir(b []byte, want int) ([][]byte, error) {
	if len(b) < len(keyDirMagic)+16 || string(b[:len(keyDirMagic)]) != keyDirMagic {
		return nil, fmt.Errorf("%w: not a key directory file", ErrCorruptCheckpoint)
	}
	body, sum := b[:len(b)-8], binary.LittleEndian.Uint64(b[len(b)-8:])
	if xxh3.Hash(body) != sum {
		return nil, fmt.Errorf("%w: key directory checksum", ErrCorruptCheckpoint)
	}
	if n := binary.LittleEndian.Uint64(body[len(body)-8:]); n != uint64(want) {
		return nil, fmt.Errorf("%w: key directory of %d parts, the record names %d", ErrCorruptCheckpoint, n, want)
	}
	rest := body[len(keyDirMagic) : len(body)-8]
	tails := make([][]byte, 0, want)
	for range want {
		if len(rest) < 8 {
			return nil, fmt.Errorf("%w: key directory truncated", ErrCorruptCheckpoint)
		}
		n := binary.LittleEndian.Uint64(rest)
		rest = rest[8:]
		if n > uint64(len(rest)) {
			return nil, fmt.Errorf("%w: key directory truncated", ErrCorruptCheckpoint)
		}
		tails = append(tails, rest[:n:n])
		rest = rest[n:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: key directory: %d bytes past its parts", ErrCorruptCheckpoint, len(rest))
	}
	return tails, nil
}

// verifyKeyTail checks that the key part f (size bytes) ends with tail,
// the copy of its directory and trailer the key directory file holds
// (the restore mapped the part by that copy without reading the part's).
func verifyKeyTail(f io.ReaderAt, size int, tail []byte) error {
	if len(tail) > size {
		return fmt.Errorf("%w: key part of %d bytes, its directory %d", ErrCorruptCheckpoint, size, len(tail))
	}
	b := make([]byte, len(tail))
	if _, err := f.ReadAt(b, int64(size-len(tail))); err != nil {
		return fmt.Errorf("key part directory: %w", err)
	}
	if !bytes.Equal(b, tail) {
		return fmt.Errorf("%w: key part directory differs from the key directory file's copy", ErrCorruptCheckpoint)
	}
	return nil
}
