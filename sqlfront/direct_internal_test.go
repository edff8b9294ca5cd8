package sqlfront

import (
	"encoding/binary"
	"strconv"
	"testing"
)

// TestAppendIntSend: the direct path's binary integers are int2send,
// int4send and int8send of the stored text, at every width's limits,
// and texts that are not an integer of the width are refused.
func TestAppendIntSend(t *testing.T) {
	for _, w := range []int{2, 4, 8} {
		bits := 8 * w
		lo, hi := -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
		if w == 8 {
			lo, hi = -1<<63, 1<<63-1
		}
		for _, v := range []int64{0, 1, -1, 7, -42, 255, -256, 32767, -32768, hi, lo, hi - 1, lo + 1} {
			if v < lo || v > hi {
				continue
			}
			got, ok := appendIntSend([]byte{9}, w, []byte(strconv.FormatInt(v, 10)))
			if !ok || len(got) != 1+w || got[0] != 9 {
				t.Fatalf("w %d, %d: %x %v", w, v, got, ok)
			}
			var back int64
			switch w {
			case 2:
				back = int64(int16(binary.BigEndian.Uint16(got[1:])))
			case 4:
				back = int64(int32(binary.BigEndian.Uint32(got[1:])))
			case 8:
				back = int64(binary.BigEndian.Uint64(got[1:]))
			}
			if back != v {
				t.Errorf("w %d: %d sent as %d", w, v, back)
			}
		}
		for _, bad := range []string{"", "-", "1.5", "x", "+1", strconv.FormatInt(hi, 10) + "0", "99999999999999999999"} {
			if _, ok := appendIntSend(nil, w, []byte(bad)); ok {
				t.Errorf("w %d: %q accepted", w, bad)
			}
		}
	}
	if _, ok := appendIntSend(nil, 2, []byte("32768")); ok {
		t.Error("32768 fits int2")
	}
	if _, ok := appendIntSend(nil, 4, []byte("-2147483649")); ok {
		t.Error("-2147483649 fits int4")
	}
}
