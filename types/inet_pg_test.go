package types_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/inetgen"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/types"
)

// TestInetInputOutputMatchesPostgres: thousands of generated inet and
// cidr inputs (IPv4, IPv6, every mask, zero-compression, IPv4-mapped,
// malformed) through inet_in/cidr_in, inet_out/cidr_out, the send
// functions, the casts to text and cidr(inet), against PostgreSQL's
// answers; errors must carry PostgreSQL's SQLSTATE and message.
func TestInetInputOutputMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	s := seed.Or(t, seedFlag, 17)
	inputs := inetgen.Inputs(s, 3000)
	var checked, errs int
	for _, typ := range []string{"inet", "cidr"} {
		oid := types.Inet
		if typ == "cidr" {
			oid = types.Cidr
		}
		for _, in := range inputs {
			lit := quote(in) + "::" + typ
			res := conn.PgConn().ExecParams(ctx, "SELECT "+lit+", "+lit+", ("+lit+")::text, cidr("+lit+"), ("+lit+")::varchar", nil, nil, nil, []int16{0, 1, 0, 0, 0}).Read()
			v, err := types.In(oid, -1, in)
			checked++
			if res.Err != nil {
				var pe *pgconn.PgError
				if !errors.As(res.Err, &pe) {
					t.Fatalf("%s: %v", lit, res.Err)
				}
				errs++
				var te *types.Error
				if err == nil {
					t.Errorf("%s: PostgreSQL %s %q, we answered %q", lit, pe.Code, pe.Message, types.Out(oid, v))
				} else if !errors.As(err, &te) || te.Code != pe.Code || te.Message != pe.Message || te.Detail != pe.Detail {
					t.Errorf("%s: PostgreSQL %s %q %q, we %v", lit, pe.Code, pe.Message, pe.Detail, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: PostgreSQL %q, we failed %v", lit, res.Rows[0][0], err)
				continue
			}
			row := res.Rows[0]
			if got := types.Out(oid, v); got != string(row[0]) {
				t.Errorf("%s: output %q, PostgreSQL %q", lit, got, row[0])
			}
			if got, err := types.Send(oid, v); err != nil || string(got) != string(row[1]) {
				t.Errorf("%s: send %x (%v), PostgreSQL %x", lit, got, err, row[1])
			}
			if back, err := types.Recv(oid, -1, row[1]); err != nil || types.Compare(oid, back, v) != 0 {
				t.Errorf("%s: recv of PostgreSQL's bytes %x: %v (%v)", lit, row[1], back, err)
			}
			if got, err := types.Convert(v, oid, types.Text, -1); err != nil || got != string(row[2]) {
				t.Errorf("%s::text: %q (%v), PostgreSQL %q", lit, got, err, row[2])
			}
			if got, err := types.Convert(v, oid, types.Cidr, -1); err != nil || types.Out(types.Cidr, got) != string(row[3]) {
				t.Errorf("cidr(%s): %v (%v), PostgreSQL %q", lit, got, err, row[3])
			}
			if got, err := types.Convert(v, oid, types.Varchar, -1); err != nil || got != string(row[4]) {
				t.Errorf("%s::varchar: %q (%v), PostgreSQL %q", lit, got, err, row[4])
			}
		}
	}
	if errs == 0 || errs == checked {
		t.Fatalf("%d of %d inputs failed on PostgreSQL: the generator is broken", errs, checked)
	}
	t.Logf("%d inputs, %d refused by PostgreSQL alike", checked, errs)
}

// TestInetOrderMatchesPostgres: generated valid inet values ranked by
// PostgreSQL's ORDER BY against Compare (network_cmp), and values
// PostgreSQL finds equal (GROUP BY) hash alike.
func TestInetOrderMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	ins := inetgen.Valid(seed.Or(t, seedFlag, 23), 1500)
	// Duplicates spelled differently, and cidr values among them.
	ins = append(ins, "1.2.3.4/32", "1.2.3.4", "::1", "0:0:0:0:0:0:0:1", "::ffff:1.2.3.4", "::FFFF:102:304", "10.0.0.0/8", "10.0.0.1/8")
	vals := make([]types.Value, len(ins))
	for i, in := range ins {
		if vals[i], err = types.In(types.Inet, -1, in); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
	}
	rank := pgRanks(ctx, t, conn, "inet", ins)
	h := maphashSeed()
	bad := 0
	for i := range vals {
		for j := range vals {
			want := sign(rank[i] - rank[j])
			if got := types.Compare(types.Inet, vals[i], vals[j]); got != want && bad < 20 {
				bad++
				t.Errorf("Compare(%s, %s) = %d, PostgreSQL orders %d", ins[i], ins[j], got, want)
			}
			if want == 0 && types.Hash(h, types.Inet, vals[i]) != types.Hash(h, types.Cidr, vals[j]) {
				t.Errorf("%s and %s are equal but hash differently", ins[i], ins[j])
			}
		}
	}
}

