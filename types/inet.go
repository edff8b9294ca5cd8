package types

import (
	"hash/maphash"
	"strconv"
)

// The network address types (PostgreSQL's utils/adt/network.c,
// inet_net_pton.c, inet_net_ntop.c, inet_cidr_ntop.c).
const (
	Inet OID = 869
	Cidr OID = 650
)

// InetVal is an inet or a cidr value: the family, the mask length and
// the address (an IPv4 address in Addr[:4], the rest zero). The type
// (inet or cidr) is the column's, not the value's: cidr is binary
// coercible to inet, and the two compare and hash alike.
type InetVal struct {
	V6   bool
	Bits uint8
	Addr [16]byte
}

// pgsqlAFInet and pgsqlAFInet6 are PGSQL_AF_INET and PGSQL_AF_INET6,
// the family bytes of inet_send.
const (
	pgsqlAFInet  = 2
	pgsqlAFInet6 = 3
)

// MaxBits is ip_maxbits: 32 or 128.
func (v InetVal) MaxBits() int {
	if v.V6 {
		return 128
	}
	return 32
}

// Size is ip_addrsize: 4 or 16 bytes.
func (v InetVal) Size() int {
	if v.V6 {
		return 16
	}
	return 4
}

// family is ip_family.
func (v InetVal) family() int {
	if v.V6 {
		return pgsqlAFInet6
	}
	return pgsqlAFInet
}

// parseInet is inet_in (cidr false) and cidr_in (cidr true).
func parseInet(s string, cidr bool) (InetVal, error) {
	var v InetVal
	oid := Inet
	if cidr {
		oid = Cidr
	}
	bits := -1
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			v.V6 = true
			break
		}
	}
	switch {
	case v.V6:
		bits = ptonV6(s, &v.Addr)
	case cidr:
		bits = cidrPtonV4(s, &v.Addr)
	default:
		bits = inetPtonV4(s, &v.Addr)
	}
	if bits < 0 || bits > v.MaxBits() {
		return InetVal{}, syntaxErr(oid, s)
	}
	v.Bits = uint8(bits)
	if cidr && !inetAddressOK(v) {
		return InetVal{}, errorf(CodeInvalidText, "invalid cidr value: \"%s\"", s).detail("Value has bits set to right of mask.")
	}
	return v, nil
}

// cstr reads s as a C string does: the byte at i, 0 past the end.
func cstr(s string, i int) int {
	if i < len(s) {
		return int(s[i])
	}
	return 0
}

func isDigitC(c int) bool { return c >= '0' && c <= '9' }

func hexVal(c int) int {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return -1
}

// readBits reads the decimal digits from s[i] (one at least) as
// pton's width loops do; the value saturates (it is checked against 32
// or 128 after). It returns the value and the first byte after them
// (0 at the end) and its index + 1.
func readBits(s string, i int) (bits, ch, next int) {
	ch = cstr(s, i)
	i++
	for {
		if bits < 1000 {
			bits = bits*10 + ch - '0'
		}
		ch = cstr(s, i)
		i++
		if ch == 0 || !isDigitC(ch) {
			return bits, ch, i
		}
	}
}

// readOctet reads a decimal octet whose first digit ch was read (the
// next byte is at i): its value (-1 above 255), the byte after it and
// that byte's index + 1.
func readOctet(s string, i, ch int) (v, next, at int) {
	for {
		v = v*10 + ch - '0'
		if v > 255 {
			return -1, 0, i
		}
		ch = cstr(s, i)
		i++
		if ch == 0 || !isDigitC(ch) {
			return v, ch, i
		}
	}
}

