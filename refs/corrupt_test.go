package refs

import (
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// TestCatalogCorruptMarker: a tag or branch record that does not decode is
// reported as corruption (corrupt.Err).
func TestCatalogCorruptMarker(t *testing.T) {
	_, tagErr := decodeTag("t", []byte{refFormat, 1})
	_, branchErr := decodeBranch("b", []byte{0xee})
	for name, err := range map[string]error{"tag": tagErr, "branch": branchErr} {
		if !errors.Is(err, corrupt.Err) {
			t.Errorf("%s record from garbage: %v, want corrupt.Err in its chain", name, err)
		}
	}
}
