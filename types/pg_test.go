package types_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sidecar-dev/sidecar/types"
)

// inputCases are the tricky inputs per type, as SQL writes the type.
var inputCases = map[string][]string{
	"bool":          {"t", "f", "true", "FALSE", " yes ", "no", "on", "off", "of", "o", "1", "0", "tr", "y", "n", "", "maybe", "2", "TRUE "},
	"int2":          {"0", "-0", "32767", "-32768", "32768", "-32769", " 12 ", "+7", "007", "1.5", "", "abc", "1e3", "--1", "- 1", "0x10", "1_000"},
	"int4":          {"2147483647", "-2147483648", "2147483648", "-2147483649", "  -42\n", "+0", "99999999999999999999", "12a", " "},
	"int8":          {"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809", "0042"},
	"oid":           {"0", "4294967295", "4294967296", "-1", "-2147483648", "-2147483649", "12"},
	"float4":        {"0", "-0", "1.5", "3.4028235e38", "3.5e38", "1e-45", "1e-46", "1e-50", "NaN", "nan", "Infinity", "-inf", "+INF", "0.1", "1e10", "123456789", " 2.5 ", "abc", "", "1e", ".5", "5.", "1.17549435e-38", "100000", "1000000", "0.0001", "0.00001"},
	"float8":        {"0", "-0", "1e308", "1e309", "-1e309", "10e-400", "0e-400", "4.9e-324", "2.5e-324", "1e-400", "NaN", "-Infinity", "infinity", "0.1", "1e15", "1e16", "123456789012345678", "0.0001", "0.00001", "3.141592653589793", " 1 ", "1.7976931348623157e308", "x", "1.5e+300", "0x1p3"},
	"numeric":       {"0", "-0", "0.00", "1.50", "-1.5e3", "1e-3", "123456789012345678901234567890.123456789", "NaN", "nan", "Infinity", "-infinity", "inf", "-inf", " 12.5 ", ".5", "5.", "1e1000", "1e1001", "1e-1000", "abc", "", "1.2.3", "+3", "0.000000000000000000001", "1e", "-0.0"},
	"numeric(5,2)":  {"123.456", "123.455", "-123.455", "999.994", "999.995", "0.001", "NaN", "Infinity", "1e2", "-0.005"},
	"numeric(3)":    {"999.4", "999.5", "-999", "1000"},
	"numeric(2,-1)": {"94", "95", "949", "950"},
	"text":          {"", "abc", " padded ", "üñí", "a'b", `back\slash`},
	"varchar":       {"abc", ""},
	"varchar(3)":    {"abc", "abcd", "ab  ", "abc   ", "äöüß", "a"},
	"bpchar":        {"abc  ", "", "x"},
	"char(3)":       {"a", "abcd", "ab ", "äö"},
	"char":          {"a", "ab", ""},
	`"char"`:        {"a", "ab", "", `\101`, "é"},
	"name":          {"abc", strings.Repeat("x", 70), strings.Repeat("é", 40)},
	"bytea":         {`\x`, `\xdeadBEEF`, `\x de ad`, `\x0`, `\xzz`, "abc", `a\\b`, `\001\377`, `\400`, `\q`},
	"uuid":          {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11", "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	"json":          {`{"b":1,"a":2}`, `[1, 2.50]`, `"x"`, `nul`, ` 1 `, `{"a":}`},
	"jsonpath": {`$.a.b[*]`, `$.a.b[1]`, `$.a[*] ? (@.x > 1).x`, `$.a[*] ? (@.x > 1 && @.x < 3)`, `$.a[*] ? (@ > 2)`, `$.a[*] > 2`,
		`$.a.size()`, `$.a[*].type()`, `$.a ? (@ like_regex "^a.c$")`, `$.a ? (@ like_regex "^A" flag "si")`, `$.a[*] * 2 + 1`, `strict $.b`,
		`lax $.b`, `$.a[*] ? (exists (@.b))`, `$.a[*] ? (!exists (@.b) || @.c == 2)`, `$.a[last]`, `$.x ? (@ > $min)`, `$."a b"."c\"d"`,
		`$.*`, `$[*].*`, `$[1, 2 to 3, last - 1]`, `1 + 2 * 3`, `(1 + 2) * 3`, `1 - (2 - 3)`, `1 - 2 - 3`, `-$.a`, `-1`, `- -1`, `+$.a`,
		`-(1 + 2)`, `$.a ? ((@ > 1) is unknown)`, `$ ? (!(@.a == 1))`, `$.a starts with "x"`, `$.a ? (@ starts with $p)`, `$.a <> 1`,
		`$.a % 2 == 0`, `$.a / 3`, `$.a.abs().floor().ceiling()`, `"str"`, `true`, `null`, `1.50`, `0.5`, `$ ? (@.a == null)`,
		`$.a ? (@ == true || @ == false)`, `$$`, `$.a +`, `@.a`, `last`, `$.a.**`, `$.a.keyvalue()`, `1e3`, `$.a.datetime()`,
		`$.size`, `$.type`, `$.a[0].b[1 to last]`, `$."é"`, `$.a ? (@ like_regex "x" flag "z")`, `$ ? (@ == "a	b")`, `$var`, `$"x y"`},
	"jsonb":        {`{"b":1,"a":2,"aa":3}`, `{"a":1,"a":2}`, `[1, 2.50, 1e3, -0]`, `"\u00e9\n"`, `null`, `{"a": {"c": [true, false]}}`, `bad`, ` 3 `},
	"date":         {"2024-02-29", "2023-02-29", "2000-01-01", "1999-12-31", "0001-01-01", "0001-01-01 BC", "4713-11-24 BC", "4714-11-23 BC", "5874897-12-31", "5874898-01-01", "infinity", "-infinity", "epoch", " 2020-1-5 ", "2020-13-01", "2020-00-10", "2020-04-31", "0000-01-01", "2020-01-01 12:34:56", "10000-01-01", "Jan 8 1999", "garbage", "2020-01-01T00:00:00Z"},
	"timestamp":    {"2024-02-29 12:34:56.789", "2020-01-01T00:00:00", "2020-01-01 00:00:00+05", "2020-01-01 24:00:00", "2020-01-01 24:00:01", "2020-01-01 23:59:59.9999995", "2020-01-01 00:00:00.1234565", "2020-01-01", "0001-01-01 00:00:00 BC", "294276-12-31 23:59:59.999999", "294277-01-01 00:00:00", "infinity", "-infinity", "epoch", "2020-01-01 25:00", "2020-01-01 12:60", "2020-01-01 12:00:60", "2020-01-01 1:2:3", "2020-02-30 00:00"},
	"timestamp(0)": {"2020-01-01 00:00:00.5", "2020-01-01 00:00:01.5", "2020-01-01 00:00:00.4999", "1999-12-31 23:59:59.5"},
	"timestamp(3)": {"2020-01-01 00:00:00.1234", "2020-01-01 00:00:00.1235", "1900-01-01 00:00:00.0005"},
	"timestamptz":  {"2024-02-29 12:34:56.789+00", "2020-01-01 00:00:00+05", "2020-01-01 00:00:00-03:30", "2020-01-01 00:00:00+0530", "2020-01-01 00:00:00Z", "2020-01-01 00:00:00 UTC", "2020-01-01T10:00:00.5+01:00", "2020-01-01", "0044-03-15 12:00:00 BC", "infinity", "2020-01-01 00:00:00+16", "2000-01-01 00:00:00+15:59"},
	"time":         {"00:00", "12:34:56.789", "24:00:00", "24:00:01", "23:59:59.9999999", "allballs", "12:00:00+05", "25:00", "1:2:3", "12:00 PM"},
	"time(1)":      {"12:34:56.75", "23:59:59.96"},
	"timetz":       {"12:00:00+05", "12:00:00-03:30", "12:00:00", "00:00:00+00", "24:00:00+01"},
	"interval":     {"1 day", "1 year 2 months 3 days 04:05:06.5", "-1 day +02:00:00", "1 day -02:00:00", "@ 3 hours ago", "0", "00:00:00", "-00:01:00", "2 weeks", "1 mon", "13 months", "-1 years", "25:00:00", "1 year -1 mons", "P1Y", "1.5 days", "abc"},
}

// pgResult is what PostgreSQL said for one input: text and binary
// output, ::text, or an error SQLSTATE.
type pgResult struct {
	text, bin, asText []byte
	code, msg         string
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func pgEval(ctx context.Context, t *testing.T, conn *pgx.Conn, typ, input string) pgResult {
	t.Helper()
	lit := quote(input) + "::" + typ
	var r pgResult
	res := conn.PgConn().ExecParams(ctx, "SELECT "+lit+", "+lit+", ("+lit+")::text", nil, nil, nil, []int16{0, 1, 0}).Read()
	if res.Err != nil {
		var pe *pgconn.PgError
		if !errors.As(res.Err, &pe) {
			t.Fatalf("%s: %v", lit, res.Err)
		}
		r.code, r.msg = pe.Code, pe.Message
		return r
	}
	row := res.Rows[0]
	r.text, r.bin, r.asText = row[0], row[1], row[2]
	return r
}

// TestInputOutputMatchesPostgres: for each type and tricky input,
// PostgreSQL's output text, binary send bytes and ::text against ours;
// errors must carry PostgreSQL's SQLSTATE, or be our 0A000 refusal.
func TestInputOutputMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 3; SET bytea_output = 'hex'"); err != nil {
		t.Fatal(err)
	}
	var total, agree, refused int
	for typ, inputs := range inputCases {
		ty, mod, err := dialect().Parse(typ)
		if err != nil {
			// Then PostgreSQL must refuse the type name alike.
			want := pgEval(ctx, t, conn, typ, inputs[0])
			if te := (*types.Error)(nil); !errors.As(err, &te) || te.Code != want.code {
				t.Errorf("Parse(%q): %v; PostgreSQL %s %q", typ, err, want.code, want.msg)
			}
			continue
		}
		for _, input := range inputs {
			total++
			want := pgEval(ctx, t, conn, typ, input)
			v, err := dialect().In(ty.OID, -1, input)
			if err == nil {
				v, err = types.ApplyMod(ty.OID, mod, v, true)
			}
			lit := quote(input) + "::" + typ
			var te *types.Error
			if err != nil && !errors.As(err, &te) {
				t.Errorf("%s: error without SQLSTATE: %v", lit, err)
				continue
			}
			switch {
			case err != nil && te.Code == types.CodeUnsupported:
				refused++
				t.Logf("refused %s (PostgreSQL: %q %s): %v", lit, want.text, want.code, err)
				continue
			case want.code != "":
				if err == nil {
					t.Errorf("%s: PostgreSQL %s %q, we answered %q", lit, want.code, want.msg, dialect().Out(ty.OID, v))
				} else if te.Code != want.code {
					t.Errorf("%s: PostgreSQL %s %q, we %s %q", lit, want.code, want.msg, te.Code, te.Message)
				} else {
					agree++
				}
				continue
			case err != nil:
				t.Errorf("%s: PostgreSQL answered %q, we failed %s %q", lit, want.text, te.Code, te.Message)
				continue
			}
			ok := true
			if got := dialect().Out(ty.OID, v); got != string(want.text) {
				t.Errorf("%s: output %q, PostgreSQL %q", lit, got, want.text)
				ok = false
			}
			if got, err := types.Send(ty.OID, v); err != nil || string(got) != string(want.bin) {
				t.Errorf("%s: send %x (%v), PostgreSQL %x", lit, got, err, want.bin)
				ok = false
			}
			if back, err := types.Recv(ty.OID, -1, want.bin); err != nil || types.Compare(ty.OID, back, v) != 0 || dialect().Out(ty.OID, back) != string(want.text) {
				t.Errorf("%s: recv of PostgreSQL's bytes: %v (%v)", lit, back, err)
				ok = false
			}
			if b, ok := pgtypeBinary(ty.OID, want.text); ok {
				// What a pgx client sends for the value: our receive must read it.
				if back, err := types.Recv(ty.OID, -1, b); err != nil || dialect().Out(ty.OID, back) != string(want.text) {
					t.Errorf("%s: recv of pgtype's encoding %x: %v (%v)", lit, b, back, err)
					ok = false
				}
			}
			if s, err := dialect().Convert(v, ty.OID, types.Text, -1); err != nil || s != string(want.asText) {
				t.Errorf("%s::text: %q (%v), PostgreSQL %q", lit, s, err, want.asText)
				ok = false
			}
			if ok {
				agree++
			}
		}
	}
	t.Logf("%d inputs: %d identical to PostgreSQL, %d refused (0A000)", total, agree, refused)
}