// TestMacaddrMatchesPostgres: generated macaddr and macaddr8 inputs in
// every notation macaddr_in's sscanf patterns and macaddr8_in read
// (and near misses) against PostgreSQL: output, send bytes, the casts
// between the two, ordering. A refusal (0A000) is allowed for the
// inputs glibc's %x reads with signs or 0x prefixes.
func TestMacaddrMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	r := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 29), 1))
	hexes := func(n int, upper bool) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%02x", r.IntN(256))
			if upper {
				out[i] = strings.ToUpper(out[i])
			}
		}
		return out
	}
	inputs := []string{"08:00:2b:01:02:03", "08-00-2b-01-02-03", "08002b:010203", "08002b-010203", "0800.2b01.0203", "0800-2b01-0203", "08002b010203",
		"8:0:2b:1:2:3", " 08:00:2b:01:02:03 ", "08:00:2b:01:02:03x", "08:00:2b:01:02", "08:00:2b:01:02:03:04", "100:00:2b:01:02:03", "08:00:2b:01:02:0g",
		"0800:2b01:0203", "08002b01020", "", "08: 00:2b:01:02:03", "-1:00:2b:01:02:03", "0x8:00:2b:01:02:03", "08:00:2b:01:02:03:04:05", "08-00-2b-01-02-03-04-05",
		"0800.2b01.0203.0405", "08002b0102030405", "08:00:2b:01:02:03:04:05 ", "08:00-2b:01:02:03", "08:00:2b:01:02:03:04:05:06", "08:00:2b:01:02:03:04:0",
		"100000001:0:0:0:0:0", "ffffffff:0:0:0:0:0", "fffffffffffffffff01:0:0:0:0:0", "0000000000000000000000ff:1:2:3:4:5", "1:2:3:4:5:6 7"}
	for len(inputs) < 600 {
		h := hexes(8, r.IntN(4) == 0)
		switch r.IntN(8) {
		case 0:
			inputs = append(inputs, strings.Join(h[:6], ":"))
		case 1:
			inputs = append(inputs, strings.Join(h[:6], "-"))
		case 2:
			inputs = append(inputs, strings.Join(h[:3], "")+":"+strings.Join(h[3:6], ""))
		case 3:
			inputs = append(inputs, h[0]+h[1]+"."+h[2]+h[3]+"."+h[4]+h[5])
		case 4:
			inputs = append(inputs, strings.Join(h[:6], ""))
		case 5:
			inputs = append(inputs, strings.Join(h, ":"))
		case 6:
			inputs = append(inputs, strings.Join(h, ""))
		default:
			s := []byte(strings.Join(h[:6], ":"))
			s[r.IntN(len(s))] = " x:.-g"[r.IntN(6)]
			inputs = append(inputs, string(s))
		}
	}
	var valid []string
	for _, typ := range []string{"macaddr", "macaddr8"} {
		oid := map[string]types.OID{"macaddr": types.Macaddr, "macaddr8": types.Macaddr8}[typ]
		other := map[string]string{"macaddr": "macaddr8", "macaddr8": "macaddr"}[typ]
		for _, in := range inputs {
			lit := quote(in) + "::" + typ
			res := conn.PgConn().ExecParams(ctx, "SELECT "+lit+", "+lit+", trunc("+lit+")", nil, nil, nil, []int16{0, 1, 0}).Read()
			v, err := types.In(oid, -1, in)
			var te *types.Error
			if err != nil && errors.As(err, &te) && te.Code == types.CodeUnsupported {
				t.Logf("refused %s: %v", lit, err)
				continue
			}
			if res.Err != nil {
				var pe *pgconn.PgError
				if !errors.As(res.Err, &pe) {
					t.Fatalf("%s: %v", lit, res.Err)
				}
				if err == nil {
					t.Errorf("%s: PostgreSQL %s %q, we answered %q", lit, pe.Code, pe.Message, types.Out(oid, v))
				} else if !errors.As(err, &te) || te.Code != pe.Code || te.Message != pe.Message {
					t.Errorf("%s: PostgreSQL %s %q, we %v", lit, pe.Code, pe.Message, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: PostgreSQL %q, we failed %v", lit, res.Rows[0][0], err)
				continue
			}
			row := res.Rows[0]
			if typ == "macaddr" {
				valid = append(valid, in)
			}
			if got := types.Out(oid, v); got != string(row[0]) {
				t.Errorf("%s: output %q, PostgreSQL %q", lit, got, row[0])
			}
			if got, err := types.Send(oid, v); err != nil || string(got) != string(row[1]) {
				t.Errorf("%s: send %x (%v), PostgreSQL %x", lit, got, err, row[1])
			}
			// The cast to the other type, an error included.
			var want string
			if err := conn.QueryRow(ctx, "SELECT ("+lit+")::"+other+"::text").Scan(&want); err != nil {
				var pe *pgconn.PgError
				if !errors.As(err, &pe) {
					t.Fatal(err)
				}
				want = "error " + pe.Code
			}
			got := ""
			if c, err := types.Convert(v, oid, map[string]types.OID{"macaddr": types.Macaddr, "macaddr8": types.Macaddr8}[other], -1); err != nil {
				got = "error " + err.(*types.Error).Code
			} else {
				got = types.Out(map[string]types.OID{"macaddr": types.Macaddr, "macaddr8": types.Macaddr8}[other], c)
			}
			if got != want {
				t.Errorf("%s::%s: %q, PostgreSQL %q", lit, other, got, want)
			}
		}
	}
	if len(valid) < 100 {
		t.Fatalf("only %d valid macaddr inputs: the generator is broken", len(valid))
	}
	// Ordering: PostgreSQL's rank against Compare.
	rank := pgRanks(ctx, t, conn, "macaddr", valid)
	vals := make([]types.Value, len(valid))
	for i, in := range valid {
		vals[i], _ = types.In(types.Macaddr, -1, in)
	}
	for i := range vals {
		for j := range vals {
			if got, want := types.Compare(types.Macaddr, vals[i], vals[j]), sign(rank[i]-rank[j]); got != want {
				t.Fatalf("Compare(%s, %s) = %d, PostgreSQL %d", valid[i], valid[j], got, want)
			}
		}
	}
}

// pgRanks is each input's dense rank in PostgreSQL's ORDER BY of the
// inputs read as typ.
func pgRanks(ctx context.Context, t *testing.T, conn *pgx.Conn, typ string, inputs []string) []int64 {
	t.Helper()
	rows, err := conn.Query(ctx, "SELECT i, dense_rank() OVER (ORDER BY v::"+typ+") FROM unnest($1::text[]) WITH ORDINALITY t(v, i)", inputs)
	if err != nil {
		t.Fatal(err)
	}
	rank := make([]int64, len(inputs))
	for rows.Next() {
		var i, r int64
		if err := rows.Scan(&i, &r); err != nil {
			t.Fatal(err)
		}
		rank[i-1] = r
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	return rank
}
