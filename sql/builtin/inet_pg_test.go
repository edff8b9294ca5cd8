package builtin_test

import (
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/inetgen"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/types"
)

var inetSeed = seed.Flag()

// TestInetFunctionsMatchPostgres: every inet/cidr function and the
// functions behind the network operators (network_sub … for << <<= >>
// >>= &&, inetand/inetor/inetnot for & | ~, inetpl/inetmi_int8/inetmi/
// int8pl_inet for + and -) over generated IPv4 and IPv6 values (edge
// masks, IPv4-mapped, zero runs) and pairs of them, against PostgreSQL:
// the same text, type and SQLSTATE.
func TestInetFunctionsMatchPostgres(t *testing.T) {
	vals := inetgen.Valid(seed.Or(t, inetSeed, 31), 300)
	vals = append(vals, "0.0.0.0", "255.255.255.255", "::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "::ffff:1.2.3.4/120", "10.0.0.0/8", "128.0.0.0/1")
	var cases []call
	in := func(s string) arg { return arg{typ: "inet", val: s} }
	cidrOf := func(s string) arg { return arg{typ: "cidr", val: s} }
	for i, v := range vals {
		for _, fn := range []string{"host", "masklen", "family", "network", "netmask", "broadcast", "hostmask", "abbrev", "text", "cidr", "inetnot"} {
			cases = append(cases, call{fn, []arg{in(v)}})
		}
		n := strconv.Itoa([]int{-2, -1, 0, 1, 7, 8, 9, 16, 24, 31, 32, 33, 64, 96, 120, 127, 128, 129}[i%18])
		cases = append(cases, call{"set_masklen", []arg{in(v), {typ: "int4", val: n}}})
		w := vals[(i*7+3)%len(vals)]
		for _, fn := range []string{"network_sub", "network_subeq", "network_sup", "network_supeq", "network_overlap", "inetand", "inetor", "inetmi", "inet_same_family", "inet_merge"} {
			cases = append(cases, call{fn, []arg{in(v), in(w)}})
		}
		d := []string{"0", "1", "-1", "255", "256", "4294967295", "4294967296", "-4294967296", "9223372036854775807", "-9223372036854775808"}[i%10]
		for _, fn := range []string{"inetpl", "inetmi_int8"} {
			cases = append(cases, call{fn, []arg{in(v), {typ: "int8", val: d}}})
		}
		cases = append(cases, call{"int8pl_inet", []arg{{typ: "int8", val: d}, in(v)}})
	}
	// cidr overloads over valid cidr values (network() of each).
	for i, v := range vals {
		c := cidrOf(networkText(v))
		cases = append(cases, call{"abbrev", []arg{c}}, call{"set_masklen", []arg{c, {typ: "int4", val: strconv.Itoa(i % 130)}}}, call{"host", []arg{c}})
	}
	n := runDifferential(t, cases)
	t.Logf("%d calls", n)
}

// networkText is v with its host bits cleared, as cidr input accepts
// (inet input read by the type catalog, masked by InetMasked).
func networkText(v string) string {
	iv, err := types.In(types.Inet, -1, v)
	if err != nil {
		return "0.0.0.0/0"
	}
	x := iv.(types.InetVal)
	return types.Out(types.Cidr, types.InetMasked(x, int(x.Bits)))
}
