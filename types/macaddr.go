package types

import "encoding/hex"

// The MAC address types (PostgreSQL's utils/adt/mac.c and mac8.c).
const (
	Macaddr  OID = 829
	Macaddr8 OID = 774
)

// MacaddrVal is a macaddr's six bytes; Macaddr8Val a macaddr8's eight.
// Both compare bytewise (macaddr_cmp's hibits, lobits) and hash their
// bytes.
type (
	MacaddrVal  [6]byte
	Macaddr8Val [8]byte
)

// isSpaceC is C's isspace in the C locale.
func isSpaceC(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// scanState is one attempt of macaddr_in's sscanf patterns.
type scanState struct {
	s           string
	i           int
	unsupported bool // an input glibc reads in a way not reproduced here (0x prefixes)
}

// hex reads %x (width 0: unlimited) or %2x as glibc does: whitespace
// skipped, an optional sign, then hex digits into an unsigned long
// (saturating). ok is false on a matching failure.
func (st *scanState) hex(width int) (int, bool) {
	for st.i < len(st.s) && isSpaceC(st.s[st.i]) {
		st.i++
	}
	neg := false
	if st.i < len(st.s) && (st.s[st.i] == '+' || st.s[st.i] == '-') {
		// A sign counts toward the width; strtoul negates in unsigned long.
		neg = st.s[st.i] == '-'
		st.i++
		if width > 0 {
			if width--; width == 0 {
				return 0, false
			}
		}
	}
	if st.i+1 < len(st.s) && st.s[st.i] == '0' && (st.s[st.i+1] == 'x' || st.s[st.i+1] == 'X') && (width == 0 || width > 1) {
		st.unsupported = true
		return 0, false
	}
	var v uint64
	n, saturated := 0, false
	for st.i < len(st.s) && (width == 0 || n < width) {
		h := hexVal(int(st.s[st.i]))
		if h < 0 {
			break
		}
		if v>>60 != 0 {
			saturated = true // strtoul's ULONG_MAX
		}
		v = v<<4 | uint64(h)
		n++
		st.i++
	}
	if saturated {
		v = 1<<64 - 1
	} else if neg {
		v = -v
	}
	// The unsigned long is stored through an int pointer: its low 32
	// bits, as a signed int (macaddr_in then refuses a negative octet).
	return int(int32(uint32(v))), n > 0
}

// lit matches one literal character of the format.
func (st *scanState) lit(c byte) bool {
	if st.i < len(st.s) && st.s[st.i] == c {
		st.i++
		return true
	}
	return false
}

// trailing is %1s: true when a non-space character follows.
func (st *scanState) trailing() bool {
	for st.i < len(st.s) && isSpaceC(st.s[st.i]) {
		st.i++
	}
	return st.i < len(st.s)
}

// scanMac runs one of macaddr_in's sscanf formats: widths and
// separators per octet (sep[k] follows octet k, 0 for none); it reports
// whether all six octets were read with nothing but spaces after.
func scanMac(s string, width int, sep [5]byte) (oct [6]int, ok, unsupported bool) {
	st := &scanState{s: s}
	for k := 0; k < 6; k++ {
		v, got := st.hex(width)
		if !got {
			return oct, false, st.unsupported
		}
		oct[k] = v
		if k < 5 && sep[k] != 0 && !st.lit(sep[k]) {
			return oct, false, false
		}
	}
	return oct, !st.trailing(), false
}

// parseMacaddr is macaddr_in: the first of its seven sscanf patterns
// that reads six octets; 22003 for an octet above 255. An input on
// which glibc's %x would read a 0x prefix is refused (0A000) rather
// than guessed.
func parseMacaddr(s string) (MacaddrVal, error) {
	var m MacaddrVal
	pats := []struct {
		width int
		sep   [5]byte
	}{
		{0, [5]byte{':', ':', ':', ':', ':'}},
		{0, [5]byte{'-', '-', '-', '-', '-'}},
		{2, [5]byte{0, 0, ':', 0, 0}},
		{2, [5]byte{0, 0, '-', 0, 0}},
		{2, [5]byte{0, '.', 0, '.', 0}},
		{2, [5]byte{0, '-', 0, '-', 0}},
		{2, [5]byte{}},
	}
	for _, p := range pats {
		oct, ok, unsupported := scanMac(s, p.width, p.sep)
		if unsupported {
			return m, errorf(CodeUnsupported, "sidecar does not read the macaddr input \"%s\" (0x prefixes)", s)
		}
		if !ok {
			continue
		}
		for k, v := range oct {
			if v < 0 || v > 255 {
				return m, errorf(CodeOutOfRange, "invalid octet value in \"macaddr\" value: \"%s\"", s)
			}
			m[k] = byte(v)
		}
		return m, nil
	}
	return m, syntaxErr(Macaddr, s)
}

// parseMacaddr8 is macaddr8_in: pairs of hex digits with one spacer
// kind (: - .) throughout, six bytes (stored with ff:fe in the middle)
// or eight.
func parseMacaddr8(s string) (Macaddr8Val, error) {
	var m Macaddr8Val
	var b [8]byte
	p, count := 0, 0
	var spacer byte
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	for at(p) != 0 && isSpaceC(at(p)) {
		p++
	}
	for at(p) != 0 && at(p+1) != 0 {
		count++
		if count > 8 {
			return m, syntaxErr(Macaddr8, s)
		}
		hi, lo := hexVal(int(at(p))), hexVal(int(at(p+1)))
		if hi < 0 || lo < 0 {
			return m, syntaxErr(Macaddr8, s)
		}
		b[count-1] = byte(hi<<4 | lo)
		p += 2
		if c := at(p); c == ':' || c == '-' || c == '.' {
			if spacer == 0 {
				spacer = c
			} else if spacer != c {
				return m, syntaxErr(Macaddr8, s)
			}
			p++
		}
		if (count == 6 || count == 8) && isSpaceC(at(p)) {
			p++
			for at(p) != 0 && isSpaceC(at(p)) {
				p++
			}
			if at(p) != 0 {
				return m, syntaxErr(Macaddr8, s)
			}
		}
	}
	switch count {
	case 6:
		return Macaddr8Val{b[0], b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]}, nil
	case 8:
		return Macaddr8Val(b), nil
	}
	return m, syntaxErr(Macaddr8, s)
}

