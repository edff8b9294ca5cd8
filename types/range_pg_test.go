package types_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/types"
)

// rangeElemInputs are bound texts per range type: ordinary values, the
// subtype's extremes and infinities, values its canonical function
// overflows on, and malformed ones.
var rangeElemInputs = map[types.OID][]string{
	types.Int4range: {"0", "1", "2", "3", "5", "-1", "-7", " 4", "10", "2147483647", "-2147483648", "2147483648", "1.5", "x", "00012"},
	types.Int8range: {"0", "1", "2", "3", "5", "-1", "-7", " 4", "10", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1.5", "x"},
	types.Numrange:  {"0", "1", "1.5", "1.50", "2", "-0.25", "3e2", "NaN", "Infinity", "-Infinity", "1e-3", "10", "abc", "-0"},
	types.Daterange: {"2020-01-01", "2020-01-02", "2020-02-29", "2021-02-29", "1999-12-31", "infinity", "-infinity", "5874897-12-31", "4713-01-01 BC", "2020-01-05", "20200103", "x"},
	types.Tsrange:   {"2020-01-01 00:00", "2020-01-01 10:00:00.5", "2020-01-02", "2019-12-31 23:59:59.999999", "infinity", "-infinity", "2020-01-01T10:00", "2020-01-01 25:00", "1999-01-08 04:05:06", "x"},
	types.Tstzrange: {"2020-01-01 00:00+00", "2020-01-01 10:00:00.5+02", "2020-01-02", "2020-03-29 01:30", "2020-07-01 12:00-04", "infinity", "-infinity", "2019-12-31 23:59:59.999999Z", "2020-01-01 25:00", "x"},
}

// rangeInputs are generated range literals of type oid: brackets, bounds
// (quoted, escaped, empty for infinite), whitespace, "empty" in any case
// and malformed ones.
func rangeInputs(r *rand.Rand, oid types.OID, n int) []string {
	out := []string{"empty", " EMPTY ", "emptyx", "", "[", "(,)", "[,]", "[1", "(1,2,3)", "[1,2) x", `["1","2"]`, "1,2", `[\1,2)`, `["",1]`}
	elems := rangeElemInputs[oid]
	bnd := func() string {
		switch r.IntN(8) {
		case 0:
			return ""
		case 1:
			return `"` + elems[r.IntN(len(elems))] + `"`
		case 2:
			e := elems[r.IntN(len(elems))]
			if len(e) > 0 {
				return e[:1] + `\` + e[1:]
			}
			return e
		}
		return elems[r.IntN(len(elems))]
	}
	for len(out) < n {
		var b strings.Builder
		if r.IntN(10) == 0 {
			b.WriteString(" ")
		}
		b.WriteByte("[("[r.IntN(2)])
		b.WriteString(bnd())
		b.WriteByte(',')
		b.WriteString(bnd())
		b.WriteByte("])"[r.IntN(2)])
		if r.IntN(12) == 0 {
			b.WriteString([]string{" ", "x", ",", "\t"}[r.IntN(4)])
		}
		out = append(out, b.String())
	}
	return out
}

var rangeTypes = []types.OID{types.Int4range, types.Int8range, types.Numrange, types.Daterange, types.Tsrange, types.Tstzrange}

// TestRangeMatchesPostgres (issue 23): generated literals of the six
// built-in range types through range_in (its parser, the subtype's
// input, make_range's checks and the discrete types' canonical form),
// range_out, range_send/recv and the constructors, against PostgreSQL
// (errors with the same SQLSTATE and message); the set operations and
// predicates over pairs of the valid ones (@> <@ && << >> &< &> -|- + *
// - range_merge, element containment); ordering as ORDER BY orders;
// tstzrange in a session TimeZone other than UTC.
func TestRangeMatchesPostgres(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	r := rand.New(rand.NewPCG(uint64(seed.Or(t, seedFlag, 31)), 13))
	c := &pgChecker{t: t, conn: conn, refusalsOK: true}
	b := []types.OID{types.Bool}
	for _, oid := range rangeTypes {
		name := types.NameOf(oid)
		var valid []types.Value
		for _, in := range rangeInputs(r, oid, 400) {
			v, err := types.In(oid, -1, in)
			c.check("SELECT "+quote(in)+"::"+name, []types.Value{v}, err, []types.OID{oid})
			if err == nil {
				valid = append(valid, v)
			}
		}
		elems := rangeElemInputs[oid]
		elem := types.RangeElem(oid)
		for range 150 {
			lo, hi := elems[r.IntN(len(elems))], elems[r.IntN(len(elems))]
			flags := []string{"[]", "[)", "(]", "()", "[", "x)", "[))"}[r.IntN(7)]
			lv, lerr := types.In(elem, -1, lo)
			hv, herr := types.In(elem, -1, hi)
			if lerr != nil || herr != nil {
				continue
			}
			if r.IntN(6) == 0 {
				lv, lo = nil, "NULL"
			} else {
				lo = quote(lo)
			}
			if r.IntN(6) == 0 {
				hv, hi = nil, "NULL"
			} else {
				hi = quote(hi)
			}
			v, err := types.MakeRange(oid, lv, hv, flags)
			c.check("SELECT "+name+"("+lo+", "+hi+", "+quote(flags)+")", []types.Value{v}, err, []types.OID{oid})
		}
		if len(valid) < 20 {
			t.Fatalf("%s: only %d valid inputs", name, len(valid))
		}
		for range 150 {
			x, y := valid[r.IntN(len(valid))].(types.RangeVal), valid[r.IntN(len(valid))].(types.RangeVal)
			lx, ly := quote(types.Out(oid, x))+"::"+name, quote(types.Out(oid, y))+"::"+name
			got := []types.Value{types.RangeContains(oid, x, y), types.RangeContains(oid, y, x), types.RangeOverlaps(oid, x, y),
				types.RangeBefore(oid, x, y), types.RangeAfter(oid, x, y), types.RangeOverleft(oid, x, y), types.RangeOverright(oid, x, y),
				types.RangeAdjacent(oid, x, y), types.Compare(oid, x, y) == 0, types.Compare(oid, x, y) < 0}
			c.check("SELECT "+lx+" @> "+ly+", "+lx+" <@ "+ly+", "+lx+" && "+ly+", "+lx+" << "+ly+", "+lx+" >> "+ly+", "+
				lx+" &< "+ly+", "+lx+" &> "+ly+", "+lx+" -|- "+ly+", "+lx+" = "+ly+", "+lx+" < "+ly,
				got, nil, []types.OID{types.Bool, types.Bool, types.Bool, types.Bool, types.Bool, types.Bool, types.Bool, types.Bool, types.Bool, types.Bool})
			u, err := types.RangeUnion(oid, x, y, true)
			c.check("SELECT "+lx+" + "+ly, []types.Value{u}, err, []types.OID{oid})
			m, err := types.RangeUnion(oid, x, y, false)
			c.check("SELECT range_merge("+lx+", "+ly+")", []types.Value{m}, err, []types.OID{oid})
			i, err := types.RangeIntersect(oid, x, y)
			c.check("SELECT "+lx+" * "+ly, []types.Value{i}, err, []types.OID{oid})
			d, err := types.RangeMinus(oid, x, y)
			c.check("SELECT "+lx+" - "+ly, []types.Value{d}, err, []types.OID{oid})
			e := elems[r.IntN(len(elems))]
			if ev, err := types.In(elem, -1, e); err == nil {
				c.check("SELECT "+lx+" @> "+quote(e)+"::"+types.NameOf(elem), []types.Value{types.RangeContainsElem(oid, x, ev)}, nil, b)
			}
		}
		checkOrder(t, conn, name, oid, valid)
	}
	// tstzrange in another session zone: bounds without an offset are
	// local times, output prints them in the zone.
	z, err := types.ParseZone("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SET TimeZone = 'America/New_York'"); err != nil {
		t.Fatal(err)
	}
	c.zone = z
	for _, in := range rangeInputs(r, types.Tstzrange, 300) {
		v, err := types.InIn(types.Tstzrange, -1, in, z)
		c.check("SELECT "+quote(in)+"::tstzrange", []types.Value{v}, err, []types.OID{types.Tstzrange})
		if err == nil {
			txt, err := types.ConvertIn(v, types.Tstzrange, types.Text, -1, z)
			c.check("SELECT "+quote(in)+"::tstzrange::text", []types.Value{txt}, err, []types.OID{types.Text})
		}
	}
	if c.err == 0 || c.err == c.n {
		t.Fatalf("%d of %d statements failed on PostgreSQL: the generator is broken", c.err, c.n)
	}
	t.Logf("%d statements, %d errors alike, %d refused (0A000)", c.n, c.err, c.refusals)
	if c.refusals*10 > c.n {
		t.Errorf("%d of %d refused", c.refusals, c.n)
	}
}
