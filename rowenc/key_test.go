package rowenc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

func mustCodec(t testing.TB, kinds ...KeyKind) *KeyCodec {
	t.Helper()
	c, err := NewKeyCodec(kinds...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestKeyRoundTripExamples checks that each kind gives back the exact text,
// for the awkward values PostgreSQL prints.
func TestKeyRoundTripExamples(t *testing.T) {
	cases := map[KeyKind][]string{
		KindInt2:    {"0", "-1", "1", "32767", "-32768"},
		KindInt4:    {"0", "-2147483648", "2147483647", "42"},
		KindInt8:    {"0", "-9223372036854775808", "9223372036854775807", "-1"},
		KindNumeric: {"0", "0.00", "1.5", "1.50", "-1.5", "100000", "0.000001", "-0.00000000000000000001", "NaN", "Infinity", "-Infinity", "123456789012345678901234567890.123", "10", "-10.010"},
		KindBool:    {"t", "f"},
		KindBytes:   {"", "a", "héllo wörld", "a\x00b", "\x00", "\\x00ff", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"},
		KindDate:    {"2026-11-30", "0044-03-15 BC", "0001-01-01 BC", "10000-01-01", "infinity", "-infinity", "5874897-12-31"},
		KindTimestamp: {"2026-11-30 10:00:00", "2026-11-30 10:00:00.5", "2026-11-30 10:00:00.123456+00",
			"0044-03-15 12:00:00.5+00 BC", "294276-01-01 00:00:00", "infinity", "-infinity", "2020-01-01 00:00:00+05:30", "1900-01-01 00:00:00-00:09:21"},
	}
	for kind, texts := range cases {
		c := mustCodec(t, kind)
		for _, text := range texts {
			key, err := c.Encode(text)
			if err != nil {
				t.Errorf("%v: Encode(%q): %v", kind, text, err)
				continue
			}
			got, err := c.Decode(key)
			if err != nil {
				t.Errorf("%v: Decode(Encode(%q)) = %x: %v", kind, text, key, err)
				continue
			}
			if got[0] != text {
				t.Errorf("%v: round trip %q -> %x -> %q", kind, text, key, got[0])
			}
		}
	}
}

func TestKeyRejectsNonCanonicalText(t *testing.T) {
	cases := map[KeyKind][]string{
		KindInt2:      {"32768", "-32769", "+1", "01", "-0", "", " 1", "1e3"},
		KindInt4:      {"2147483648", "1.0", "-"},
		KindInt8:      {"9223372036854775808", "-9223372036854775809", "00"},
		KindNumeric:   {"-0", "-0.00", "01", "1.", ".5", "1e5", "nan", "+1", "1,5", ""},
		KindBool:      {"true", "1", ""},
		KindDate:      {"2026-1-01", "26-11-30", "02026-11-30", "2026-13-01", "0000-01-01", "2026-11-30 BC BC"},
		KindTimestamp: {"2026-11-30T10:00:00", "2026-11-30 10:00:00.50", "2026-11-30 10:00:00.1234567", "2026-11-30 24:00:00", "2026-11-30 10:00:00+0"},
	}
	for kind, texts := range cases {
		for _, text := range texts {
			if _, err := AppendKeyColumn(nil, kind, []byte(text)); !errors.Is(err, ErrKeyText) {
				t.Errorf("%v: AppendKeyColumn(%q) error = %v, want ErrKeyText", kind, text, err)
			}
		}
	}
}

func TestIntKeyOrder(t *testing.T) {
	seed := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(seed, 2))
	for _, w := range []struct {
		kind KeyKind
		bits int
	}{{KindInt2, 16}, {KindInt4, 32}, {KindInt8, 64}} {
		for range 3000 {
			a := r.Int64() >> (64 - w.bits)
			b := r.Int64() >> (64 - w.bits)
			if r.IntN(4) == 0 {
				b = a + int64(r.IntN(3)) - 1
				if w.bits < 64 && (b > 1<<(w.bits-1)-1 || b < -(1<<(w.bits-1))) {
					b = a
				}
			}
			checkIntOrder(t, seed, w.kind, a, b)
		}
		lo, hi := -(int64(1) << (w.bits - 1)), int64(1)<<(w.bits-1)-1
		if w.bits == 64 {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		checkIntOrder(t, seed, w.kind, lo, hi)
		checkIntOrder(t, seed, w.kind, -1, 0)
	}
}

func checkIntOrder(t *testing.T, seed uint64, kind KeyKind, a, b int64) {
	t.Helper()
	ka, err1 := AppendKeyColumn(nil, kind, []byte(strconv.FormatInt(a, 10)))
	kb, err2 := AppendKeyColumn(nil, kind, []byte(strconv.FormatInt(b, 10)))
	if err1 != nil || err2 != nil {
		t.Fatalf("seed %d: %v %v", seed, err1, err2)
	}
	if got, want := bytes.Compare(ka, kb), cmpInt(a, b); got != want {
		t.Fatalf("seed %d: %v order of %d vs %d: bytes %d, want %d", seed, kind, a, b, got, want)
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// randomNumeric returns numeric_out-style text, biased to shared prefixes,
// trailing zeros and tiny/huge exponents.
func randomNumeric(r *rand.Rand) string {
	switch r.IntN(20) {
	case 0:
		return "NaN"
	case 1:
		return "Infinity"
	case 2:
		return "-Infinity"
	}
	digits := func(n int, noLeadingZero bool) string {
		var sb strings.Builder
		for i := range n {
			d := r.IntN(10)
			if i == 0 && noLeadingZero && d == 0 {
				d = 1 + r.IntN(9)
			}
			if r.IntN(3) == 0 {
				d = 0
				if i == 0 && noLeadingZero {
					d = 1
				}
			}
			sb.WriteByte(byte('0' + d))
		}
		return sb.String()
	}
	ip := "0"
	if r.IntN(3) > 0 {
		ip = digits(1+r.IntN(25), true)
	}
	s := ip
	if r.IntN(3) > 0 {
		s += "." + digits(1+r.IntN(25), false)
	}
	if r.IntN(2) == 0 && strings.Trim(s, "0.") != "" {
		s = "-" + s
	}
	return s
}

// numericCmp is the reference order: PostgreSQL's value order (-Infinity <
// finite < Infinity < NaN), ties broken by display scale (see KindNumeric).
func numericCmp(a, b string) int {
	rank := func(s string) int {
		switch s {
		case "-Infinity":
			return 0
		case "Infinity":
			return 2
		case "NaN":
			return 3
		}
		return 1
	}
	if ra, rb := rank(a), rank(b); ra != rb || ra != 1 {
		return cmpInt(int64(ra), int64(rb))
	}
	ra, _ := new(big.Rat).SetString(a)
	rb, _ := new(big.Rat).SetString(b)
	if c := ra.Cmp(rb); c != 0 {
		return c
	}
	scale := func(s string) int {
		if i := strings.IndexByte(s, '.'); i >= 0 {
			return len(s) - i - 1
		}
		return 0
	}
	return cmpInt(int64(scale(a)), int64(scale(b)))
}

func TestNumericKeyOrder(t *testing.T) {
	seed := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(seed, 3))
	vals := []string{"1.5", "1.50", "1.49999", "-1.5", "-1.50", "0", "0.0", "10", "9.99", "0.1", "0.09", "-0.1", "-0.09", "100", "99.9"}
	for range 400 {
		vals = append(vals, randomNumeric(r))
	}
	for _, a := range vals {
		for _, b := range vals[:60] {
			checkNumericOrder(t, seed, a, b)
		}
	}
	for range 20000 {
		checkNumericOrder(t, seed, randomNumeric(r), randomNumeric(r))
	}
}

func checkNumericOrder(t *testing.T, seed uint64, a, b string) {
	t.Helper()
	ka, err1 := AppendKeyColumn(nil, KindNumeric, []byte(a))
	kb, err2 := AppendKeyColumn(nil, KindNumeric, []byte(b))
	if err1 != nil || err2 != nil {
		t.Fatalf("seed %d: encode %q / %q: %v %v", seed, a, b, err1, err2)
	}
	if got, want := bytes.Compare(ka, kb), numericCmp(a, b); got != want {
		t.Fatalf("seed %d: order of %q vs %q: bytes %d (%x vs %x), want %d", seed, a, b, got, ka, kb, want)
	}
	for _, p := range []struct {
		s string
		k []byte
	}{{a, ka}, {b, kb}} {
		text, rest, err := DecodeKeyColumn(nil, KindNumeric, p.k)
		if err != nil || len(rest) != 0 || string(text) != p.s {
			t.Fatalf("seed %d: decode %x = %q, %d left, %v; want %q", seed, p.k, text, len(rest), err, p.s)
		}
	}
}

// TestTimeKeyOrder checks dates and timestamps against the order of the
// instants they print (all offsets +00 or none, as under TimeZone=UTC).
func TestTimeKeyOrder(t *testing.T) {
	dates := []string{"-infinity", "4713-01-01 BC", "0044-03-15 BC", "0001-12-31 BC", "0001-01-01", "0999-12-31", "1000-01-01", "2026-02-28", "2026-11-30", "9999-12-31", "10000-01-01", "5874897-12-31", "infinity"}
	assertSortedKeys(t, KindDate, dates)
	ts := []string{"-infinity", "0044-03-15 12:00:00 BC", "0044-03-15 12:00:00.5 BC", "0001-01-01 00:00:00",
		"2026-11-30 09:59:59.999999", "2026-11-30 10:00:00", "2026-11-30 10:00:00.000001", "2026-11-30 10:00:00.1", "2026-11-30 10:00:00.12", "2026-11-30 10:00:00.2",
		"2026-11-30 10:00:01", "10000-01-01 00:00:00", "294276-12-31 23:59:59.999999", "infinity"}
	assertSortedKeys(t, KindTimestamp, ts)
	tstz := make([]string, 0, len(ts))
	for _, s := range ts {
		if strings.HasSuffix(s, "infinity") {
			tstz = append(tstz, s)
		} else if b, ok := strings.CutSuffix(s, " BC"); ok {
			tstz = append(tstz, b+"+00 BC")
		} else {
			tstz = append(tstz, s+"+00")
		}
	}
	assertSortedKeys(t, KindTimestamp, tstz)
}

func assertSortedKeys(t *testing.T, kind KeyKind, texts []string) {
	t.Helper()
	c := mustCodec(t, kind)
	var prev []byte
	for i, s := range texts {
		k, err := c.Encode(s)
		if err != nil {
			t.Fatalf("%v: %q: %v", kind, s, err)
		}
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			t.Fatalf("%v: key of %q (%x) not above key of %q (%x)", kind, s, k, texts[i-1], prev)
		}
		got, err := c.Decode(k)
		if err != nil || got[0] != s {
			t.Fatalf("%v: round trip %q -> %q, %v", kind, s, got, err)
		}
		prev = k
	}
}

// TestCompositeKeyOrder: composite keys order column by column, whatever
// the byte lengths of the columns, and prefixes are byte prefixes.
func TestCompositeKeyOrder(t *testing.T) {
	seed := seed.New(t, seedFlag)
	r := rand.New(rand.NewPCG(seed, 4))
	c := mustCodec(t, KindBytes, KindInt4, KindBytes)
	type tuple struct {
		a string
		b int64
		c string
	}
	strs := []string{"", "a", "a\x00", "a\x00b", "ab", "b", "\x00", "\x01", "\xff", "a\x01"}
	var tuples []tuple
	for range 300 {
		tuples = append(tuples, tuple{strs[r.IntN(len(strs))], int64(r.IntN(5)) - 2, strs[r.IntN(len(strs))]})
	}
	cmpTuple := func(x, y tuple) int {
		if c := strings.Compare(x.a, y.a); c != 0 {
			return c
		}
		if c := cmpInt(x.b, y.b); c != 0 {
			return c
		}
		return strings.Compare(x.c, y.c)
	}
	for _, x := range tuples {
		kx, err := c.Encode(x.a, strconv.FormatInt(x.b, 10), x.c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Decode(kx)
		if err != nil || !slices.Equal(got, []string{x.a, strconv.FormatInt(x.b, 10), x.c}) {
			t.Fatalf("seed %d: round trip %+v: %q %v", seed, x, got, err)
		}
		prefix, err := c.AppendPrefix(nil, [][]byte{[]byte(x.a)})
		if err != nil || !bytes.HasPrefix(kx, prefix) {
			t.Fatalf("seed %d: prefix %x of %x: %v", seed, prefix, kx, err)
		}
		for _, y := range tuples[:40] {
			ky, _ := c.Encode(y.a, strconv.FormatInt(y.b, 10), y.c)
			if got, want := bytes.Compare(kx, ky), cmpTuple(x, y); got != want {
				t.Fatalf("seed %d: %+v vs %+v: bytes %d want %d", seed, x, y, got, want)
			}
		}
	}
}

func TestKindForType(t *testing.T) {
	cases := map[string]KeyKind{
		"int4": KindInt4, "integer": KindInt4, "bigint": KindInt8, "smallint": KindInt2,
		"numeric(12,2)": KindNumeric, "boolean": KindBool, "timestamp with time zone": KindTimestamp,
		"timestamp(3) without time zone": KindTimestamp, "date": KindDate, "text": KindBytes,
		"uuid": KindBytes, "character varying(20)": KindBytes, "my_enum": KindBytes,
		"timestamp with time zone[]": KindBytes, "timestamp_thing": KindBytes, "public.int4": KindBytes, "timestamptz": KindTimestamp, "integer[]": KindBytes, "numeric(5,2)[]": KindBytes,
	}
	for name, want := range cases {
		if got := KindForType(name); got != want {
			t.Errorf("KindForType(%q) = %v, want %v", name, got, want)
		}
	}
	if KindForOID(1184) != KindTimestamp || KindForOID(25) != KindBytes || KindForOID(20) != KindInt8 {
		t.Error("KindForOID mismatch")
	}
}

// FuzzDecodeKeyColumn: any bytes a kind accepts re-encode to exactly the
// bytes it consumed, so a stored key has one text and one encoding.
func FuzzDecodeKeyColumn(f *testing.F) {
	for k := KindBytes; k < numKinds; k++ {
		for _, s := range []string{"0", "1.50", "t", "2026-11-30", "2026-11-30 10:00:00.5+00", "abc"} {
			if key, err := AppendKeyColumn(nil, k, []byte(s)); err == nil {
				f.Add(uint8(k), key)
			}
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		k := KeyKind(kind%uint8(numKinds-1)) + 1
		text, rest, err := DecodeKeyColumn(nil, k, data)
		if err != nil {
			if !errors.Is(err, ErrCorruptKey) {
				t.Fatalf("%v: error does not wrap ErrCorruptKey: %v", k, err)
			}
			return
		}
		consumed := data[:len(data)-len(rest)]
		re, err := AppendKeyColumn(nil, k, text)
		if err != nil {
			t.Fatalf("%v: decoded %x to %q, which does not encode: %v", k, consumed, text, err)
		}
		if !bytes.Equal(re, consumed) {
			t.Fatalf("%v: %x decodes to %q which encodes to %x", k, consumed, text, re)
		}
	})
}

// FuzzKeyText: any text a kind accepts decodes back to itself.
func FuzzKeyText(f *testing.F) {
	for _, s := range []string{"0", "-12.340", "NaN", "t", "0044-03-15 BC", "2026-11-30 10:00:00.5+00", "a\x00b", "-32768"} {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, kind uint8, s string) {
		k := KeyKind(kind%uint8(numKinds-1)) + 1
		key, err := AppendKeyColumn(nil, k, []byte(s))
		if err != nil {
			return
		}
		text, rest, err := DecodeKeyColumn(nil, k, key)
		if err != nil || len(rest) != 0 || string(text) != s {
			t.Fatalf("%v: %q -> %x -> %q (%d left): %v", k, s, key, text, len(rest), err)
		}
	})
}

// FuzzNumericOrder compares the key order of two numerics built from fuzz
// input with math/big.
func FuzzNumericOrder(f *testing.F) {
	f.Add(int64(15), uint8(1), int64(150), uint8(2))
	f.Add(int64(-1), uint8(0), int64(0), uint8(3))
	f.Fuzz(func(t *testing.T, a int64, as uint8, b int64, bs uint8) {
		sa, sb := numText(a, int(as%30)), numText(b, int(bs%30))
		checkNumericOrder(t, 0, sa, sb)
	})
}

// numText renders m × 10^-scale as numeric_out would, with scale digits.
func numText(m int64, scale int) string {
	r := new(big.Rat).SetFrac(big.NewInt(m), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	s := r.FloatString(scale)
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
		s = s[1:]
	}
	return s
}

func FuzzIntOrder(f *testing.F) {
	f.Add(int64(-1), int64(0))
	f.Fuzz(func(t *testing.T, a, b int64) {
		checkIntOrder(t, 0, KindInt8, a, b)
		checkIntOrder(t, 0, KindInt4, int64(int32(a)), int64(int32(b)))
		checkIntOrder(t, 0, KindInt2, int64(int16(a)), int64(int16(b)))
	})
}

func BenchmarkEncodeKey(b *testing.B) {
	for _, c := range []struct {
		kind KeyKind
		text string
	}{{KindInt8, "1234567890"}, {KindNumeric, "-12345.6700"}, {KindBytes, "user@example.com"}, {KindTimestamp, "2026-11-30 10:00:00.123456+00"}} {
		b.Run(fmt.Sprint(c.kind), func(b *testing.B) {
			text := []byte(c.text)
			buf := make([]byte, 0, 64)
			for b.Loop() {
				buf, _ = AppendKeyColumn(buf[:0], c.kind, text)
			}
		})
	}
}

func TestEncodeDecodeKeyShorthands(t *testing.T) {
	kinds := []KeyKind{KindInt4, KindBytes, KindNumeric}
	key, err := EncodeKey(kinds, "-7", "a\x00b", "1.50")
	if err != nil {
		t.Fatal(err)
	}
	texts, err := DecodeKey(key, kinds)
	if err != nil || !slices.Equal(texts, []string{"-7", "a\x00b", "1.50"}) {
		t.Fatalf("DecodeKey = %q, %v", texts, err)
	}
	if _, err := DecodeKey(append(key, 0), kinds); !errors.Is(err, ErrCorruptKey) {
		t.Fatalf("trailing byte: %v", err)
	}
	if _, err := EncodeKey(kinds, "1", "x"); err == nil {
		t.Fatal("EncodeKey accepted too few texts")
	}
}
