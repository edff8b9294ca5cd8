// Package inetgen generates inet and cidr input texts for the
// differential tests of the network types against PostgreSQL: IPv4 and
// IPv6 addresses with every mask length, zero runs of every length and
// position (the :: compression cases), IPv4-mapped and -compatible
// IPv6, classful cidr shorthands, and malformed inputs.
package inetgen

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Inputs is n input texts from the generator seeded with seed: about
// 40 % IPv4, 45 % IPv6, 15 % malformed or odd spellings.
func Inputs(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := append([]string(nil), fixed...)
	for len(out) < n {
		switch k := r.IntN(20); {
		case k < 8:
			out = append(out, v4(r))
		case k < 17:
			out = append(out, v6(r))
		default:
			out = append(out, odd(r))
		}
	}
	return out
}

// Valid is inputs of well-formed addresses only (for ordering, joins
// and functions): Inputs' IPv4 and IPv6 cases.
func Valid(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []string
	for len(out) < n {
		if r.IntN(2) == 0 {
			out = append(out, v4full(r))
		} else {
			out = append(out, v6(r))
		}
	}
	return out
}

var fixed = []string{
	"0.0.0.0", "0.0.0.0/0", "255.255.255.255", "255.255.255.255/32", "192.168.1.1/24", "192.168.1.0/24", "10.0.0.0/8",
	"10", "10.1", "10.1.2", "10/8", "10.1/16", "128", "192", "224", "224.1", "240", "223.255", "1.2.3.4.", "1.2.3.4/33",
	"01.02.03.04", "0x0a", "0x0a0b0c0d", "0x0A0b/16", "0x", "0xg", "256.1.1.1", "1.2.3.4/", "1.2.3.4/ 8", " 1.2.3.4", "1.2.3.4 ",
	"1.2.3.4/8", "1.2.3.0/24", "1.2.3.4/032", "1.2..4", "1.2.3.4.5", "", "/8", "a.b.c.d",
	"::", "::/0", "::1", "::1/128", "1::", "1::/16", "::ffff:1.2.3.4", "::ffff:1.2.3.4/120", "::1.2.3.4", "::0.0.0.1", "::ffff:0.0.0.0",
	"1:2:3:4:5:6:7:8", "1:0:0:0:0:0:0:8", "1:0:0:2:0:0:0:3", "1:0:0:2:0:0:3:4", "0:0:1:0:0:1:0:0", "fe80::1%eth0", "FE80::ABCD",
	"1:2:3:4:5:6:1.2.3.4", "1::2::3", ":1::2", "1:::2", "12345::1", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "::1/129", "::1/08", "::1/0",
	"2001:db8::/32", "2001:db8::1/32", "2001:db8:0:0:1:0:0:1", "::ffff:1.2.3.4/96", "::1.2.3.4/130", "::1..2.3", "::01.2.3.4", "::1.2.3",
	"0:0:0:0:0:ffff:102:304", "0:0:0:0:0:0:102:304", "::2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "1:2:3:4:5:6::8", "1::/", "::/ 8", ":::",
}

func v4full(r *rand.Rand) string {
	var b strings.Builder
	for i := 0; i < 4; i++ {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(octet(r)))
	}
	if r.IntN(3) > 0 {
		b.WriteString("/" + strconv.Itoa(r.IntN(33)))
	}
	return b.String()
}

func octet(r *rand.Rand) int {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return 255
	}
	return r.IntN(256)
}

func v4(r *rand.Rand) string {
	if r.IntN(4) > 0 {
		return v4full(r)
	}
	// Fewer octets (cidr's shorthand; inet refuses most).
	n := 1 + r.IntN(3)
	var parts []string
	for i := 0; i < n; i++ {
		parts = append(parts, strconv.Itoa(octet(r)))
	}
	s := strings.Join(parts, ".")
	if r.IntN(2) == 0 {
		s += "/" + strconv.Itoa(r.IntN(33))
	}
	return s
}

func v6(r *rand.Rand) string {
	var w [8]int
	for i := range w {
		switch r.IntN(3) {
		case 0:
			w[i] = 0
		case 1:
			w[i] = r.IntN(0x10000)
		default:
			w[i] = r.IntN(16)
		}
	}
	// A run of zeros somewhere, of any length.
	if r.IntN(2) == 0 {
		start := r.IntN(8)
		l := 1 + r.IntN(8-start)
		for i := start; i < start+l; i++ {
			w[i] = 0
		}
	}
	var s string
	switch r.IntN(6) {
	case 0: // IPv4-mapped / compatible
		pre := "::ffff:"
		if r.IntN(2) == 0 {
			pre = "::"
		}
		s = pre + strconv.Itoa(octet(r)) + "." + strconv.Itoa(octet(r)) + "." + strconv.Itoa(octet(r)) + "." + strconv.Itoa(octet(r))
	case 1: // full form, no compression
		parts := make([]string, 8)
		for i, x := range w {
			parts[i] = strconv.FormatInt(int64(x), 16)
		}
		s = strings.Join(parts, ":")
	default: // compress the first run of zeros of length ≥ 1
		parts := make([]string, 8)
		for i, x := range w {
			parts[i] = strconv.FormatInt(int64(x), 16)
		}
		i := 0
		for i < 8 && w[i] != 0 {
			i++
		}
		j := i
		for j < 8 && w[j] == 0 {
			j++
		}
		if i < 8 {
			s = strings.Join(parts[:i], ":") + "::" + strings.Join(parts[j:], ":")
		} else {
			s = strings.Join(parts, ":")
		}
	}
	if r.IntN(5) == 0 {
		s = strings.ToUpper(s)
	}
	if r.IntN(3) > 0 {
		bits := r.IntN(129)
		if r.IntN(4) == 0 {
			bits = []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 96, 112, 120, 127, 128}[r.IntN(16)]
		}
		s += "/" + strconv.Itoa(bits)
	}
	return s
}

func odd(r *rand.Rand) string {
	base := v4full(r)
	if r.IntN(2) == 0 {
		base = v6(r)
	}
	switch r.IntN(8) {
	case 0:
		return " " + base
	case 1:
		return base + "/"
	case 2:
		return strings.Replace(base, ".", "..", 1)
	case 3:
		return strings.Replace(base, ":", ":::", 1)
	case 4:
		return "0x" + strconv.FormatInt(int64(r.Uint32()), 16)
	case 5:
		return base + "/" + strconv.Itoa(129+r.IntN(100))
	case 6:
		return strings.Replace(base, "1", "01", 1)
	}
	return base + "x"
}
