package mirror

import (
	"errors"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/corrupt"
)

// TestRecordCorruptMarker: a record that does not decode is reported as
// corruption (corrupt.Err), whichever record it is.
func TestRecordCorruptMarker(t *testing.T) {
	garbage := []byte{0xee, 0xff, 0x01}
	_, relErr := decodeRel(garbage)
	_, metaErr := decodeMeta(garbage)
	_, tableErr := decodeTable(garbage)
	_, groupErr := decodeGroup(1, garbage)
	_, _, logErr := decodeLog(1, garbage, true)
	_, heldErr := decodeHeld(garbage)
	for name, err := range map[string]error{"relation": relErr, "meta": metaErr, "table": tableErr, "group": groupErr, "log": logErr, "held": heldErr} {
		if !errors.Is(err, corrupt.Err) {
			t.Errorf("%s record from garbage: %v, want corrupt.Err in its chain", name, err)
		}
	}
}
