package builtin_test

import (
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// TestByteaMatchPostgres compares the bytea functions with PostgreSQL
// over fixed edge cases and seeded random byte strings.
func TestByteaMatchPostgres(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	byteas := vals("bytea", `\x`, `\x00`, `\x1234567890abcdef00`, "abc", "a_c", "a%c", `a\\b`, `\x5c`, `\x00546f6d00`, "Th\\000omas", `\xffff00ff`)
	for i := 0; i < 12; i++ {
		b := make([]byte, rng.Intn(70))
		for j := range b {
			if rng.Intn(3) == 0 {
				b[j] = byte(rng.Intn(256))
			} else {
				b[j] = "ab%_\\$\x00"[rng.Intn(7)]
			}
		}
		byteas = append(byteas[:len(byteas)-1], arg{typ: "bytea", val: fmt.Sprintf(`\x%x`, b)}, byteas[len(byteas)-1])
	}
	small := byteas[:9]
	var cases []call
	for _, fn := range []string{"length", "octet_length", "md5", "bit_count", "sha224", "sha256", "sha384", "sha512"} {
		cases = append(cases, cross(fn, byteas)...)
	}
	for _, fn := range []string{"byteacat", "bytealike", "byteanlike", "position", "btrim", "ltrim", "rtrim", "like_escape"} {
		cases = append(cases, cross(fn, byteas, small)...)
	}
	cases = append(cases, cross("bytealike", byteas, vals("bytea", "%", "_", "a%", "%\\\\", "%a%b%", "_b%", `\x5c`, "%_%_", "a%c", `\x00%`))...)
	cases = append(cases, cross("like_escape", vals("bytea", "a#%b", `a\\b`, "##x", "a#", "%#_", "x"), vals("bytea", "#", "", `\\`, "ab"))...)
	for _, fn := range []string{"substr", "substring"} {
		cases = append(cases, cross(fn, small, vals("int4", "0", "1", "2", "-1", "5", "100"))...)
		cases = append(cases, cross(fn, small, vals("int4", "0", "1", "-3", "4", "-10"), vals("int4", "0", "2", "-1", "100", "2147483646", "2147483647", "-2147483646"))...)
	}
	cases = append(cases, cross("overlay", small, vals("bytea", "xy", ""), vals("int4", "2", "1", "0", "10", "-1"))...)
	cases = append(cases, cross("overlay", small, vals("bytea", "xy"), vals("int4", "2", "1", "2147483647"), vals("int4", "4", "0", "-1", "100", "2147483647"))...)
	cases = append(cases, cross("get_bit", byteas, vals("int8", "0", "7", "8", "43", "71", "72", "-1", "99"))...)
	cases = append(cases, cross("set_bit", small, vals("int8", "0", "43", "72", "-1"), vals("int4", "0", "1", "2", "-1"))...)
	cases = append(cases, cross("get_byte", byteas, vals("int4", "0", "3", "8", "9", "-1"))...)
	cases = append(cases, cross("set_byte", small, vals("int4", "0", "7", "9", "-1"), vals("int4", "0", "11", "255", "256", "-1", "1000"))...)
	cases = append(cases, cross("encode", byteas, vals("text", "hex", "HEX", "base64", "Base64", "escape", "nope", ""))...)
	long := make([]arg, 0, 80)
	for n := 50; n < 130; n++ {
		b := make([]byte, n)
		rng.Read(b)
		long = append(long, arg{typ: "bytea", val: fmt.Sprintf(`\x%x`, b)})
	}
	cases = append(cases, cross("encode", long, vals("text", "base64", "escape", "hex"))...)
	texts := vals("text", "", "1234567890abcdef00", "12 34\n56", "123", "1g", "zz", "ABCDEF", `\000a\\b\1234`, `\`, `\0`, `\400`, `a\\`, `\12`,
		"EjRWeJCrze8AAQ==", "EjRW\neJCr", "EjRWeA", "EjRWe=A=", "=EjR", "Ej=W", "EjRWeJ==", "EjRWeJ=", "Ej Rw eJ Cr", "@@@@", "QUJD", "QQ==", "QUI=", "QQ=x")
	cases = append(cases, cross("decode", texts, vals("text", "hex", "base64", "escape", "ESCAPE", "bogus"))...)
	if n := runDifferential(t, cases); n < 3000 {
		t.Errorf("only %d calls compared", n)
	}
}

// TestFloatSendMatchesPostgres compares float8send and float4send with
// PostgreSQL's over normal, subnormal, extreme and signed-zero values;
// a NaN is refused. Before, both were 42883 (not in the library).
func TestFloatSendMatchesPostgres(t *testing.T) {
	f8s := vals("float8", "2.2250738585072014E-308", "0", "-0", "1", "-1.5", "1e308", "4.9e-324", "Infinity", "-Infinity", "3.141592653589793", "NaN")
	f4s := vals("float4", "0", "-0", "1.17549435e-38", "3.4028235e38", "1e-45", "-2.5", "Infinity", "NaN")
	cases := append(cross("float8send", f8s), cross("float4send", f4s)...)
	runDifferential(t, cases)
	var answered []call
	for _, c := range cases {
		if c.args[0].val != "NaN" {
			answered = append(answered, c)
		}
	}
	noRefusals(t, answered)
}