// inetPtonV4 is inet_net_pton_ipv4: the bits, or -1.
func inetPtonV4(s string, dst *[16]byte) int {
	n, i, ch := 0, 0, 0
	for {
		ch = cstr(s, i)
		i++
		if !isDigitC(ch) {
			break
		}
		var tmp int
		if tmp, ch, i = readOctet(s, i, ch); tmp < 0 {
			return -1
		}
		if n == 4 {
			return -1
		}
		dst[n] = byte(tmp)
		n++
		if ch == 0 || ch == '/' {
			break
		}
		if ch != '.' {
			return -1
		}
	}
	bits := -1
	if ch == '/' && isDigitC(cstr(s, i)) && n > 0 {
		bits, ch, i = readBits(s, i)
		if ch != 0 || bits > 32 {
			return -1
		}
	}
	if ch != 0 {
		return -1
	}
	if bits == -1 {
		if n != 4 {
			return -1
		}
		bits = 32
	}
	if n == 0 || bits/8 > n {
		return -1
	}
	for k := n; k < 16; k++ {
		dst[k] = 0
	}
	return bits
}

// cidrPtonV4 is inet_cidr_pton_ipv4 with size 4: hex strings, dotted
// decimal octets (fewer than four allowed), the classful default width.
func cidrPtonV4(s string, dst *[16]byte) int {
	const size = 4
	n, i := 0, 0
	ch := cstr(s, i)
	i++
	if ch == '0' && (cstr(s, i) == 'x' || cstr(s, i) == 'X') && hexVal(cstr(s, i+1)) >= 0 {
		dirty, tmp := 0, 0
		i++
		for {
			ch = cstr(s, i)
			i++
			h := hexVal(ch)
			if ch == 0 || h < 0 {
				break
			}
			if dirty == 0 {
				tmp = h
			} else {
				tmp = tmp<<4 | h
			}
			if dirty++; dirty == 2 {
				if n == size {
					return -1
				}
				dst[n] = byte(tmp)
				n++
				dirty = 0
			}
		}
		if dirty != 0 {
			if n == size {
				return -1
			}
			dst[n] = byte(tmp << 4)
			n++
		}
	} else if isDigitC(ch) {
		for {
			var tmp int
			if tmp, ch, i = readOctet(s, i, ch); tmp < 0 {
				return -1
			}
			if n == size {
				return -1
			}
			dst[n] = byte(tmp)
			n++
			if ch == 0 || ch == '/' {
				break
			}
			if ch != '.' {
				return -1
			}
			ch = cstr(s, i)
			i++
			if !isDigitC(ch) {
				return -1
			}
		}
	} else {
		return -1
	}
	bits := -1
	if ch == '/' && isDigitC(cstr(s, i)) && n > 0 {
		bits, ch, i = readBits(s, i)
		if ch != 0 || bits > 32 {
			return -1
		}
	}
	if ch != 0 || n == 0 {
		return -1
	}
	if bits == -1 {
		switch first := dst[0]; {
		case first >= 240:
			bits = 32
		case first >= 224:
			bits = 8
		case first >= 192:
			bits = 24
		case first >= 128:
			bits = 16
		default:
			bits = 8
		}
		if bits < n*8 {
			bits = n * 8
		}
		if bits == 8 && dst[0] == 224 {
			bits = 4
		}
	}
	for bits > n*8 {
		if n == size {
			return -1
		}
		dst[n] = 0
		n++
	}
	for k := n; k < 16; k++ {
		dst[k] = 0
	}
	return bits
}

// getBits is pton's getbits: decimal, no leading zeros, at most 128.
func getBits(s string) (int, bool) {
	val, n := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0 {
			break
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		if n != 0 && val == 0 {
			return 0, false
		}
		n++
		val = val*10 + int(c-'0')
		if val > 128 {
			return 0, false
		}
	}
	if n == 0 {
		return 0, false
	}
	return val, true
}

// getV4 is pton's getv4: a dotted quad (and a /width) inside an IPv6
// address, written to dst[:4].
func getV4(s string, dst []byte, bits *int) bool {
	val, n, o := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			if n != 0 && val == 0 {
				return false
			}
			n++
			val = val*10 + int(c-'0')
			if val > 255 {
				return false
			}
			continue
		}
		if c == '.' || c == '/' {
			if o > 3 {
				return false
			}
			dst[o] = byte(val)
			o++
			if c == '/' {
				b, ok := getBits(s[i+1:])
				if ok {
					*bits = b
				}
				return ok
			}
			val, n = 0, 0
			continue
		}
		return false
	}
	if n == 0 || o > 3 {
		return false
	}
	dst[o] = byte(val)
	return true
}

