package types_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/types"
)

// moneyInputs are generated money inputs: amounts with separators,
// signs, parentheses, "$" and spaces around them, more fraction digits
// than two (rounded), the range's ends and beyond, and malformed text.
func moneyInputs(r *rand.Rand, n int) []string {
	out := []string{"0", "-0", "12.345", "12.344", "$1,2,3.4", "(5)", "5-", " $ -3", "+7", "$+7.1", "92233720368547758.07", "92233720368547758.08",
		"-92233720368547758.08", "-92233720368547758.09", "-92233720368547758.085", "92233720368547758.075", "", "$", "-", "1.2.3", "1e3", "12 34", "$12$", "((3))", "1,,000", ".5", "5.", "0.005", "-0.004"}
	alphabet := "0123456789012345678901234567890123456789$,.-+() x"
	for len(out) < n {
		switch r.IntN(3) {
		case 0: // a plausible amount
			var b strings.Builder
			if r.IntN(3) == 0 {
				b.WriteString([]string{"$", " $", "-", "-$", "$-", "(", "+", " "}[r.IntN(8)])
			}
			for i := range 1 + r.IntN(18) {
				if i > 0 && r.IntN(4) == 0 {
					b.WriteByte(',')
				}
				b.WriteByte(byte('0' + r.IntN(10)))
			}
			if r.IntN(2) == 0 {
				b.WriteByte('.')
				for range r.IntN(5) {
					b.WriteByte(byte('0' + r.IntN(10)))
				}
			}
			if r.IntN(4) == 0 {
				b.WriteString([]string{")", "-", " ", "$", " -", "+", "a"}[r.IntN(7)])
			}
			out = append(out, b.String())
		case 1: // anything of the alphabet
			var b strings.Builder
			for range 1 + r.IntN(12) {
				b.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			out = append(out, b.String())
		default: // near the range's ends
			out = append(out, fmt.Sprintf("%d.%02d", r.Int64N(1<<62)*[]int64{1, -1}[r.IntN(2)], r.IntN(100)))
		}
	}
	return out
}

// bitInputs are generated bit string inputs: binary digits, b/B and x/X
// prefixes, hexadecimal digits, the empty string and malformed ones.
func bitInputs(r *rand.Rand, n int) []string {
	out := []string{"", "0", "1", "b", "B101", "x", "X1f", "xFF00", "2", "10a", "x1g", "b12", "é", "1é"}
	for len(out) < n {
		var b strings.Builder
		hex := false
		switch r.IntN(5) {
		case 0:
			b.WriteByte("bB"[r.IntN(2)])
		case 1:
			b.WriteByte("xX"[r.IntN(2)])
			hex = true
		}
		digits := "01"
		if hex {
			digits = "0123456789abcdefABCDEF"
		}
		for range r.IntN(20) {
			if r.IntN(40) == 0 {
				b.WriteByte("2gz "[r.IntN(4)])
				continue
			}
			b.WriteByte(digits[r.IntN(len(digits))])
		}
		out = append(out, b.String())
	}
	return out
}

// pgAnswer compares our value (or error) for lit with PostgreSQL's: the
// text and binary form of each column of q, or the error's SQLSTATE and
// message.
type pgChecker struct {
	t      *testing.T
	conn   *pgx.Conn
	n, err int
	zone   *types.Zone // the session's TimeZone the output is printed in (nil: UTC)
	// refusals counts our 0A000 answers where PostgreSQL answered or
	// failed otherwise; refusalsOK lets them pass (input the catalog
	// does not read, e.g. non-ISO timestamps).
	refusals   int
	refusalsOK bool
}

// refused says whether err is a refusal the checker lets pass.
func (c *pgChecker) refused(err error) bool {
	var te *types.Error
	if c.refusalsOK && errors.As(err, &te) && te.Code == types.CodeUnsupported {
		c.refusals++
		return true
	}
	return false
}

func (c *pgChecker) check(q string, got []types.Value, gotErr error, oids []types.OID) {
	c.t.Helper()
	c.n++
	ctx := context.Background()
	text := c.conn.PgConn().ExecParams(ctx, q, nil, nil, nil, nil).Read()
	if text.Err != nil {
		c.err++
		var pe *pgconn.PgError
		if !errors.As(text.Err, &pe) {
			c.t.Fatalf("%s: %v", q, text.Err)
		}
		var te *types.Error
		if c.refused(gotErr) {
			return
		}
		if gotErr == nil {
			c.t.Errorf("%s: PostgreSQL %s %q, we answered %v", q, pe.Code, pe.Message, got)
		} else if !errors.As(gotErr, &te) || te.Code != pe.Code || te.Message != pe.Message {
			c.t.Errorf("%s: PostgreSQL %s %q, we %v", q, pe.Code, pe.Message, gotErr)
		}
		return
	}
	if gotErr != nil {
		if c.refused(gotErr) {
			return
		}
		c.t.Errorf("%s: PostgreSQL %q, we failed %v", q, text.Rows[0], gotErr)
		return
	}
	formats := make([]int16, len(oids))
	for i := range formats {
		formats[i] = 1
	}
	bin := c.conn.PgConn().ExecParams(ctx, q, nil, nil, nil, formats).Read()
	for i, oid := range oids {
		if out := types.OutIn(oid, got[i], c.zone); out != string(text.Rows[0][i]) {
			c.t.Errorf("%s: column %d: %q, PostgreSQL %q", q, i+1, out, text.Rows[0][i])
		}
		if bin.Err != nil {
			c.t.Errorf("%s in binary: %v", q, bin.Err)
			continue
		}
		if b, err := types.Send(oid, got[i]); err != nil || string(b) != string(bin.Rows[0][i]) {
			c.t.Errorf("%s: column %d sends %x (%v), PostgreSQL %x", q, i+1, b, err, bin.Rows[0][i])
		}
		if back, err := types.Recv(oid, -1, bin.Rows[0][i]); err != nil || types.Compare(oid, back, got[i]) != 0 {
			c.t.Errorf("%s: column %d: recv of PostgreSQL's %x: %v %v", q, i+1, bin.Rows[0][i], back, err)
		}
	}
}

// TestMoneyMatchesPostgres: generated money inputs through cash_in,
// cash_out, cash_send/recv, the casts to numeric and from numeric, int4
// and int8, against PostgreSQL under lc_monetary C (errors with the same
// SQLSTATE and message), and ordering as ORDER BY orders.
func TestMoneyMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET lc_monetary = 'C'"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(seed.Or(t, seedFlag, 23)), 7))
	c := &pgChecker{t: t, conn: conn}
	var valid []types.Value
	for _, in := range moneyInputs(r, 1500) {
		v, err := types.In(types.Money, -1, in)
		c.check("SELECT "+quote(in)+"::money", []types.Value{v}, err, []types.OID{types.Money})
		if err != nil {
			continue
		}
		valid = append(valid, v)
		n, err := types.Convert(v, types.Money, types.Numeric, -1)
		c.check("SELECT "+quote(in)+"::money::numeric", []types.Value{n}, err, []types.OID{types.Numeric})
		txt, err := types.Convert(v, types.Money, types.Text, -1)
		c.check("SELECT "+quote(in)+"::money::text", []types.Value{txt}, err, []types.OID{types.Text})
	}
	for _, num := range []string{"0", "1.005", "-1.005", "1.0049", "12.345", "-0.5", "0.005", "92233720368547758.07", "92233720368547758.075", "92233720368547758.08", "-92233720368547758.08", "-92233720368547758.085", "1e20", "'NaN'", "'Infinity'", "123456789.123456789"} {
		d, err := types.In(types.Numeric, -1, strings.Trim(num, "'"))
		if err != nil {
			t.Fatal(err)
		}
		m, err := types.Convert(d, types.Numeric, types.Money, -1)
		c.check("SELECT ("+num+")::numeric::money", []types.Value{m}, err, []types.OID{types.Money})
	}
	for _, i := range []int64{0, 1, -1, 2147483647, -2147483648, 92233720368547758, 92233720368547759, -92233720368547758, -92233720368547759, 9223372036854775807} {
		for _, typ := range []types.OID{types.Int4, types.Int8} {
			if typ == types.Int4 && int64(int32(i)) != i {
				continue
			}
			m, err := types.Convert(i, typ, types.Money, -1)
			c.check(fmt.Sprintf("SELECT (%d)::%s::money", i, types.NameOf(typ)), []types.Value{m}, err, []types.OID{types.Money})
		}
	}
	checkOrder(t, conn, "money", types.Money, valid)
	if c.err == 0 || c.err == c.n {
		t.Fatalf("%d of %d statements failed on PostgreSQL: the generator is broken", c.err, c.n)
	}
	t.Logf("%d statements, %d errors alike", c.n, c.err)
}

