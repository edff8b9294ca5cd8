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

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/types"
)

func connect(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; SET IntervalStyle = 'postgres'; SET extra_float_digits = 3; SET bytea_output = 'hex'"); err != nil {
		t.Fatal(err)
	}
	return conn
}

var catalogOIDs = []types.OID{types.Bool, types.Bytea, types.Char, types.Name, types.Int8, types.Int2, types.Int4, types.Text,
	types.Oid, types.JSON, types.Float4, types.Float8, types.Unknown, types.Bpchar, types.Varchar, types.Date, types.Time,
	types.Timestamp, types.Timestamptz, types.Interval, types.Timetz, types.Numeric, types.UUID, types.JSONB}

// TestCatalogMatchesPgType: every entry's facts against pg_type, and its
// array type's.
func TestCatalogMatchesPgType(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	for _, oid := range catalogOIDs {
		ty, ok := types.Lookup(oid)
		if !ok {
			t.Fatalf("Lookup(%d): missing", oid)
		}
		for _, o := range []types.OID{oid, ty.Array} {
			if o == 0 {
				continue
			}
			e, _ := types.Lookup(o)
			var name, sqlName, cat string
			var arr, elem uint32
			var pref bool
			var typlen int16
			err := conn.QueryRow(ctx, `SELECT typname::text, format_type(oid, NULL), typarray::int8, typelem::int8, typcategory::text, typispreferred, typlen
				FROM pg_type WHERE oid = $1`, o).Scan(&name, &sqlName, &arr, &elem, &cat, &pref, &typlen)
			if err != nil {
				t.Fatalf("pg_type %d: %v", o, err)
			}
			got := fmt.Sprintf("%s|%s|%d|%d|%c|%v", e.Name, e.SQLName, e.Array, e.Elem, dialect().Category(e), e.Preferred)
			want := fmt.Sprintf("%s|%s|%d|%d|%s|%v", name, sqlName, arr, elem, cat, pref)
			if o == oid {
				got += fmt.Sprintf("|%d", e.Len)
				want += fmt.Sprintf("|%d", typlen)
			}
			if got != want {
				t.Errorf("type %d: catalog %s, pg_type %s", o, got, want)
			}
		}
	}
}

// TestParseFormatMatchesFormatType: type names with modifiers parse to
// PostgreSQL's OID and typmod, and Format prints format_type's text.
func TestParseFormatMatchesFormatType(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	for _, name := range []string{"int", "integer", "int4", "smallint", "bigint", "real", "float", "float(24)", "float(25)", "double precision",
		"numeric", "numeric(12,2)", "decimal(5)", "numeric(3,-1)", "varchar(10)", "character varying(3)", "char", "character(4)", "bpchar",
		"text", `"char"`, "name", "timestamp(3)", "timestamp(3) with time zone", "timestamptz", "time(2)", "time with time zone",
		"timetz(1)", "interval", "interval(3)", "uuid", "json", "jsonb", "bytea", "oid", "bool", "boolean", "date", "text[]", "numeric(5,1)[]",
		"pg_catalog.int8", "timestamp without time zone", "varchar(0)", "numeric(1001)", "nosuchtype"} {
		var oid uint32
		var mod int32
		var fmtd string
		// The typmod of a real column: a temp table's attribute.
		_, pgErr := conn.Exec(ctx, "CREATE TEMP TABLE tm (x "+name+")")
		if pgErr == nil {
			pgErr = conn.QueryRow(ctx, "SELECT atttypid::int8, atttypmod, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'tm'::regclass AND attname = 'x'").Scan(&oid, &mod, &fmtd)
			if _, err := conn.Exec(ctx, "DROP TABLE tm"); err != nil {
				t.Fatal(err)
			}
		}
		ty, gmod, err := dialect().Parse(name)
		switch {
		case pgErr != nil && err != nil:
			continue
		case pgErr != nil:
			t.Errorf("%s: PostgreSQL %v, we parsed %d(%d)", name, pgErr, ty.OID, gmod)
		case err != nil:
			t.Errorf("%s: PostgreSQL %d(%d), we %v", name, oid, mod, err)
		case ty.OID != oid || gmod != mod || ty.Format(gmod) != fmtd:
			t.Errorf("%s: we %d(%d) %q, PostgreSQL %d(%d) %q", name, ty.OID, gmod, ty.Format(gmod), oid, mod, fmtd)
		}
	}
}

