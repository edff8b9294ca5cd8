package store

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/s2"
)

func testCodecs(t testing.TB) map[Compression]*valueCodec {
	out := map[Compression]*valueCodec{}
	for _, c := range []Compression{CompressionNone, CompressionS2, CompressionZstd} {
		vc, err := newValueCodec(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(vc.close)
		out[c] = vc
	}
	return out
}

func TestValueCodecRoundTrip(t *testing.T) {
	rng := seedRand(t, 5, 6)
	random := make([]byte, 4000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	inputs := map[string][]byte{
		"leaf":   newLeafGen(1, false).leaf(),
		"text":   newLeafGen(1, true).leaf(),
		"random": random,
		"tiny":   {1},
		"zeros":  make([]byte, 8192),
	}
	for c, vc := range testCodecs(t) {
		for name, in := range inputs {
			prefix := []byte("kept")
			val := vc.encode(append([]byte(nil), prefix...), in)
			if !bytes.HasPrefix(val, prefix) {
				t.Fatalf("%s/%s: encode clobbered dst", c, name)
			}
			val = val[len(prefix):]
			wantTag := c
			if name == "random" || name == "tiny" {
				wantTag = CompressionNone // does not shrink: stored raw
			}
			if Compression(val[0]) != wantTag {
				t.Errorf("%s/%s: tag %s, want %s", c, name, Compression(val[0]), wantTag)
			}
			out, err := vc.decode(val)
			if err != nil {
				t.Fatalf("%s/%s: decode: %v", c, name, err)
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("%s/%s: round trip differs", c, name)
			}
			// Any codec reads any tag: the tag, not the configuration, decides.
			for c2, other := range testCodecs(t) {
				if out, err := other.decode(val); err != nil || !bytes.Equal(out, in) {
					t.Fatalf("%s value read by %s codec: %v", c, c2, err)
				}
			}
		}
	}
}

func TestValueCodecRejects(t *testing.T) {
	vc := testCodecs(t)[CompressionS2]
	huge := append([]byte{byte(CompressionS2)}, s2.Encode(nil, make([]byte, 100))...)
	huge[1], huge[2], huge[3], huge[4] = 0xff, 0xff, 0xff, 0x7f // varint length ≈ 2^35
	for name, val := range map[string][]byte{
		"empty":         {},
		"tag zero":      {0, 1, 2, 3},
		"unknown tag":   {0x42, 1, 2, 3},
		"bad s2":        {byte(CompressionS2), 0xff, 0xff},
		"bad zstd":      {byte(CompressionZstd), 1, 2, 3, 4, 5},
		"huge s2 claim": huge,
	} {
		if out, err := vc.decode(val); err == nil {
			t.Errorf("%s: decoded to %d bytes, want an error", name, len(out))
		}
	}
}

// FuzzDecodeValue checks that no stored value, however mangled, panics the
// decoder or decodes beyond the size bound, and that encoded values round
// trip.
func FuzzDecodeValue(f *testing.F) {
	vcs := testCodecs(f)
	leaf := newLeafGen(2, true).leaf()
	for _, vc := range vcs {
		f.Add(vc.encode(nil, leaf))
	}
	f.Add([]byte{byte(CompressionS2), 0x80, 0x80, 0x80, 0x80, 0x10})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, val []byte) {
		for _, vc := range vcs {
			out, err := vc.decode(val)
			if err == nil && len(out) > maxNodeBytes {
				t.Fatalf("decoded %d bytes, above the %d bound", len(out), maxNodeBytes)
			}
			if len(val) > 0 {
				enc := vc.encode(nil, val)
				back, err := vc.decode(enc)
				if err != nil || !bytes.Equal(back, val) {
					t.Fatalf("round trip of %d bytes failed: %v", len(val), err)
				}
			}
		}
	})
}
