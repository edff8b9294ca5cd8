package types_test

import (
	"context"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/types"
)

// TestFloatDigitsMatchPostgres compares FormatFloatDigits with
// float8out and float4out under extra_float_digits 0, -1, -5 and -15
// over seeded random values of every magnitude.
func TestFloatDigitsMatchPostgres(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 100000, 1e15, 1e14, 123456789012345, 1234567890123456, 0.0001, 0.00001, 1e-5, 9.9999999999999995e-5,
		0.1, 0.3, 1.0 / 3, 2.0 / 3, 5e-324, math.MaxFloat64, 1e22, 1e21, 999999.5, 9999995, 0.00009999995, math.Inf(1), math.Inf(-1), math.NaN()}
	for i := 0; i < 3000; i++ {
		var v float64
		switch i % 3 {
		case 0:
			v = math.Ldexp(rng.Float64()+0.5, rng.Intn(2100)-1075)
		case 1:
			v = float64(rng.Intn(2000000)) / math.Pow(10, float64(rng.Intn(12)))
		case 2:
			v = math.Round(rng.Float64()*1e6) * math.Pow(10, float64(rng.Intn(40)-20))
		}
		if rng.Intn(2) == 0 {
			v = -v
		}
		xs = append(xs, v)
	}
	lits := make([]string, len(xs))
	for i, x := range xs {
		lits[i] = strconv.FormatFloat(x, 'g', -1, 64)
		if math.IsNaN(x) {
			lits[i] = "NaN"
		} else if math.IsInf(x, 0) {
			lits[i] = map[bool]string{true: "Infinity", false: "-Infinity"}[x > 0]
		}
	}
	bad := 0
	for _, efd := range []int{0, -1, -5, -15} {
		for _, typ := range []string{"float8", "float4"} {
			if _, err := conn.Exec(ctx, "SET extra_float_digits = "+strconv.Itoa(efd)); err != nil {
				t.Fatal(err)
			}
			rows, err := conn.Query(ctx, "SELECT v::"+typ+"::text, v::"+typ+"::float8 FROM unnest('{"+strings.Join(lits, ",")+"}'::float8[]) WITH ORDINALITY u(v, n) WHERE abs(v) <= 3.4e38 OR '"+typ+"' = 'float8' OR v <> v ORDER BY n")
			if err != nil {
				t.Fatal(err)
			}
			bits := 64
			if typ == "float4" {
				bits = 32
			}
			for rows.Next() {
				var want string
				var v float64
				if err := rows.Scan(&want, &v); err != nil {
					t.Fatal(err)
				}
				if got := types.FormatFloatDigits(v, bits, efd); got != want {
					bad++
					if bad < 30 {
						t.Errorf("%s %v at extra_float_digits %d: PostgreSQL %s, sidecar %s", typ, v, efd, want, got)
					}
				}
			}
			rows.Close()
		}
	}
	if bad > 0 {
		t.Errorf("%d differences", bad)
	}
}
