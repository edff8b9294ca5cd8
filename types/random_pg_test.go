package types_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/types"
)

// randNumeric is a numeric literal with up to 30 digits and scale 0–20,
// sometimes a special.
func randNumeric(rng *rand.Rand) string {
	if k := rng.IntN(40); k < 4 {
		return []string{"NaN", "Infinity", "-Infinity", "0"}[k]
	}
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteByte('-')
	}
	nd := 1 + rng.IntN(30)
	for i := range nd {
		c := byte('0' + rng.IntN(10))
		if i == 0 && c == '0' && nd > 1 {
			c = '1'
		}
		b.WriteByte(c)
	}
	s := b.String()
	if sc := rng.IntN(21); sc > 0 {
		digits := strings.TrimPrefix(s, "-")
		for len(digits) <= sc {
			digits = "0" + digits
		}
		digits = digits[:len(digits)-sc] + "." + digits[len(digits)-sc:]
		if strings.HasPrefix(s, "-") {
			digits = "-" + digits
		}
		s = digits
	}
	return s
}

// TestRandomNumericMatchesPostgres: seeded random numerics through
// + - * / %, the typmod coercion and the casts to float8 and int8,
// against PostgreSQL's text (or SQLSTATE).
func TestRandomNumericMatchesPostgres(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed.New(t, seedFlag), 0))
	const n = 400
	for range n {
		a, b := randNumeric(rng), randNumeric(rng)
		av, err := types.In(types.Numeric, -1, a)
		if err != nil {
			t.Fatalf("In(%q): %v", a, err)
		}
		bv, err := types.In(types.Numeric, -1, b)
		if err != nil {
			t.Fatalf("In(%q): %v", b, err)
		}
		for _, op := range []string{"+", "-", "*", "/", "%"} {
			q := fmt.Sprintf("SELECT ('%s'::numeric %s '%s'::numeric)::text", a, op, b)
			text, pe := queryText(ctx, t, conn, q)
			var got string
			v, gerr := types.Arith(op, types.Numeric, av, bv)
			if gerr == nil {
				got = types.Out(types.Numeric, v)
			}
			sameAnswer(t, q, text, pe, got, gerr)
		}
		p, s := 1+rng.IntN(25), rng.IntN(12)
		s = min(s, p)
		typ := fmt.Sprintf("numeric(%d,%d)", p, s)
		ty, mod, err := types.Parse(typ)
		if err != nil {
			t.Fatal(err)
		}
		q := fmt.Sprintf("SELECT ('%s'::%s)::text", a, typ)
		text, pe := queryText(ctx, t, conn, q)
		var got string
		v, gerr := types.Convert(av, ty.OID, ty.OID, mod)
		if gerr == nil {
			got = types.Out(types.Numeric, v)
		}
		sameAnswer(t, q, text, pe, got, gerr)
		for _, to := range []string{"float8", "float4", "int8", "int4"} {
			q := fmt.Sprintf("SELECT ('%s'::numeric::%s)::text", a, to)
			text, pe := queryText(ctx, t, conn, q)
			oid := mustParse(t, to)
			var got string
			v, gerr := types.Convert(av, types.Numeric, oid, -1)
			if gerr == nil {
				got = types.Out(oid, v)
			}
			sameAnswer(t, q, text, pe, got, gerr)
		}
	}
}

// TestRandomFloatMatchesPostgres: seeded random float4/float8 bit
// patterns through output, + - * /, and the casts to numeric and int8.
func TestRandomFloatMatchesPostgres(t *testing.T) {
	conn := connect(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed.New(t, seedFlag), 0))
	randFloat := func(oid types.OID) types.Value {
		if oid == types.Float4 {
			return float64(math.Float32frombits(rng.Uint32()))
		}
		if rng.IntN(2) == 0 {
			return math.Float64frombits(rng.Uint64())
		}
		return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20))
	}
	for range 300 {
		for _, oid := range []types.OID{types.Float4, types.Float8} {
			typ := types.NameOf(oid)
			a, b := randFloat(oid), randFloat(oid)
			if math.IsNaN(a.(float64)) || math.IsNaN(b.(float64)) {
				continue // NaN payloads differ; NaN itself is covered by the table tests
			}
			as, bs := types.Out(oid, a), types.Out(oid, b)
			text, pe := queryText(ctx, t, conn, fmt.Sprintf("SELECT ('%s'::%s)::text", as, typ))
			sameAnswer(t, "output of "+as, text, pe, as, nil)
			for _, op := range []string{"+", "-", "*", "/"} {
				q := fmt.Sprintf("SELECT ('%s'::%s %s '%s'::%s)::text", as, typ, op, bs, typ)
				text, pe := queryText(ctx, t, conn, q)
				var got string
				v, gerr := types.Arith(op, oid, a, b)
				if gerr == nil {
					got = types.Out(oid, v)
				}
				sameAnswer(t, q, text, pe, got, gerr)
			}
			for _, to := range []types.OID{types.Numeric, types.Int8} {
				q := fmt.Sprintf("SELECT ('%s'::%s::%s)::text", as, typ, types.NameOf(to))
				text, pe := queryText(ctx, t, conn, q)
				var got string
				v, gerr := types.Convert(a, oid, to, -1)
				if gerr == nil {
					got = types.Out(to, v)
				}
				sameAnswer(t, q, text, pe, got, gerr)
			}
		}
	}
}
