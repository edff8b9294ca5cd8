package builtin_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// randNumFormat is a to_char number format: mostly well-formed pictures
// (sign, digits with group separators, decimals, suffixes), a fifth
// random patterns (PostgreSQL's syntax errors must match too).
func randNumFormat(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	if rng.IntN(5) == 0 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pick("9", "0", ".", "D", ",", "G", "S", "MI", "PL", "SG", "PR", "FM", "TH", "th", "V", "L", "B", "C",
				"EEEE", "RN", "rn", " ", `"x"`, "x", "-", "SP", "9", "99", "0", "fm", "mi", "s", "d", "g", `\"`))
		}
		return b.String()
	}
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteString("FM")
	}
	b.WriteString(pick("", "", "", "S", "L", "SG", "MI", "PL", " ", `"$"`))
	for i := range 1 + rng.IntN(12) {
		if i > 0 && rng.IntN(5) == 0 {
			b.WriteString(pick(",", "G", " "))
		}
		b.WriteString(pick("9", "9", "9", "0"))
	}
	switch rng.IntN(4) {
	case 0, 1:
		b.WriteString(pick(".", "D"))
		for range rng.IntN(8) {
			b.WriteString(pick("9", "0", "9"))
		}
	case 2:
		if rng.IntN(2) == 0 {
			b.WriteString("V" + strings.Repeat("9", rng.IntN(4)))
		}
	}
	b.WriteString(pick("", "", "", "S", "MI", "PL", "SG", "PR", "TH", "th", "EEEE", " x"))
	return b.String()
}

// randNumber is a value of typ spread over magnitudes, as its literal.
func randNumber(rng *rand.Rand, typ string) string {
	sign := ""
	if rng.IntN(2) == 0 {
		sign = "-"
	}
	switch typ {
	case "int4":
		return strconv.FormatInt(int64(int32(rng.Uint32()))>>rng.IntN(32), 10)
	case "int8":
		return strconv.FormatInt(int64(rng.Uint64())>>rng.IntN(64), 10)
	case "float8", "float4":
		switch rng.IntN(20) {
		case 0:
			return pickS(rng, "NaN", "Infinity", "-Infinity", "0", "-0", "0.5", "2.5", "-1.5")
		}
		v := (1 + 9*rng.Float64()) * math.Pow(10, float64(rng.IntN(24)-8))
		if rng.IntN(3) == 0 {
			v = math.Round(v*100) / 100
		}
		return sign + strconv.FormatFloat(v, 'g', -1, 64)
	}
	if rng.IntN(20) == 0 {
		return pickS(rng, "NaN", "Infinity", "-Infinity", "0", "0.000", "0.5", "-0.5", "9.995")
	}
	digits := strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 10)
	if p := rng.IntN(len(digits) + 3); p < len(digits) {
		digits = digits[:p] + "." + digits[p:]
	} else if p > len(digits) {
		digits = "0." + strings.Repeat("0", p-len(digits)) + digits
	}
	return sign + digits
}

func pickS(rng *rand.Rand, xs ...string) string { return xs[rng.IntN(len(xs))] }

// TestToCharNumberMatchesPostgres: to_char over int4, int8, float4,
// float8 and numeric with random values and random format pictures
// answers as PostgreSQL (output or SQLSTATE), the regression suite's
// formats included.
func TestToCharNumberMatchesPostgres(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed.New(t, seedFlag), 0))
	fixed := []string{"9G999G999G999G999G999", "9,999,999,999,999,999", "9G999G999G999G999G999D999G999", "9999999999999999PR",
		"9999999999999999.999PR", "9999999999999999S", "S9999999999999999", "MI9999999999999999", "FMS9999999999999999",
		"FM9999999999999999THPR", "SG9999999999999999th", "0999999999999999", "S0999999999999999", "FM0999999999999999",
		"FM9999999999999999.000", "L9999999999999999.000", "FM9999999999999999.999", "S 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 . 9 9 9",
		`99999 "text" 9999 "9999" 999 "\"text between quote marks\"" 9999`, "999999SG9999999999", "FM9.999", "9.9EEEE",
		"RN", "FMRN", "rn", "9999V99", "FM00.00", "00.00", ".99", "9.", "FM9.", "FM999999.0000099", "", "text"}
	var cases []call
	for _, typ := range []string{"int4", "int8", "float4", "float8", "numeric"} {
		for range 500 {
			f := randNumFormat(rng)
			if rng.IntN(6) == 0 {
				f = fixed[rng.IntN(len(fixed))]
			}
			cases = append(cases, call{fn: "to_char", args: []arg{{typ: typ, val: randNumber(rng, typ)}, {typ: "text", val: f}}})
		}
		for _, f := range fixed {
			for _, v := range []string{"0", "1", "-1", "4567890123456789", "123", "-34338492", "3999", "0.5"} {
				if strings.HasPrefix(typ, "int") && v == "0.5" || typ == "int4" && len(v) > 10 {
					continue
				}
				cases = append(cases, call{fn: "to_char", args: []arg{{typ: typ, val: v}, {typ: "text", val: f}}})
			}
		}
	}
	runDifferential(t, cases)
}

