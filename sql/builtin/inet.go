package builtin

import (
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// The inet and cidr functions and operators of PostgreSQL's network.c:
// host, masklen, family, network, netmask, broadcast, hostmask, abbrev,
// set_masklen, text, cidr, inet_same_family, inet_merge; the inclusion
// operators << <<= >> >>= &&, the bitwise ~ & |, and the arithmetic
// inet ± int8 and inet - inet (bound by sql/plan's inetOperator, as +
// and - are typed by the binder). A cidr argument is read by the inet
// overload (cidr is binary coercible to inet), as PostgreSQL does.

const (
	inet = types.Inet
	cidr = types.Cidr
)

func ipOf(a types.Value) types.InetVal { return a.(types.InetVal) }

func (r *Registry) addInet() {
	// Functions of PostgreSQL's catalog over these types the library
	// does not have: refused (0A000), not 42883. (The comparisons'
	// support functions: network_cmp answers memcmp's difference, not
	// only its sign; the connection's addresses are the sidecar's, not
	// PostgreSQL's.)
	for _, n := range strings.Fields(`network_cmp network_eq network_ne network_lt network_le network_gt network_ge
		network_larger network_smaller hashinet hashinetextended inet_client_addr inet_client_port inet_server_addr inet_server_port
		macaddr_cmp macaddr8_cmp hashmacaddr hashmacaddr8`) {
		r.missing[n] = true
	}
	r.def("host", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ipOf(a[0])
		return string(types.AppendInetNtop(nil, v, v.MaxBits())), nil
	}, inet)
	r.def("text", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return types.InetShow(ipOf(a[0])), nil
	}, inet)
	r.def("masklen", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return int64(ipOf(a[0]).Bits), nil
	}, inet)
	r.def("family", i4, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		if ipOf(a[0]).V6 {
			return int64(6), nil
		}
		return int64(4), nil
	}, inet)
	r.def("network", cidr, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ipOf(a[0])
		return types.InetMasked(v, int(v.Bits)), nil
	}, inet)
	r.def("cidr", cidr, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ipOf(a[0])
		return types.InetMasked(v, int(v.Bits)), nil
	}, inet)
	// netmask: the mask's bits set; hostmask: the others; both of the
	// family's full width.
	r.def("netmask", inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ipOf(a[0])
		return bitsSet(types.InetVal{V6: v.V6, Bits: uint8(v.MaxBits())}, 0, int(v.Bits)), nil
	}, inet)
	r.def("hostmask", inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ipOf(a[0])
		return bitsSet(types.InetVal{V6: v.V6, Bits: uint8(v.MaxBits())}, int(v.Bits), v.MaxBits()), nil
	}, inet)
	r.def("broadcast", inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ipOf(a[0])
		return bitsSet(v, int(v.Bits), v.MaxBits()), nil
	}, inet)
	r.def("abbrev", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ipOf(a[0])
		return string(types.AppendInetNtop(nil, v, int(v.Bits))), nil
	}, inet)
	r.def("abbrev", tx, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return string(types.AppendCidrNtop(nil, ipOf(a[0]))), nil
	}, cidr)
	setMasklen := func(a []types.Value) (types.InetVal, int, error) {
		v, bits := ipOf(a[0]), i64(a[1])
		if bits == -1 {
			bits = int64(v.MaxBits())
		}
		if bits < 0 || bits > int64(v.MaxBits()) {
			return v, 0, errorf(CodeInvalidParameter, "invalid mask length: %d", bits)
		}
		return v, int(bits), nil
	}
	r.def("set_masklen", inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v, bits, err := setMasklen(a)
		v.Bits = uint8(bits)
		return v, err
	}, inet, i4)
	r.def("set_masklen", cidr, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v, bits, err := setMasklen(a)
		return types.InetMasked(v, bits), err
	}, cidr, i4)
	r.def("inet_same_family", bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return ipOf(a[0]).V6 == ipOf(a[1]).V6, nil
	}, inet, inet)
	r.def("inet_merge", cidr, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		x, y := ipOf(a[0]), ipOf(a[1])
		if x.V6 != y.V6 {
			return nil, errorf(CodeInvalidParameter, "cannot merge addresses from different families")
		}
		return types.InetMasked(x, bitnCommon(x, y, int(min(x.Bits, y.Bits)))), nil
	}, inet, inet)

	// The inclusion operators (network_sub, …): false across families.
	incl := func(name, op string, f func(x, y types.InetVal) bool) {
		r.def(name, bo, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			x, y := ipOf(a[0]), ipOf(a[1])
			return x.V6 == y.V6 && f(x, y), nil
		}, inet, inet)
		r.ops[op] = append(r.ops[op], name)
	}
	incl("network_sub", "<<", func(x, y types.InetVal) bool { return x.Bits > y.Bits && bitnEqual(x, y, int(y.Bits)) })
	incl("network_subeq", "<<=", func(x, y types.InetVal) bool { return x.Bits >= y.Bits && bitnEqual(x, y, int(y.Bits)) })
	incl("network_sup", ">>", func(x, y types.InetVal) bool { return x.Bits < y.Bits && bitnEqual(x, y, int(x.Bits)) })
	incl("network_supeq", ">>=", func(x, y types.InetVal) bool { return x.Bits <= y.Bits && bitnEqual(x, y, int(x.Bits)) })
	incl("network_overlap", "&&", func(x, y types.InetVal) bool { return bitnEqual(x, y, int(min(x.Bits, y.Bits))) })
	r.partialOps["&&"] = true // arrays (bound by sql/plan), ranges, geometry: not all here

	r.def("inetnot", inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		v := ipOf(a[0])
		for i := 0; i < v.Size(); i++ {
			v.Addr[i] = ^v.Addr[i]
		}
		return v, nil
	}, inet)
	r.prefix["~"] = append(r.prefix["~"], "inetnot")
	bitwise := func(name, op, word string, f func(x, y byte) byte) {
		r.def(name, inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			x, y := ipOf(a[0]), ipOf(a[1])
			if x.V6 != y.V6 {
				return nil, errorf(CodeInvalidParameter, "cannot %s inet values of different sizes", word)
			}
			d := types.InetVal{V6: x.V6, Bits: max(x.Bits, y.Bits)}
			for i := 0; i < x.Size(); i++ {
				d.Addr[i] = f(x.Addr[i], y.Addr[i])
			}
			return d, nil
		}, inet, inet)
		r.ops[op] = append(r.ops[op], name)
	}
	bitwise("inetand", "&", "AND", func(x, y byte) byte { return x & y })
	bitwise("inetor", "|", "OR", func(x, y byte) byte { return x | y })

	r.def("inetpl", inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return inetPlus(ipOf(a[0]), i64(a[1]))
	}, inet, i8)
	r.def("int8pl_inet", inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return inetPlus(ipOf(a[1]), i64(a[0]))
	}, i8, inet)
	r.def("inetmi_int8", inet, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return inetPlus(ipOf(a[0]), -i64(a[1])) // wraps at the int64 minimum as PostgreSQL's C does
	}, inet, i8)
	r.def("inetmi", i8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return inetMinus(ipOf(a[0]), ipOf(a[1]))
	}, inet, inet)
}

