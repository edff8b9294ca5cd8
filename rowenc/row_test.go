package rowenc

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// seedFlag replays a failing random test: go test ./rowenc -run X -seed N.
var seedFlag = seed.Flag()

func TestEncodeExamples(t *testing.T) {
	cases := []struct {
		name   string
		values [][]byte
		want   string
	}{
		{"empty row", nil, ""},
		{"null", [][]byte{nil}, "-"},
		{"empty string is not null", [][]byte{{}}, "0:"},
		{"two columns", [][]byte{[]byte("42"), []byte("héllo")}, "2:426:héllo"},
		{"separator inside value", [][]byte{[]byte("a|b"), []byte("c")}, "3:a|b1:c"},
		{"value that looks like framing", [][]byte{[]byte("1:x-"), nil}, "4:1:x--"},
		{"ten bytes", [][]byte{[]byte("0123456789")}, "10:0123456789"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Encode(c.values)
			if string(got) != c.want {
				t.Fatalf("Encode = %q, want %q", got, c.want)
			}
			if EncodedLen(c.values) != len(got) {
				t.Fatalf("EncodedLen = %d, want %d", EncodedLen(c.values), len(got))
			}
			dec, err := Decode(got)
			if err != nil {
				t.Fatalf("Decode(%q): %v", got, err)
			}
			assertValuesEqual(t, dec, c.values)
		})
	}
}

func assertValuesEqual(t *testing.T, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d columns, want %d", len(got), len(want))
	}
	for i := range want {
		if (got[i] == nil) != (want[i] == nil) {
			t.Fatalf("column %d: null=%v, want null=%v", i, got[i] == nil, want[i] == nil)
		}
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("column %d: %q, want %q", i, got[i], want[i])
		}
	}
}

func TestDecodeRejectsNonCanonical(t *testing.T) {
	bad := []string{
		"01:a",          // leading zero
		"00:",           // leading zero on empty
		"1a",            // no colon
		"3:ab",          // overrun
		":",             // empty length
		"+1:a",          // sign
		"x",             // junk
		"1:a2",          // truncated prefix at end
		"99999999999:a", // too many digits
		"2:ab-3",        // garbage after valid columns
	}
	for _, s := range bad {
		_, err := Decode([]byte(s))
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%q) error = %v, want ErrCorrupt", s, err)
		}
		if _, err := Validate([]byte(s)); err == nil {
			t.Errorf("Validate(%q) accepted", s)
		}
	}
}

func randomValues(r *rand.Rand) [][]byte {
	n := r.IntN(12)
	vals := make([][]byte, n)
	for i := range vals {
		switch r.IntN(4) {
		case 0:
			vals[i] = nil
		case 1:
			vals[i] = []byte{}
		default:
			v := make([]byte, r.IntN(40))
			for j := range v {
				v[j] = byte(r.IntN(256))
			}
			if r.IntN(8) == 0 {
				v = append(v, bytes.Repeat([]byte("-1:"), 5)...)
			}
			vals[i] = v
		}
	}
	return vals
}

// TestRoundTripAndAppendProperty checks, on random rows, that decoding
// inverts encoding and that appending a NULL column appends exactly "-".
func TestRoundTripAndAppendProperty(t *testing.T) {
	seed := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range 5000 {
		vals := randomValues(r)
		enc := Encode(vals)
		dec, err := Decode(enc)
		if err != nil {
			t.Fatalf("seed %d iter %d: Decode(Encode(%q)): %v", seed, i, vals, err)
		}
		assertValuesEqual(t, dec, vals)
		n, err := Validate(enc)
		if err != nil || n != len(vals) {
			t.Fatalf("seed %d: Validate = %d, %v; want %d", seed, n, err, len(vals))
		}
		grown := Encode(append(append([][]byte{}, vals...), nil, nil))
		if !bytes.Equal(grown, AppendNulls(append([]byte{}, enc...), 2)) {
			t.Fatalf("seed %d: appending NULL columns is not appending bytes: %q vs %q", seed, grown, enc)
		}
		for c := range len(vals) + 2 {
			v, null, err := Column(grown, c)
			if err != nil {
				t.Fatalf("seed %d: Column(%d): %v", seed, c, err)
			}
			wantNull := c >= len(vals) || vals[c] == nil
			if null != wantNull || (!null && !bytes.Equal(v, vals[c])) {
				t.Fatalf("seed %d: Column(%d) = %q,%v", seed, c, v, null)
			}
		}
		// Distinct value tuples must give distinct encodings (injectivity):
		// perturb one column and compare.
		if len(vals) > 0 {
			other := append([][]byte{}, vals...)
			j := r.IntN(len(other))
			if other[j] == nil {
				other[j] = []byte{}
			} else {
				other[j] = append(append([]byte{}, other[j]...), 'x')
			}
			if bytes.Equal(Encode(other), enc) {
				t.Fatalf("seed %d: %q and %q encode equal", seed, vals, other)
			}
		}
	}
}

