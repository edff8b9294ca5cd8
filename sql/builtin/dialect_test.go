package builtin_test

import (
	"testing"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// TestDialectUnknownRefuses: a registry that does not know the server's
// major refuses (0A000) exactly the calls whose answers differ among
// PostgreSQL 14–18, and answers the others; one built for a major
// answers as that major (checked against each major by the
// differential tests with SIDECAR_PG_BIN).
func TestDialectUnknownRefuses(t *testing.T) {
	run := func(reg *builtin.Registry, name string, args []uint32, vals ...types.Value) (types.Value, string) {
		t.Helper()
		c, err := reg.Resolve(name, args)
		if err != nil {
			e, _ := builtin.AsError(err)
			return nil, e.Code
		}
		v, err := c.Eval(&builtin.Context{}, vals)
		if err != nil {
			e, _ := builtin.AsError(err)
			return nil, e.Code
		}
		return v, ""
	}
	tx, ts := []uint32{types.Text}, []uint32{types.Text, types.Timestamp}
	inf := types.TimestampPosInf
	for _, c := range []struct {
		version int
		name    string
		args    []uint32
		vals    []types.Value
		want    types.Value
		code    string
	}{
		{-1, "quote_ident", tx, []types.Value{"json"}, nil, "0A000"},
		{-1, "quote_ident", tx, []types.Value{"select"}, `"select"`, ""},
		{-1, "quote_ident", tx, []types.Value{"abc"}, "abc", ""},
		{150000, "quote_ident", tx, []types.Value{"json"}, "json", ""},
		{160000, "quote_ident", tx, []types.Value{"json"}, "json", ""},
		{160000, "quote_ident", tx, []types.Value{"system_user"}, `"system_user"`, ""},
		{170000, "quote_ident", tx, []types.Value{"json"}, `"json"`, ""},
		{-1, "date_trunc", ts, []types.Value{"bogus", inf}, nil, "0A000"},
		{-1, "date_trunc", ts, []types.Value{"day", inf}, inf, ""},
		{170000, "date_trunc", ts, []types.Value{"bogus", inf}, inf, ""},
		{180000, "date_trunc", ts, []types.Value{"bogus", inf}, nil, "22023"},
		{-1, "chr", []uint32{types.Int4}, []types.Value{int64(-1)}, nil, "0A000"},
		{140000, "chr", []uint32{types.Int4}, []types.Value{int64(-1)}, nil, "54000"},
		{150000, "chr", []uint32{types.Int4}, []types.Value{int64(-1)}, nil, "22023"},
		{140000, "regexp_like", []uint32{types.Text, types.Text}, []types.Value{"a", "a"}, nil, "42883"},
		{-1, "date_part", []uint32{types.Text, types.Interval}, []types.Value{"quarter", types.IntervalVal{Months: -7}}, nil, "0A000"},
		{170000, "date_part", []uint32{types.Text, types.Interval}, []types.Value{"quarter", types.IntervalVal{Months: -7}}, float64(-1), ""},
		{180000, "date_part", []uint32{types.Text, types.Interval}, []types.Value{"quarter", types.IntervalVal{Months: -7}}, float64(-3), ""},
		{-1, "regexp_like", []uint32{types.Text, types.Text}, []types.Value{"a", "a"}, nil, "0A000"}, // 15+ only (TestFunctionsOf15)
		{150000, "regexp_like", []uint32{types.Text, types.Text}, []types.Value{"a", "a"}, true, ""},
	} {
		reg := builtin.New()
		if c.version > 0 {
			reg = builtin.NewFor(types.Dialect{Version: c.version})
		}
		v, code := run(reg, c.name, c.args, c.vals...)
		if code != c.code || code == "" && v != c.want {
			t.Errorf("%d %s%v: %v %s, want %v %s", c.version, c.name, c.vals, v, code, c.want, c.code)
		}
	}
}

// TestFunctionsOf15 checks regexp_count, regexp_instr, regexp_substr,
// regexp_like and regexp_replace's start form (PostgreSQL 15's): absent
// on 14 (42883, as there), present from 15, and refused (0A000) when
// resolved by a registry whose major is unknown (sqlfront's flat path):
// the corpus on 14 found them answered where 14 fails (strings.sql:204–288).
func TestFunctionsOf15(t *testing.T) {
	tx, i4 := types.Text, types.Int4
	calls := []struct {
		name string
		args []types.OID
	}{{"regexp_count", []types.OID{tx, tx}}, {"regexp_instr", []types.OID{tx, tx, i4}}, {"regexp_substr", []types.OID{tx, tx}},
		{"regexp_like", []types.OID{tx, tx}}, {"regexp_replace", []types.OID{tx, tx, tx, i4}}}
	for _, c := range calls {
		for _, tc := range []struct {
			reg  *builtin.Registry
			want string // "" resolves
		}{{builtin.NewFor(types.Dialect{Version: 140000}), "42883"}, {builtin.NewFor(types.Dialect{Version: 150000}), ""},
			{builtin.NewFor(types.Dialect{}), ""}, {builtin.New(), "0A000"}} {
			_, err := tc.reg.Resolve(c.name, c.args)
			got := ""
			if e, ok := builtin.AsError(err); ok {
				got = e.Code
			} else if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("%s%v on major %d: got %q, want %q", c.name, c.args, tc.reg.Version(), got, tc.want)
			}
		}
	}
	// regexp_replace's flags form is every major's.
	if _, err := builtin.New().Resolve("regexp_replace", []types.OID{tx, tx, tx, tx}); err != nil {
		t.Errorf("regexp_replace(text, text, text, text): %v", err)
	}
}