// bitsSet is v with the address bits from (inclusive) to to set.
func bitsSet(v types.InetVal, from, to int) types.InetVal {
	for i := from; i < to; i++ {
		v.Addr[i/8] |= 0x80 >> uint(i%8)
	}
	return v
}

// bitnEqual is bitncmp(x, y, n) == 0.
func bitnEqual(x, y types.InetVal, n int) bool {
	for i := 0; i < n/8; i++ {
		if x.Addr[i] != y.Addr[i] {
			return false
		}
	}
	if r := n % 8; r != 0 {
		m := byte(0xff << uint(8-r))
		return x.Addr[n/8]&m == y.Addr[n/8]&m
	}
	return true
}

// bitnCommon is bitncommon: the number of leading bits (≤ n) x and y
// share.
func bitnCommon(x, y types.InetVal, n int) int {
	i := 0
	for i < n && (x.Addr[i/8]^y.Addr[i/8])&(0x80>>uint(i%8)) == 0 {
		i++
	}
	return i
}

// inetPlus is internal_inetpl: the address plus addend, bytewise with
// carry; 22003 when the result leaves the family's range.
func inetPlus(v types.InetVal, addend int64) (types.Value, error) {
	carry := 0
	for nb := v.Size() - 1; nb >= 0; nb-- {
		carry = int(v.Addr[nb]) + int(addend&0xff) + carry
		v.Addr[nb] = byte(carry)
		carry >>= 8
		addend &^= 0xff
		addend /= 0x100
	}
	if !(addend == 0 && carry == 0 || addend == -1 && carry == 1) {
		return nil, errorf(CodeOutOfRange, "result is out of range")
	}
	return v, nil
}