// ptonV6 is inet_cidr_pton_ipv6 (inet and cidr read IPv6 alike).
func ptonV6(s string, dst *[16]byte) int {
	var tmp [16]byte
	tp, colonp := 0, -1
	i := 0
	if cstr(s, 0) == ':' {
		i++
		if cstr(s, i) != ':' {
			return -1
		}
	}
	curtok := i
	sawX, val, digits, bits := false, 0, 0, -1
	for {
		ch := cstr(s, i)
		i++
		if ch == 0 {
			break
		}
		if h := hexVal(ch); h >= 0 {
			val = val<<4 | h
			if digits++; digits > 4 {
				return -1
			}
			sawX = true
			continue
		}
		if ch == ':' {
			curtok = i
			if !sawX {
				if colonp >= 0 {
					return -1
				}
				colonp = tp
				continue
			} else if cstr(s, i) == 0 {
				return -1
			}
			if tp+2 > 16 {
				return -1
			}
			tmp[tp], tmp[tp+1] = byte(val>>8), byte(val)
			tp += 2
			sawX, digits, val = false, 0, 0
			continue
		}
		if ch == '.' && tp+4 <= 16 && getV4(s[curtok:], tmp[tp:tp+4], &bits) {
			tp += 4
			sawX = false
			break
		}
		if ch == '/' {
			if b, ok := getBits(s[i:]); ok {
				bits = b
				break
			}
		}
		return -1
	}
	if sawX {
		if tp+2 > 16 {
			return -1
		}
		tmp[tp], tmp[tp+1] = byte(val>>8), byte(val)
		tp += 2
	}
	if bits == -1 {
		bits = 128
	}
	if colonp >= 0 {
		n := tp - colonp
		if tp == 16 {
			return -1
		}
		for k := 1; k <= n; k++ {
			tmp[16-k] = tmp[colonp+n-k]
			tmp[colonp+n-k] = 0
		}
		tp = 16
	}
	if tp != 16 {
		return -1
	}
	*dst = tmp
	return bits
}

// inetAddressOK is addressOK: no bit set right of the mask.
func inetAddressOK(v InetVal) bool {
	bits := int(v.Bits)
	if bits == v.MaxBits() {
		return true
	}
	b := bits / 8
	mask := byte(0xff)
	if bits != 0 {
		mask >>= uint(bits % 8)
	}
	for ; b < v.Size(); b++ {
		if v.Addr[b]&mask != 0 {
			return false
		}
		mask = 0xff
	}
	return true
}

// appendInet is inet_out (cidr false) and cidr_out: the address, then
// /bits unless an inet's mask is the full width.
func appendInet(dst []byte, v InetVal, cidr bool) []byte {
	dst = AppendInetNtop(dst, v, int(v.Bits))
	if cidr && int(v.Bits) == v.MaxBits() {
		dst = append(dst, '/')
		dst = strconv.AppendInt(dst, int64(v.Bits), 10)
	}
	return dst
}