// TestDegreeTrigMatchesPostgres: sind, cosd, tand, cotd, asind, acosd,
// atand and atan2d answer as PostgreSQL at the arguments they compute
// (the exact angles, NaN, the out-of-range errors) and refuse others.
func TestDegreeTrigMatchesPostgres(t *testing.T) {
	var angles []string
	for a := -720; a <= 720; a += 15 {
		angles = append(angles, strconv.Itoa(a))
	}
	angles = append(angles, "NaN", "Infinity", "-Infinity", "0.5", "1e300", "-0")
	ins := []string{"-1", "-0.5", "0", "0.5", "1", "-0", "2", "-1.5", "0.25", "NaN", "Infinity", "-Infinity", "1e300"}
	var cases []call
	for _, fn := range []string{"sind", "cosd", "tand", "cotd"} {
		cases = append(cases, cross(fn, vals("float8", angles...))...)
	}
	for _, fn := range []string{"asind", "acosd", "atand"} {
		cases = append(cases, cross(fn, vals("float8", ins...))...)
	}
	cases = append(cases, cross("atan2d", vals("float8", ins...), vals("float8", ins...))...)
	if runDifferential(t, cases) == 0 {
		t.Fatal("no cases")
	}
}

// TestFromCharMatchesPostgres: to_date and to_timestamp(text, text)
// answer as PostgreSQL for input spelling the format's numeric fields,
// and refuse the formats and input they do not read.
func TestFromCharMatchesPostgres(t *testing.T) {
	rng := rand.New(rand.NewPCG(seed.New(t, seedFlag), 0))
	formats := []string{"YYYYMMDD", "YYYY-MM-DD", "DD/MM/YYYY", "yyyy.mm.dd", "YYYY-MM-DD HH24:MI:SS", "YYYYMMDDHH24MISS", "MM-DD-YYYY",
		"YYYY", "YYYY-MM", "DD Mon YYYY", "YYYY-MM-DD HH12:MI", "FXYYYY-MM-DD", "YYYY--MM-DD", "HH24:MI", "Yyyy-MM-DD"}
	var cases []call
	for range 400 {
		f := formats[rng.IntN(len(formats))]
		y, m, d := 1+rng.IntN(2999), 1+rng.IntN(13), 1+rng.IntN(31)
		h, mi, s := rng.IntN(25), rng.IntN(61), rng.IntN(61)
		r := strings.NewReplacer("YYYY", pad(y, 4), "yyyy", pad(y, 4), "MM", pad(m, 2), "mm", pad(m, 2), "DD", pad(d, 2), "dd", pad(d, 2),
			"HH24", pad(h, 2), "MI", pad(mi, 2), "SS", pad(s, 2), "Mon", "Mar", "HH12", pad(h%12+1, 2), "FX", "", "Yyyy", pad(y, 4))
		in := r.Replace(f)
		switch rng.IntN(8) {
		case 0:
			in = " " + in
		case 1:
			in = strings.Replace(in, "-", "/", 1)
		case 2:
			if len(in) > 1 {
				in = in[1:]
			}
		}
		for _, fn := range []string{"to_date", "to_timestamp"} {
			cases = append(cases, call{fn: fn, args: []arg{{typ: "text", val: in}, {typ: "text", val: f}}})
		}
	}
	runDifferential(t, cases)
}

func pad(n, w int) string {
	s := strconv.Itoa(n)
	for len(s) < w {
		s = "0" + s
	}
	return s
}
