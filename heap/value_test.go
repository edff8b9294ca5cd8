package heap

import (
	"math"
	"strconv"
	"testing"
)

// TestValueRoundTrip: every kind's edge texts parse and print back to the
// same bytes, with the exception flag where the text is kept instead.
func TestValueRoundTrip(t *testing.T) {
	cases := []struct {
		kind  Kind
		texts []string
		exc   []string // texts that must be kept as exceptions
		bad   []string // texts that must not parse
	}{
		{KindInt2, []string{"0", "-1", "1", "32767", "-32768"}, nil, []string{"32768", "-32769", "+1", "01", "-0", "", "1.0", " 1"}},
		{KindInt4, []string{"0", "2147483647", "-2147483648", "42"}, nil, []string{"2147483648", "-2147483649"}},
		{KindInt8, []string{"0", "9223372036854775807", "-9223372036854775808", "-5"}, nil, []string{"9223372036854775808", "-9223372036854775809", "99999999999999999999"}},
		{KindBool, []string{"t", "f"}, nil, []string{"true", "1", ""}},
		{KindFloat8, []string{"0", "-0", "NaN", "Infinity", "-Infinity", "1", "-1.5", "0.1", "1e+15", "100000000000000", "0.0001", "1e-05",
			"1.7976931348623157e+308", "5e-324", "2.2250738585072014e-308", "123456789.12345679", "3.141592653589793", "-1e+100", "1.5e-07"},
			[]string{"1.0", "1e15", "+1"}, []string{"abc", ""}},
		{KindFloat4, []string{"0", "-0", "NaN", "Infinity", "-Infinity", "1.5", "100000", "1e+06", "3.4028235e+38", "1e-45", "0.1", "1.1754944e-38", "0.0001", "1e-05"},
			nil, nil},
		{KindNumeric, []string{"0", "1", "-1", "0.5", "-0.5", "0.00", "123.450", "999999999999999999", "-999999999999999999", "0.000000000000000000000001", "12345678.123456789"},
			[]string{"NaN", "Infinity", "-Infinity", "1234567890123456789", "-12345678901234567890.123456789", "-0", "007", "0." + string(make([]byte, 0))},
			[]string{"", "-", "1.2.3", "abc", ".5", "5."}},
		{KindDate, []string{"2000-01-01", "1999-12-31", "2024-02-29", "0001-01-01", "0001-12-31 BC", "4713-01-01 BC", "5874897-12-31", "infinity", "-infinity", "0044-03-15 BC", "10000-01-01"},
			nil, []string{"2024-13-01", "24-01-01", "2024-01-01 00:00:00", "4714-11-23 BC"}},
		{KindTimestamp, []string{"2000-01-01 00:00:00", "1999-12-31 23:59:59.999999", "2024-06-01 12:34:56.5", "0001-01-01 00:00:00 BC", "294276-12-31 23:59:59.999999", "infinity", "-infinity", "1970-01-01 00:00:00.000001"},
			nil, []string{"2024-01-01 00:00:00+00", "2024-01-01 24:00:00", "2024-01-01"}},
		{KindTimestampTZ, []string{"2000-01-01 00:00:00+00", "2024-06-01 12:34:56.123+00", "0044-03-15 12:00:00+00 BC", "infinity", "-infinity"},
			[]string{"2024-06-01 12:34:56+05:30", "2024-06-01 12:34:56-03"}, []string{"2024-06-01 12:34:56"}},
	}
	for _, tc := range cases {
		t.Run(tc.kind.String(), func(t *testing.T) {
			check := func(text string, wantExc bool) {
				v, err := parseTyped(tc.kind, []byte(text))
				if err != nil {
					t.Fatalf("parse %q: %v", text, err)
				}
				if v.exc != wantExc {
					t.Fatalf("%q: exception %v, want %v", text, v.exc, wantExc)
				}
				if !v.exc {
					if got := string(appendTyped(nil, tc.kind, v.i, v.f, v.scale)); got != text {
						t.Fatalf("round trip %q → %q", text, got)
					}
				}
			}
			for _, s := range tc.texts {
				check(s, false)
			}
			for _, s := range tc.exc {
				if s == "0." {
					continue
				}
				check(s, true)
			}
			for _, s := range tc.bad {
				if _, err := parseTyped(tc.kind, []byte(s)); err == nil {
					t.Fatalf("parse %q: no error", s)
				}
			}
		})
	}
}

// TestTimestampOffset: a timestamptz printed with another offset is still
// the right instant.
func TestTimestampOffset(t *testing.T) {
	a, _ := parseTyped(KindTimestampTZ, []byte("2024-06-01 12:34:56+05:30"))
	b, _ := parseTyped(KindTimestampTZ, []byte("2024-06-01 07:04:56+00"))
	if a.i != b.i {
		t.Fatalf("%d != %d", a.i, b.i)
	}
}

// TestFloatShortest: random doubles print as the shortest text that reads
// back exactly (the property float8out guarantees).
func TestFloatShortest(t *testing.T) {
	for i := range 100000 {
		f := math.Float64frombits(uint64(i)*0x9E3779B97F4A7C15 + 12345)
		if math.IsNaN(f) {
			continue
		}
		s := appendFloat(nil, f, 64)
		g, err := strconv.ParseFloat(string(s), 64)
		if err != nil || g != f {
			t.Fatalf("%v printed %q reads %v (%v)", f, s, g, err)
		}
	}
}

// TestDateEpoch pins the epoch: day 0 is 2000-01-01, day -1 1999-12-31.
func TestDateEpoch(t *testing.T) {
	for _, c := range []struct {
		s string
		d int64
	}{{"2000-01-01", 0}, {"1999-12-31", -1}, {"2000-03-01", 60}, {"1970-01-01", -10957}} {
		v, err := parseTyped(KindDate, []byte(c.s))
		if err != nil || v.i != c.d {
			t.Fatalf("%s: %d %v, want %d", c.s, v.i, err, c.d)
		}
	}
}
