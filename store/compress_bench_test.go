package store

import (
	"fmt"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// BenchmarkCompression measures the candidate node codecs on realistic
// leaves: encode and decode MB/s (of raw bytes) and the ratio raw/stored,
// reported as the custom metric "ratio". doc.go records the results.
func BenchmarkCompression(b *testing.B) {
	type codec struct {
		name string
		enc  func(dst, src []byte) []byte
		dec  func(dst, src []byte) ([]byte, error)
	}
	zdec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	defer zdec.Close()
	codecs := []codec{
		{"s2", func(dst, src []byte) []byte { return s2.Encode(dst, src) }, s2.Decode},
		{"s2better", func(dst, src []byte) []byte { return s2.EncodeBetter(dst, src) }, s2.Decode},
		{"snappy-compat", func(dst, src []byte) []byte { return s2.EncodeSnappy(dst, src) }, s2.Decode},
	}
	for _, lvl := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression} {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
		if err != nil {
			b.Fatal(err)
		}
		defer enc.Close()
		codecs = append(codecs, codec{
			name: "zstd-" + lvl.String(),
			enc:  func(dst, src []byte) []byte { return enc.EncodeAll(src, dst[:0]) },
			dec:  func(dst, src []byte) ([]byte, error) { return zdec.DecodeAll(src, dst[:0]) },
		})
	}
	for _, text := range []bool{false, true} {
		kind := "randomish"
		if text {
			kind = "text"
		}
		leaves := newLeafGen(1, text).leaves(256)
		raw := 0
		for _, l := range leaves {
			raw += len(l)
		}
		for _, c := range codecs {
			encoded := make([][]byte, len(leaves))
			stored := 0
			for i, l := range leaves {
				encoded[i] = c.enc(make([]byte, s2.MaxEncodedLen(len(l))), l)
				stored += len(encoded[i])
			}
			ratio := float64(raw) / float64(stored)
			b.Run(fmt.Sprintf("%s/%s/encode", kind, c.name), func(b *testing.B) {
				dst := make([]byte, s2.MaxEncodedLen(len(leaves[0])*2))
				b.SetBytes(int64(len(leaves[0])))
				i := 0
				for b.Loop() {
					c.enc(dst, leaves[i%len(leaves)])
					i++
				}
				b.ReportMetric(ratio, "ratio")
			})
			b.Run(fmt.Sprintf("%s/%s/decode", kind, c.name), func(b *testing.B) {
				dst := make([]byte, 0, len(leaves[0])*2)
				b.SetBytes(int64(len(leaves[0])))
				i := 0
				for b.Loop() {
					if _, err := c.dec(dst[:cap(dst)], encoded[i%len(encoded)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(ratio, "ratio")
			})
		}
	}
}