// AppendInetNtop is pg_inet_net_ntop(family, addr, bits): all four
// octets of an IPv4 address, an IPv6 address with its longest run of
// zero words as ::, and /bits unless bits is the full width (or -1).
func AppendInetNtop(dst []byte, v InetVal, bits int) []byte {
	if !v.V6 {
		for i := 0; i < 4; i++ {
			if i > 0 {
				dst = append(dst, '.')
			}
			dst = strconv.AppendInt(dst, int64(v.Addr[i]), 10)
		}
		if bits != 32 {
			dst = append(dst, '/')
			dst = strconv.AppendInt(dst, int64(bits), 10)
		}
		return dst
	}
	var words [8]int
	for i := 0; i < 16; i++ {
		words[i/2] |= int(v.Addr[i]) << ((1 - i%2) * 8)
	}
	bestBase, bestLen, curBase, curLen := -1, 0, -1, 0
	for i := 0; i < 8; i++ {
		if words[i] == 0 {
			if curBase == -1 {
				curBase, curLen = i, 1
			} else {
				curLen++
			}
		} else if curBase != -1 {
			if bestBase == -1 || curLen > bestLen {
				bestBase, bestLen = curBase, curLen
			}
			curBase = -1
		}
	}
	if curBase != -1 && (bestBase == -1 || curLen > bestLen) {
		bestBase, bestLen = curBase, curLen
	}
	if bestBase != -1 && bestLen < 2 {
		bestBase = -1
	}
	for i := 0; i < 8; i++ {
		if bestBase != -1 && i >= bestBase && i < bestBase+bestLen {
			if i == bestBase {
				dst = append(dst, ':')
			}
			continue
		}
		if i != 0 {
			dst = append(dst, ':')
		}
		if i == 6 && bestBase == 0 && (bestLen == 6 || bestLen == 7 && words[7] != 1 || bestLen == 5 && words[5] == 0xffff) {
			for k := 12; k < 16; k++ {
				if k > 12 {
					dst = append(dst, '.')
				}
				dst = strconv.AppendInt(dst, int64(v.Addr[k]), 10)
			}
			break
		}
		dst = strconv.AppendInt(dst, int64(words[i]), 16)
	}
	if bestBase != -1 && bestBase+bestLen == 8 {
		dst = append(dst, ':')
	}
	if bits != -1 && bits != 128 {
		dst = append(dst, '/')
		dst = strconv.AppendInt(dst, int64(bits), 10)
	}
	return dst
}

// AppendCidrNtop is pg_inet_cidr_ntop (abbrev(cidr)): only the octets
// or words the mask covers, always with /bits.
func AppendCidrNtop(dst []byte, v InetVal) []byte {
	bits := int(v.Bits)
	if !v.V6 {
		start := len(dst)
		if bits == 0 {
			dst = append(dst, '0')
		}
		src := 0
		for b := bits / 8; b > 0; b-- {
			dst = strconv.AppendInt(dst, int64(v.Addr[src]), 10)
			src++
			if b > 1 {
				dst = append(dst, '.')
			}
		}
		if b := bits % 8; b > 0 {
			if len(dst) != start {
				dst = append(dst, '.')
			}
			m := byte(((1 << b) - 1) << (8 - b))
			dst = strconv.AppendInt(dst, int64(v.Addr[src]&m), 10)
		}
		dst = append(dst, '/')
		return strconv.AppendInt(dst, int64(bits), 10)
	}
	start := len(dst)
	if bits == 0 {
		dst = append(dst, ':', ':')
	} else {
		var in [16]byte
		p := (bits + 7) / 8
		copy(in[:p], v.Addr[:p])
		if b := bits % 8; b != 0 {
			in[p-1] &= byte(0xff << (8 - b))
		}
		words := (bits + 15) / 16
		if words == 1 {
			words = 2
		}
		zeroS, zeroL, tmpS, tmpL := 0, 0, 0, 0
		for i := 0; i < words*2; i += 2 {
			if in[i]|in[i+1] == 0 {
				if tmpL == 0 {
					tmpS = i / 2
				}
				tmpL++
			} else if tmpL != 0 && zeroL < tmpL {
				zeroS, zeroL, tmpL = tmpS, tmpL, 0
			}
		}
		if tmpL != 0 && zeroL < tmpL {
			zeroS, zeroL = tmpS, tmpL
		}
		isV4 := zeroL != words && zeroS == 0 && (zeroL == 6 || zeroL == 5 && in[10] == 0xff && in[11] == 0xff || zeroL == 7 && in[14] != 0 && in[15] != 1)
		s := 0
		for p := 0; p < words; p++ {
			if zeroL != 0 && p >= zeroS && p < zeroS+zeroL {
				if p == zeroS {
					dst = append(dst, ':')
				}
				if p == words-1 {
					dst = append(dst, ':')
				}
				s += 2
				continue
			}
			if isV4 && p > 5 {
				if p == 6 {
					dst = append(dst, ':')
				} else {
					dst = append(dst, '.')
				}
				dst = strconv.AppendInt(dst, int64(in[s]), 10)
				s++
				if p != 7 || bits > 120 {
					dst = append(dst, '.')
					dst = strconv.AppendInt(dst, int64(in[s]), 10)
					s++
				}
			} else {
				if len(dst) != start {
					dst = append(dst, ':')
				}
				dst = strconv.AppendInt(dst, int64(in[s])*256+int64(in[s+1]), 16)
				s += 2
			}
		}
	}
	dst = append(dst, '/')
	return strconv.AppendInt(dst, int64(bits), 10)
}