// inetMinus is inetmi: the difference of two addresses of one family
// as an int8; 22003 when it does not fit.
func inetMinus(x, y types.InetVal) (types.Value, error) {
	if x.V6 != y.V6 {
		return nil, errorf(CodeInvalidParameter, "cannot subtract inet values of different sizes")
	}
	var res int64
	carry, b := 1, 0
	for nb := x.Size() - 1; nb >= 0; nb-- {
		carry = int(x.Addr[nb]) + int(^y.Addr[nb]) + carry
		lo := carry & 0xff
		if b < 8 {
			res |= int64(lo) << (uint(b) * 8)
		} else if res < 0 && lo != 0xff || res >= 0 && lo != 0 {
			return nil, errorf(CodeOutOfRange, "result is out of range")
		}
		carry >>= 8
		b++
	}
	if carry == 0 && b < 8 {
		res |= -1 << (uint(b) * 8)
	}
	return res, nil
}

// addMacaddr registers macaddr's and macaddr8's functions and operators
// (mac.c, mac8.c): trunc, macaddr8_set7bit, the casts as functions
// macaddr(macaddr8) and macaddr8(macaddr), and ~ & |.
func (r *Registry) addMacaddr() {
	const m6, m8 = types.Macaddr, types.Macaddr8
	r.def("trunc", m6, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		m := a[0].(types.MacaddrVal)
		return types.MacaddrVal{m[0], m[1], m[2]}, nil
	}, m6)
	r.def("trunc", m8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		m := a[0].(types.Macaddr8Val)
		return types.Macaddr8Val{m[0], m[1], m[2]}, nil
	}, m8)
	r.def("macaddr8_set7bit", m8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		m := a[0].(types.Macaddr8Val)
		m[0] |= 0x02
		return m, nil
	}, m8)
	r.def("macaddr8", m8, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return types.MacaddrToMacaddr8(a[0].(types.MacaddrVal)), nil
	}, m6)
	r.def("macaddr", m6, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
		return types.Macaddr8ToMacaddr(a[0].(types.Macaddr8Val))
	}, m8)
	bytewise := func(v types.Value, f func(i int, b byte) byte) types.Value {
		switch m := v.(type) {
		case types.MacaddrVal:
			for i := range m {
				m[i] = f(i, m[i])
			}
			return m
		case types.Macaddr8Val:
			for i := range m {
				m[i] = f(i, m[i])
			}
			return m
		}
		return nil
	}
	for _, t := range []OID{m6, m8} {
		name := map[OID]string{m6: "macaddr", m8: "macaddr8"}[t]
		r.def(name+"_not", t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
			return bytewise(a[0], func(_ int, b byte) byte { return ^b }), nil
		}, t)
		r.prefix["~"] = append(r.prefix["~"], name+"_not")
		for _, op := range []struct {
			op, fn string
			f      func(x, y byte) byte
		}{{"&", "_and", func(x, y byte) byte { return x & y }}, {"|", "_or", func(x, y byte) byte { return x | y }}} {
			r.def(name+op.fn, t, func(_ *Context, a []types.Value, _ []OID) (types.Value, error) {
				y := macBytes(a[1])
				return bytewise(a[0], func(i int, b byte) byte { return op.f(b, y[i]) }), nil
			}, t, t)
			r.ops[op.op] = append(r.ops[op.op], name+op.fn)
		}
	}
}

// macBytes is a macaddr's or macaddr8's bytes.
func macBytes(v types.Value) []byte {
	switch m := v.(type) {
	case types.MacaddrVal:
		return m[:]
	case types.Macaddr8Val:
		return m[:]
	}
	return nil
}