// appendMac is macaddr_out / macaddr8_out: lower-case hex pairs joined
// by colons.
func appendMac(dst []byte, b []byte) []byte {
	for i, x := range b {
		if i > 0 {
			dst = append(dst, ':')
		}
		dst = hex.AppendEncode(dst, []byte{x})
	}
	return dst
}

// MacaddrToMacaddr8 is macaddrtomacaddr8: ff:fe inserted in the middle.
func MacaddrToMacaddr8(m MacaddrVal) Macaddr8Val {
	return Macaddr8Val{m[0], m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]}
}

// Macaddr8ToMacaddr is macaddr8tomacaddr: 22003 unless the middle bytes
// are ff:fe.
func Macaddr8ToMacaddr(m Macaddr8Val) (MacaddrVal, error) {
	if m[3] != 0xff || m[4] != 0xfe {
		e := errorf(CodeOutOfRange, "macaddr8 data out of range to convert to macaddr")
		e.Hint = "Only addresses that have FF and FE as values in the 4th and 5th bytes from the left, for example xx:xx:xx:ff:fe:xx:xx:xx, are eligible to be converted from macaddr8 to macaddr."
		return MacaddrVal{}, e
	}
	return MacaddrVal{m[0], m[1], m[2], m[5], m[6], m[7]}, nil
}

// recvMacaddr8 is macaddr8_recv: eight bytes, or six (ff:fe inserted).
func recvMacaddr8(b []byte) (Value, error) {
	switch len(b) {
	case 6:
		return MacaddrToMacaddr8(MacaddrVal(b)), nil
	case 8:
		return Macaddr8Val(b), nil
	}
	return nil, errorf(CodeInvalidBinary, "incorrect binary data format")
}