// TestBitMatchesPostgres: generated bit string inputs through bit_in and
// varbit_in, output, send/recv, the explicit length coercions
// (truncated or zero-padded), the casts to and from int4 and
// int8, against PostgreSQL; and ordering as ORDER BY orders.
func TestBitMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	r := rand.New(rand.NewPCG(uint64(seed.Or(t, seedFlag, 29)), 11))
	c := &pgChecker{t: t, conn: conn}
	var valid []types.Value
	for _, in := range bitInputs(r, 700) {
		for _, typ := range []struct {
			oid  types.OID
			name string
			mod  int32
		}{{types.Varbit, "varbit", -1}, {types.Bit, "bit(4)", 4}, {types.Varbit, "varbit(6)", 6}, {types.Bit, "bit", 1}} {
			// 'x'::bit(4) is bit_in without the length, then the
			// explicit length coercion.
			v, err := types.In(typ.oid, -1, in)
			if err == nil {
				v, err = types.ApplyMod(typ.oid, typ.mod, v, true)
			}
			c.check("SELECT "+quote(in)+"::"+typ.name, []types.Value{v}, err, []types.OID{typ.oid})
			if err != nil || typ.mod >= 0 {
				continue
			}
			valid = append(valid, v)
			for _, to := range []struct {
				oid  types.OID
				name string
				mod  int32
			}{{types.Bit, "bit(5)", 5}, {types.Varbit, "varbit(3)", 3}, {types.Int4, "int4", -1}, {types.Int8, "int8", -1}, {types.Bit, "bit", 1}} {
				w, err := types.Convert(v, types.Varbit, to.oid, to.mod)
				c.check("SELECT "+quote(in)+"::varbit::"+to.name, []types.Value{w}, err, []types.OID{to.oid})
			}
		}
	}
	for _, i := range []int64{0, 1, -1, 5, 300, 2147483647, -2147483648, 9223372036854775807, -9223372036854775808} {
		for _, typ := range []types.OID{types.Int4, types.Int8} {
			if typ == types.Int4 && int64(int32(i)) != i {
				continue
			}
			for _, mod := range []int32{1, 3, 8, 32, 40, 64, 70} {
				v, err := types.Convert(i, typ, types.Bit, mod)
				c.check(fmt.Sprintf("SELECT (%d)::%s::bit(%d)", i, types.NameOf(typ), mod), []types.Value{v}, err, []types.OID{types.Bit})
			}
		}
	}
	checkOrder(t, conn, "varbit", types.Varbit, valid)
	if c.err == 0 || c.err == c.n {
		t.Fatalf("%d of %d statements failed on PostgreSQL: the generator is broken", c.err, c.n)
	}
	t.Logf("%d statements, %d errors alike", c.n, c.err)
}

// checkOrder ranks vals with PostgreSQL's ORDER BY and with Compare.
func checkOrder(t *testing.T, conn *pgx.Conn, typ string, oid types.OID, vals []types.Value) {
	t.Helper()
	var lits []string
	for _, v := range vals {
		lits = append(lits, "("+quote(types.Out(oid, v))+"::"+typ+")")
	}
	rows, err := conn.Query(context.Background(), "SELECT x::text AS s FROM (VALUES "+strings.Join(lits, ", ")+") v(x) ORDER BY v.x, s")
	if err != nil {
		t.Fatal(err)
	}
	want, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(vals)
	slices.SortStableFunc(sorted, func(a, b types.Value) int {
		if c := types.Compare(oid, a, b); c != 0 {
			return c
		}
		return strings.Compare(types.Out(oid, a), types.Out(oid, b))
	})
	for i, v := range sorted {
		if s, _ := types.Convert(v, oid, types.Text, -1); i >= len(want) || s != want[i] {
			t.Fatalf("%s order differs at %d: %v, PostgreSQL %q", typ, i, s, want[min(i, len(want)-1)])
		}
	}
}
