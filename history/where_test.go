package history

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/rowenc"
)

func TestWhereKeyRange(t *testing.T) {
	codec, err := rowenc.NewKeyCodec(rowenc.KindBytes, rowenc.KindInt8)
	if err != nil {
		t.Fatal(err)
	}
	key := func(a, b string) []byte {
		k, err := codec.Encode(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	keys := [][]byte{key("a", "1"), key("a'b", "2"), key("b", "-5"), key("b", "7"), key("ba", "0"), key("c", "3")}
	cases := map[string][]int{ // indexes of keys in range
		``:                           {0, 1, 2, 3, 4, 5},
		`k = b`:                      {2, 3},
		`"k" = 'a''b'`:               {1},
		`k > b`:                      {4, 5},
		`k >= b AND k < c`:           {2, 3, 4},
		`k <= b`:                     {0, 1, 2, 3},
		`k > a and k <= ba`:          {1, 2, 3, 4},
		`k < a`:                      {},
		`k >= c AND k < b`:           {},
		`k = 'ba'   AND   k >= 'b' `: {4},
	}
	for where, want := range cases {
		preds, err := parseWhere(where)
		if err != nil {
			t.Errorf("%q: %v", where, err)
			continue
		}
		kr, err := keyRange("public.t", "k", codec, preds)
		if err != nil {
			t.Errorf("%q: %v", where, err)
			continue
		}
		var got []int
		for i, k := range keys {
			if !kr.empty() && (kr.Start == nil || bytes.Compare(k, kr.Start) >= 0) && (kr.End == nil || bytes.Compare(k, kr.End) < 0) {
				got = append(got, i)
			}
		}
		if len(got) != len(want) || (len(want) > 0 && !equalInts(got, want)) {
			t.Errorf("%q: keys %v in range, want %v", where, got, want)
		}
	}
	for where, msg := range map[string]string{
		`v = 1`:          "first primary-key column",
		`k ~ 1`:          "column OP value",
		`k = 1 OR k = 2`: "expected AND",
		`k = 'open`:      "unterminated",
		`k =`:            "missing value",
	} {
		preds, err := parseWhere(where)
		if err == nil {
			_, err = keyRange("public.t", "k", codec, preds)
		}
		if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want a bad request mentioning %q", where, err, msg)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
