package heap

import (
	"encoding/hex"
	"reflect"
	"testing"
)

// pinnedManifest is the heap manifest below, written out by hand from
// manifest.encode's layout (little-endian fields): a change made to
// encoder and decoder alike would pass a round trip and make every stored
// heap unreadable.
const pinnedManifest = "484d4631" + // magic "HMF1"
	"0300000000000000" + // gen 3
	"48376b0100000000" + // lsn 0/16B3748
	"e803000000000000" + // rows 1000
	"80000000" + // page rows 128
	"00200000" + // page bytes 8192
	"01" + // codec S2
	"0200" + "0104" + // kinds: text, int8
	"02000000" + "0100000000000000" + "0300000000000000" // page generations 1, 3

func TestPinnedManifest(t *testing.T) {
	m := &manifest{gen: 3, lsn: 0x16B3748, rows: 1000, pageRows: 128, pageBytes: 8192, codec: CodecS2,
		kinds: []Kind{KindText, KindInt8}, gens: []uint64{1, 3}}
	if h := hex.EncodeToString(m.encode()); h != pinnedManifest {
		t.Errorf("manifest encodes to\n%s\nwant the pinned\n%s", h, pinnedManifest)
	}
	raw, err := hex.DecodeString(pinnedManifest)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeManifest(raw)
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Errorf("pinned manifest decodes to %+v, %v; want %+v", got, err, m)
	}
}
