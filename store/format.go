package store

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Compression names how a node's bytes are compressed at rest. Its non-zero
// values are also the tag byte that starts every stored node value, so every
// value says how to read itself and the writer's choice can change without a
// migration. Tag 0 is never written: an all-zero value reads as corrupt.
type Compression uint8

const (
	// CompressionDefault selects CompressionS2 (see doc.go for why).
	CompressionDefault Compression = 0
	// CompressionNone stores the node's bytes as they are.
	CompressionNone Compression = 1
	// CompressionS2 is klauspost's s2 (a faster superset of Snappy's block
	// format).
	CompressionS2 Compression = 2
	// CompressionZstd is zstd at Options.ZstdLevel.
	CompressionZstd Compression = 3
)

// String returns the name used in logs and benchmarks.
func (c Compression) String() string {
	switch c {
	case CompressionDefault:
		return "default"
	case CompressionNone:
		return "none"
	case CompressionS2:
		return "s2"
	case CompressionZstd:
		return "zstd"
	}
	return fmt.Sprintf("compression(%d)", uint8(c))
}

// maxNodeBytes bounds the decoded size of a stored value, so a corrupt length
// header cannot make a read allocate gigabytes before the hash check fails.
const maxNodeBytes = 16 << 20

// valueCodec turns node bytes into stored values and back. It holds the zstd
// encoder and decoder (both safe for concurrent EncodeAll/DecodeAll), so one
// exists per DB, never as package state.
type valueCodec struct {
	write Compression
	zenc  *zstd.Encoder
	zdec  *zstd.Decoder
}

func newValueCodec(write Compression, zstdLevel zstd.EncoderLevel) (*valueCodec, error) {
	switch write {
	case CompressionDefault:
		write = CompressionS2
	case CompressionNone, CompressionS2, CompressionZstd:
	default:
		return nil, fmt.Errorf("unknown compression %d", uint8(write))
	}
	if zstdLevel == 0 {
		zstdLevel = zstd.SpeedDefault
	}
	procs := runtime.GOMAXPROCS(0)
	zenc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstdLevel),
		zstd.WithEncoderConcurrency(procs),
		zstd.WithEncoderCRC(false), // the content address already checks every byte
		zstd.WithZeroFrames(true),
	)
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	zdec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(procs),
		zstd.WithDecoderMaxMemory(maxNodeBytes),
		zstd.IgnoreChecksum(true),
	)
	if err != nil {
		zenc.Close()
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	return &valueCodec{write: write, zenc: zenc, zdec: zdec}, nil
}

func (c *valueCodec) close() {
	c.zenc.Close()
	c.zdec.Close()
}

// maxEncodedLen bounds len(encode(data)) for a node of n bytes.
func maxEncodedLen(n int) int { return 1 + s2.MaxEncodedLen(n) }

// encode appends the stored value of node bytes to dst and returns the
// extended slice: a tag byte, then the payload. With cap(dst)-len(dst) ≥
// maxEncodedLen(len(data)) it does not allocate. A node that does not shrink
// is stored raw, so incompressible nodes cost one byte and no decode work.
func (c *valueCodec) encode(dst, data []byte) []byte {
	start := len(dst)
	switch c.write {
	case CompressionS2:
		dst = slices.Grow(dst, maxEncodedLen(len(data)))
		dst = append(dst, byte(CompressionS2))
		enc := s2.Encode(dst[len(dst):cap(dst)], data)
		dst = dst[:len(dst)+len(enc)]
	case CompressionZstd:
		dst = c.zenc.EncodeAll(data, append(dst, byte(CompressionZstd)))
	}
	if len(dst)-start == 0 || len(dst)-start >= 1+len(data) {
		dst = append(dst[:start], byte(CompressionNone))
		dst = append(dst, data...)
	}
	return dst
}

// decode returns the node bytes of a stored value in a new buffer: the
// caller may keep them after val (Badger's mmap-backed slice) is gone. The
// returned error is the reason for a *CorruptError; it has no address yet.
func (c *valueCodec) decode(val []byte) ([]byte, error) {
	if len(val) == 0 {
		return nil, fmt.Errorf("empty value")
	}
	payload := val[1:]
	switch Compression(val[0]) {
	case CompressionNone:
		return append([]byte(nil), payload...), nil
	case CompressionS2:
		n, err := s2.DecodedLen(payload)
		if err != nil {
			return nil, fmt.Errorf("s2 header: %w", err)
		}
		if n > maxNodeBytes {
			return nil, fmt.Errorf("s2 decoded length %d exceeds %d", n, maxNodeBytes)
		}
		out, err := s2.Decode(make([]byte, n), payload)
		if err != nil {
			return nil, fmt.Errorf("s2: %w", err)
		}
		return out, nil
	case CompressionZstd:
		out, err := c.zdec.DecodeAll(payload, nil)
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown codec tag %d", val[0])
}