func TestIterZeroAlloc(t *testing.T) {
	row := Encode([][]byte{[]byte("12345"), nil, []byte("some text value"), {}, []byte("2026-11-30 10:00:00+00")})
	allocs := testing.AllocsPerRun(100, func() {
		it := NewIter(row)
		n := 0
		for it.Next() {
			n += len(it.Value())
		}
		if it.Err() != nil || n == 0 {
			panic("bad row")
		}
	})
	if allocs != 0 {
		t.Fatalf("Iter allocates %.1f times per row", allocs)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"", "-", "0:", "2:ab-", "01:a", "3:abc1:", "10:0123456789"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		// Accepted bytes are canonical: they re-encode to themselves.
		if re := Encode(vals); !bytes.Equal(re, data) {
			t.Fatalf("Decode accepted non-canonical %q (re-encodes to %q)", data, re)
		}
	})
}

func FuzzEncodeRoundTrip(f *testing.F) {
	f.Add([]byte("a"), []byte(""), true, []byte("-1:"))
	f.Fuzz(func(t *testing.T, a, b []byte, bNull bool, c []byte) {
		vals := [][]byte{a, b, c}
		if a == nil {
			vals[0] = []byte{}
		}
		if bNull {
			vals[1] = nil
		} else if b == nil {
			vals[1] = []byte{}
		}
		if c == nil {
			vals[2] = []byte{}
		}
		dec, err := Decode(Encode(vals))
		if err != nil {
			t.Fatal(err)
		}
		assertValuesEqual(t, dec, vals)
	})
}

func BenchmarkIter(b *testing.B) {
	row := Encode([][]byte{[]byte("12345678"), []byte("0123456789abcdef01234567"), []byte("0123456789abcdef0123456789x"), []byte("512")})
	b.SetBytes(int64(len(row)))
	for b.Loop() {
		it := NewIter(row)
		for it.Next() {
		}
	}
}

func TestAppendMerged(t *testing.T) {
	prev := Encode([][]byte{[]byte("1"), []byte("big toasted text"), nil, []byte("old")})
	got, err := AppendMerged(nil, [][]byte{[]byte("1"), nil, nil, []byte("new")}, []bool{false, true, true, false}, prev)
	if err != nil {
		t.Fatal(err)
	}
	want := Encode([][]byte{[]byte("1"), []byte("big toasted text"), nil, []byte("new")})
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendMerged = %q, want %q", got, want)
	}
	if got, err := AppendMerged(nil, [][]byte{[]byte("x"), {}}, nil, nil); err != nil || !bytes.Equal(got, Encode([][]byte{[]byte("x"), {}})) {
		t.Fatalf("AppendMerged without keep = %q, %v", got, err)
	}
	// A kept column the previous row lacks is an error, never a NULL.
	if _, err := AppendMerged(nil, [][]byte{nil, nil, nil, nil, nil}, []bool{false, false, false, false, true}, prev); err == nil {
		t.Fatal("kept a column the previous row does not have")
	}
	if _, err := AppendMerged(nil, [][]byte{nil, nil}, []bool{false, true}, []byte("3:ab")); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt previous row: %v", err)
	}
	if _, err := AppendMerged(nil, [][]byte{nil}, []bool{false, true}, prev); err == nil {
		t.Fatal("mismatched keep length accepted")
	}
}