// bitnCmp is bitncmp: the first n bits of a and b compared.
func bitnCmp(a, b *[16]byte, n int) int {
	k := n / 8
	for i := 0; i < k; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	if n%8 == 0 {
		return 0
	}
	x, y := a[k], b[k]
	for r := n % 8; r > 0; r-- {
		if x&0x80 != y&0x80 {
			if x&0x80 != 0 {
				return 1
			}
			return -1
		}
		x <<= 1
		y <<= 1
	}
	return 0
}

// CompareInet is network_cmp: family (IPv4 first), then the network
// bits both masks cover, then the mask length, then the whole address.
func CompareInet(a, b InetVal) int {
	if a.V6 != b.V6 {
		if a.V6 {
			return 1
		}
		return -1
	}
	if c := bitnCmp(&a.Addr, &b.Addr, min(int(a.Bits), int(b.Bits))); c != 0 {
		return c
	}
	if a.Bits != b.Bits {
		return cmpInt(int64(a.Bits), int64(b.Bits))
	}
	return bitnCmp(&a.Addr, &b.Addr, a.MaxBits())
}

// hashInet hashes what network_eq compares: family, bits, address.
func hashInet(h *maphash.Hash, v InetVal) {
	h.WriteByte(byte(v.family()))
	h.WriteByte(v.Bits)
	h.Write(v.Addr[:v.Size()])
}

// appendInetSend is inet_send / cidr_send: family, bits, is_cidr, the
// address length, the address.
func appendInetSend(dst []byte, v InetVal, cidr bool) []byte {
	isCidr := byte(0)
	if cidr {
		isCidr = 1
	}
	dst = append(dst, byte(v.family()), v.Bits, isCidr, byte(v.Size()))
	return append(dst, v.Addr[:v.Size()]...)
}

// recvInet is inet_recv / cidr_recv.
func recvInet(b []byte, cidr bool) (InetVal, error) {
	name := "inet"
	if cidr {
		name = "cidr"
	}
	var v InetVal
	if len(b) < 4 {
		return v, errorf(CodeInvalidBinary, "insufficient data left in message")
	}
	switch b[0] {
	case pgsqlAFInet:
	case pgsqlAFInet6:
		v.V6 = true
	default:
		return v, errorf(CodeInvalidBinary, "invalid address family in external \"%s\" value", name)
	}
	if int(b[1]) > v.MaxBits() {
		return v, errorf(CodeInvalidBinary, "invalid bits in external \"%s\" value", name)
	}
	v.Bits = b[1]
	if int(b[3]) != v.Size() {
		return v, errorf(CodeInvalidBinary, "invalid length in external \"%s\" value", name)
	}
	if len(b) != 4+v.Size() {
		return v, errorf(CodeInvalidBinary, "incorrect binary data format")
	}
	copy(v.Addr[:], b[4:])
	if cidr && !inetAddressOK(v) {
		return v, errorf(CodeInvalidBinary, "invalid external \"cidr\" value").detail("Value has bits set to right of mask.")
	}
	return v, nil
}

// InetMasked is cidr_set_masklen_internal: v with mask length bits and
// the address bits right of it cleared (inet → cidr, network(), …).
func InetMasked(v InetVal, bits int) InetVal {
	r := InetVal{V6: v.V6, Bits: uint8(bits)}
	if bits > 0 {
		copy(r.Addr[:(bits+7)/8], v.Addr[:(bits+7)/8])
		if bits%8 != 0 {
			r.Addr[bits/8] &^= 0xff >> uint(bits%8)
		}
	}
	return r
}

// InetShow is network_show (text(inet), the cast to text): the whole
// address and /bits always.
func InetShow(v InetVal) string {
	b := AppendInetNtop(nil, v, v.MaxBits())
	b = append(b, '/')
	return string(strconv.AppendInt(b, int64(v.Bits), 10))
}
