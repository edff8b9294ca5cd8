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
		{-1, "regexp_like", []uint32{types.Text, types.Text}, []types.Value{"a", "a"}, true, ""},
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