// TestCastContextMatchesPgCast: CastContext against pg_cast and
// PostgreSQL's I/O-cast rule, for every pair of catalog types.
func TestCastContextMatchesPgCast(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	kinds := map[string]types.CastKind{"i": types.CastImplicit, "a": types.CastAssignment, "e": types.CastExplicit}
	for _, from := range catalogOIDs {
		for _, to := range catalogOIDs {
			if from == types.Unknown || to == types.Unknown || from == to {
				continue
			}
			var ctxc string
			err := conn.QueryRow(ctx, "SELECT castcontext::text FROM pg_cast WHERE castsource = $1 AND casttarget = $2", from, to).Scan(&ctxc)
			want := types.CastNone
			switch {
			case err == nil:
				want = kinds[ctxc]
			case errors.Is(err, pgx.ErrNoRows):
				// find_coercion_pathway: I/O conversion to a string type in
				// assignment, from one explicitly.
				toS, fromS := isStringCat(to), isStringCat(from)
				switch {
				case toS:
					want = types.CastAssignment
				case fromS:
					want = types.CastExplicit
				}
			default:
				t.Fatal(err)
			}
			if got := dialect().CastContext(from, to); got != want {
				t.Errorf("cast %s → %s: %d, PostgreSQL %d", types.NameOf(from), types.NameOf(to), got, want)
			}
		}
	}
}

func isStringCat(o types.OID) bool {
	ty, _ := types.Lookup(o)
	return dialect().Category(ty) == types.CatString
}

// TestArithmeticMatchesPostgres: + - * / % between the numeric types,
// on bounds, zeros, NaN and infinities, and unary minus: result type,
// value text or SQLSTATE as PostgreSQL's.
func TestArithmeticMatchesPostgres(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	vals := map[string][]string{
		"int2":    {"0", "1", "-1", "32767", "-32768", "7"},
		"int4":    {"0", "-1", "2147483647", "-2147483648", "3"},
		"int8":    {"0", "-1", "9223372036854775807", "-9223372036854775808", "10"},
		"float4":  {"0", "-0", "1.5", "3.4e38", "NaN", "Infinity", "1e-30", "0.1"},
		"float8":  {"0", "1e308", "NaN", "-Infinity", "1e-300", "0.1", "3"},
		"numeric": {"0", "1.50", "-7.125", "NaN", "Infinity", "-Infinity", "3", "0.001"},
	}
	var n, agree int
	for lt, lvs := range vals {
		for rt, rvs := range vals {
			for _, op := range []string{"+", "-", "*", "/", "%"} {
				res := types.ArithResult(op, mustParse(t, lt), mustParse(t, rt))
				for _, l := range lvs {
					for _, r := range rvs {
						q := fmt.Sprintf("SELECT ('%s'::%s %s '%s'::%s)::text, pg_typeof('%s'::%s %s '%s'::%s)::oid::int8", l, lt, op, r, rt, l, lt, op, r, rt)
						var text *string
						var typ int64
						err := conn.QueryRow(ctx, q).Scan(&text, &typ)
						var pe *pgconn.PgError
						if err != nil && !errors.As(err, &pe) {
							t.Fatal(err)
						}
						n++
						if pe != nil && pe.Code == "42883" {
							if res != 0 {
								t.Errorf("%s: PostgreSQL has no operator; we type it %s", q, types.NameOf(res))
							}
							continue
						}
						if pe == nil && types.OID(typ) != res {
							t.Errorf("%s: result type %s, PostgreSQL %s", q, types.NameOf(res), types.NameOf(types.OID(typ)))
							continue
						}
						got, gerr := arith(op, res, lt, l, rt, r)
						if !sameAnswer(t, q, text, pe, got, gerr) {
							continue
						}
						agree++
					}
				}
			}
		}
		for _, v := range lvs {
			q := fmt.Sprintf("SELECT (-('%s'::%s))::text", v, lt)
			var text *string
			err := conn.QueryRow(ctx, q).Scan(&text)
			var pe *pgconn.PgError
			if err != nil && !errors.As(err, &pe) {
				t.Fatal(err)
			}
			oid := mustParse(t, lt)
			x, _ := types.In(oid, -1, v)
			got, gerr := types.Neg(oid, x)
			n++
			if sameAnswer(t, q, text, pe, outOrEmpty(oid, got), gerr) {
				agree++
			}
		}
	}
	t.Logf("%d expressions, %d identical to PostgreSQL", n, agree)
}

// queryText runs a one-value query: its text, or PostgreSQL's error.
func queryText(ctx context.Context, t *testing.T, conn *pgx.Conn, q string) (*string, *pgconn.PgError) {
	t.Helper()
	var text *string
	err := conn.QueryRow(ctx, q).Scan(&text)
	var pe *pgconn.PgError
	if err != nil && !errors.As(err, &pe) {
		t.Fatalf("%s: %v", q, err)
	}
	return text, pe
}

func mustParse(t *testing.T, name string) types.OID {
	ty, _, err := types.Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	return ty.OID
}

func outOrEmpty(oid types.OID, v types.Value) string {
	if v == nil {
		return ""
	}
	return types.Out(oid, v)
}