// TestOrderMatchesPostgres: each type's accepted inputs ranked by
// PostgreSQL's ORDER BY (COLLATE "C" for strings) against Compare, and
// equal values hash alike.
func TestOrderMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	seedH := maphashSeed()
	for typ, inputs := range inputCases {
		ty, mod, err := dialect().Parse(typ)
		if err != nil || !types.Orderable(ty.OID) || strings.Contains(typ, "(") {
			continue
		}
		var vals []types.Value
		var lits []string
		for _, in := range inputs {
			v, err := dialect().In(ty.OID, -1, in)
			if err == nil {
				v, err = types.ApplyMod(ty.OID, mod, v, true)
			}
			if err != nil {
				continue
			}
			vals = append(vals, v)
			lits = append(lits, "("+fmt.Sprint(len(lits))+", "+quote(in)+"::"+typ+")")
		}
		if len(vals) < 2 {
			continue
		}
		coll := ""
		if ty.Category == types.CatString { // collatable
			coll = ` COLLATE "C"`
		}
		rows, err := conn.Query(ctx, "SELECT i, dense_rank() OVER (ORDER BY v"+coll+") FROM (VALUES "+strings.Join(lits, ", ")+") t(i, v)")
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		rank := make([]int64, len(vals))
		for rows.Next() {
			var i int32
			var r int64
			if err := rows.Scan(&i, &r); err != nil {
				t.Fatal(err)
			}
			rank[i] = r
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		for i := range vals {
			for j := range vals {
				want := sign(rank[i] - rank[j])
				if got := types.Compare(ty.OID, vals[i], vals[j]); got != want {
					t.Errorf("%s: Compare(%s, %s) = %d, PostgreSQL orders %d", typ, types.Out(ty.OID, vals[i]), types.Out(ty.OID, vals[j]), got, want)
				}
				if want == 0 && types.Hash(seedH, ty.OID, vals[i]) != types.Hash(seedH, ty.OID, vals[j]) {
					t.Errorf("%s: %s and %s are equal but hash differently", typ, types.Out(ty.OID, vals[i]), types.Out(ty.OID, vals[j]))
				}
			}
		}
	}
}

func sign(d int64) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}

// pgtypeBinary is pgx's binary encoding of the value PostgreSQL printed as
// text (ok=false where pgtype has no codec or cannot carry the value).
func pgtypeBinary(oid types.OID, text []byte) ([]byte, bool) {
	if oid == types.JSON || oid == types.JSONB {
		return nil, false // pgtype decodes JSON into Go maps and re-marshals: another document
	}
	if oid == types.JSONPath {
		return nil, false // pgtype sends jsonpath without jsonpath_recv's version byte
	}
	m := pgtype.NewMap()
	typ, ok := m.TypeForOID(oid)
	if !ok {
		return nil, false
	}
	v, err := typ.Codec.DecodeValue(m, oid, pgtype.TextFormatCode, text)
	if err != nil || v == nil {
		return nil, false
	}
	b, err := m.Encode(oid, pgtype.BinaryFormatCode, v, nil)
	if err != nil {
		return nil, false
	}
	return b, true
}
