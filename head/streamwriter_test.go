package head

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/heap"
)

type chunkMap map[string][]byte

func (m chunkMap) Set(k, v []byte) error { m[string(k)] = v; return nil }

// TestStreamWriterChunks: a checkpoint stream written through
// streamWriter as it is encoded, in writes of any size, is stored in the
// chunks the whole-buffer chunking made (chunk i = bytes [i×chunkBytes,
// (i+1)×chunkBytes), an empty stream one empty chunk), with its length
// and checksum: restores of earlier checkpoints read them the same way.
func TestStreamWriterChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, chunkBytes - 1, chunkBytes, chunkBytes + 1, 2*chunkBytes + chunkBytes/2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(rng.IntN(256))
			}
			got := chunkMap{}
			w := &streamWriter{wb: got, gen: 7, table: "public.t", kind: 'i'}
			for rest := data; len(rest) > 0; {
				k := min(len(rest), 1+rng.IntN(300_000))
				if m, err := w.Write(rest[:k]); err != nil || m != k {
					t.Fatalf("Write: %d, %v", m, err)
				}
				rest = rest[k:]
			}
			if err := w.close(); err != nil {
				t.Fatal(err)
			}
			want := chunkMap{}
			for i := 0; i == 0 || i*chunkBytes < n; i++ {
				end := min(n, (i+1)*chunkBytes)
				want[string(chunkKey(7, "public.t", 'i', uint32(i)))] = data[i*chunkBytes : end]
			}
			if len(got) != len(want) {
				t.Fatalf("%d chunks, want %d", len(got), len(want))
			}
			for k, v := range want {
				if g, ok := got[k]; !ok || !bytes.Equal(g, v) {
					t.Fatalf("chunk %x: %d bytes, want %d", k, len(g), len(v))
				}
			}
			if w.len != n || w.crc != crc32.Checksum(data, crcTable) {
				t.Fatalf("length %d crc %x, want %d %x", w.len, w.crc, n, crc32.Checksum(data, crcTable))
			}
		})
	}
}

// TestEncodeKeyPagesTo: the key store streamed to the checkpoint is the
// bytes keyStore.encode appends.
func TestEncodeKeyPagesTo(t *testing.T) {
	var s keyStore
	for i := range 300_000 {
		s.set(heap.MakeRowID(uint32(i/1000), i%1000), benchKey(i+1))
	}
	var b bytes.Buffer
	if err := encodeKeyPagesTo(&b, s.pages); err != nil {
		t.Fatal(err)
	}
	if want := s.encode(nil); !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("streamed %d bytes, encode gives %d (or other bytes)", b.Len(), len(want))
	}
}
