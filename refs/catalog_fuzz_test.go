package refs

import (
	"bytes"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/prolly"
)

// FuzzDecodeRefs feeds arbitrary bytes to the tag and branch record
// decoders: they must return an error or a value that survives an
// encode/decode round trip, never panic.
func FuzzDecodeRefs(f *testing.F) {
	f.Add(encodeBranch(Branch{Name: "b", From: 42, Created: time.Unix(1, 5),
		Roots: []TableRoot{{Table: "public.t", Root: prolly.Root{Hash: prolly.Hash{1}, Spec: prolly.SpecID{2}}}}}))
	f.Add([]byte{refFormat, 0, 0, 0, 0, 0, 0, 0, 1, 2})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if br, err := decodeBranch("x", b); err == nil && isSorted(br) {
			enc := encodeBranch(br)
			again, err := decodeBranch("x", enc)
			if err != nil || !bytes.Equal(encodeBranch(again), enc) || again.From != br.From || !again.Created.Equal(br.Created) || len(again.Roots) != len(br.Roots) {
				t.Fatalf("branch %x decodes to %+v, round trip gives %+v (%v)", b, br, again, err)
			}
		}
		_, _ = decodeTag("x", b)
	})
}

func isSorted(b Branch) bool {
	for i := 1; i < len(b.Roots); i++ {
		if b.Roots[i-1].Table > b.Roots[i].Table {
			return false
		}
	}
	return true
}