// arith evaluates l op r as the catalog does: each operand converted to
// the result type, then Arith.
func arith(op string, res types.OID, lt, l, rt, r string) (string, error) {
	conv := func(typ, s string) (types.Value, error) {
		oid, _, _ := types.Parse(typ)
		v, err := types.In(oid.OID, -1, s)
		if err != nil {
			return nil, err
		}
		return types.Convert(v, oid.OID, res, -1)
	}
	a, err := conv(lt, l)
	if err != nil {
		return "", err
	}
	b, err := conv(rt, r)
	if err != nil {
		return "", err
	}
	v, err := types.Arith(op, res, a, b)
	if err != nil {
		return "", err
	}
	return types.Out(res, v), nil
}

func sameAnswer(t *testing.T, q string, text *string, pe *pgconn.PgError, got string, gerr error) bool {
	t.Helper()
	var te *types.Error
	switch {
	case pe != nil && gerr == nil:
		t.Errorf("%s: PostgreSQL %s %q, we answered %q", q, pe.Code, pe.Message, got)
	case pe != nil && (!errors.As(gerr, &te) || te.Code != pe.Code):
		t.Errorf("%s: PostgreSQL %s %q, we %v", q, pe.Code, pe.Message, gerr)
	case pe == nil && gerr != nil:
		t.Errorf("%s: PostgreSQL %q, we %v", q, *text, gerr)
	case pe == nil && got != *text:
		t.Errorf("%s: %q, PostgreSQL %q", q, got, *text)
	default:
		return true
	}
	return false
}

// TestAggregatesMatchPostgres: the result type of each aggregate over
// each type, and sum(real) over random data adding in float4.
func TestAggregatesMatchPostgres(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	for _, typ := range []string{"int2", "int4", "int8", "float4", "float8", "numeric", "text", "varchar", "bool", "date", "timestamp", "timestamptz", "interval", "uuid", "bytea", "oid", "time", "name", "bpchar"} {
		oid := mustParse(t, typ)
		for _, fn := range []string{"count", "sum", "avg", "min", "max"} {
			var rt int64
			err := conn.QueryRow(ctx, fmt.Sprintf("SELECT pg_typeof(%s(x))::oid::int8 FROM (SELECT NULL::%s AS x) s", fn, typ)).Scan(&rt)
			var pe *pgconn.PgError
			if err != nil && !errors.As(err, &pe) {
				t.Fatal(err)
			}
			got, gerr := dialect().AggResult(fn, oid)
			switch {
			case pe != nil:
				var te *types.Error
				if !errors.As(gerr, &te) || te.Code != pe.Code {
					t.Errorf("%s(%s): PostgreSQL %s, we %v %v", fn, typ, pe.Code, types.NameOf(got), gerr)
				}
			case gerr != nil || got != types.OID(rt):
				t.Errorf("%s(%s): %s (%v), PostgreSQL %s", fn, typ, types.NameOf(got), gerr, types.NameOf(types.OID(rt)))
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed.Or(t, seedFlag, 23), 0))
	for range 20 {
		var lits []string
		var acc float64
		for range 200 {
			v, _ := types.In(types.Float4, -1, fmt.Sprint(float32(rng.Float64()*10)))
			lits = append(lits, types.Out(types.Float4, v))
			var err error
			if acc, err = types.Float4Sum(acc, v.(float64)); err != nil {
				t.Fatal(err)
			}
		}
		var want string
		if err := conn.QueryRow(ctx, "SELECT sum(x)::text FROM unnest('{"+strings.Join(lits, ",")+"}'::float4[]) x").Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := types.Out(types.Float4, acc); got != want {
			t.Errorf("sum of %d reals: %s, PostgreSQL %s", len(lits), got, want)
		}
	}
}

// TestIntervalFormatMatchesFormatType: an interval column's typmod with
// fields prints as format_type prints it (it printed "interval(2)" for
// interval day to second(2), and "interval(-1)" for interval year: psql's
// \d and information_schema read it).
func TestIntervalFormatMatchesFormatType(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	ty, ok := types.Lookup(types.Interval)
	if !ok {
		t.Fatal("no interval type")
	}
	for _, name := range []string{"interval", "interval(0)", "interval(6)", "interval year", "interval month", "interval day", "interval hour",
		"interval minute", "interval second", "interval second(3)", "interval year to month", "interval day to hour", "interval day to minute",
		"interval day to second", "interval day to second(2)", "interval hour to minute", "interval hour to second(0)", "interval minute to second(5)"} {
		var mod int32
		var fmtd string
		if _, err := conn.Exec(ctx, "CREATE TEMP TABLE tm (x "+name+")"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err := conn.QueryRow(ctx, "SELECT atttypmod, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'tm'::regclass AND attname = 'x'").Scan(&mod, &fmtd)
		if _, derr := conn.Exec(ctx, "DROP TABLE tm"); err != nil || derr != nil {
			t.Fatal(err, derr)
		}
		if got := ty.Format(mod); got != fmtd {
			t.Errorf("%s (typmod %d): we %q, PostgreSQL %q", name, mod, got, fmtd)
		}
	}
}
