package corrupt_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/corrupt"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/radixindex"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
)

// TestSentinel: a sentinel made by New keeps its message and its identity
// and carries the marker, also when wrapped.
func TestSentinel(t *testing.T) {
	s := corrupt.New("corrupt widget")
	w := fmt.Errorf("read widget 7: %w", s)
	if s.Error() != "corrupt widget" || !errors.Is(w, s) || !errors.Is(w, corrupt.Err) {
		t.Errorf("New: message %q, Is(self) %v, Is(Err) %v", s, errors.Is(w, s), errors.Is(w, corrupt.Err))
	}
	if errors.Is(w, corrupt.New("corrupt widget")) {
		t.Error("two sentinels with one message match each other")
	}
	if errors.Is(errors.New("corrupt data"), corrupt.Err) {
		t.Error("an unrelated error matches the marker")
	}
}

// TestDecodersMark feeds each format's decoder bytes it cannot hold and
// checks that the error carries the one marker as well as the format's own
// sentinel. Package-private records (mirror, snapshot) have their own
// tests (TestRecordCorruptMarker, TestCatalogCorruptMarker).
func TestDecodersMark(t *testing.T) {
	_, nodeErr := prolly.DecodeNode([]byte{0xff, 1, 2})
	_, conflictErr := prolly.DecodeConflict([]byte("k"), nil)
	_, rowErr := rowenc.Decode([]byte{0xff, 0xff, 0xff})
	_, keyErr := rowenc.DecodeKey([]byte{0x07}, []rowenc.KeyKind{rowenc.KindBool})
	storeErr := error(&store.CorruptError{Reason: "bytes do not hash to the address"})
	_, _, indexErr := radixindex.Restore([]byte("not an index checkpoint at all"), nil)
	for _, c := range []struct {
		name     string
		err, own error
	}{
		{"prolly node", nodeErr, prolly.ErrCorruptNode},
		{"prolly conflict", conflictErr, prolly.ErrCorruptConflict},
		{"vrow1 row", rowErr, rowenc.ErrCorrupt},
		{"key", keyErr, rowenc.ErrCorruptKey},
		{"store node", storeErr, store.ErrCorrupt},
		{"radix index checkpoint", indexErr, radixindex.ErrCorrupt},
		// heap's page decoder and head's checkpoint restore are private;
		// their tests feed them garbage (heap FuzzDecodePage, head
		// TestCheckpointCorruptMarker). Here: their sentinels carry it.
		{"heap page", fmt.Errorf("page 3: %w", heap.ErrCorruptPage), heap.ErrCorruptPage},
		{"head checkpoint", fmt.Errorf("restore: %w", head.ErrCorruptCheckpoint), head.ErrCorruptCheckpoint},
	} {
		if c.err == nil {
			t.Errorf("%s: garbage decoded without error", c.name)
			continue
		}
		if !errors.Is(c.err, c.own) || !errors.Is(c.err, corrupt.Err) {
			t.Errorf("%s: %v: Is(own sentinel) %v, Is(corrupt.Err) %v", c.name, c.err, errors.Is(c.err, c.own), errors.Is(c.err, corrupt.Err))
		}
	}
}
