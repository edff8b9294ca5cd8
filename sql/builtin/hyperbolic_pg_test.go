package builtin_test

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// TestHyperbolicMatchPostgres compares sinh, cosh, tanh, asinh, acosh
// and atanh with PostgreSQL (its C library) bit for bit over seeded
// random arguments of every magnitude and the algorithms' branch
// boundaries; a refusal (a result too close to a rounding midpoint of
// exp or log) is allowed, rarely, and for the arguments glibc computes
// with log1p (libm.go).
func TestHyperbolicMatchPostgres(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	var xs []float64
	for _, b := range []float64{0, 0x1p-28, 0x1p-55, 0.5 * math.Ln2, 1, 2, 22, 0x1p28, 709.78, 710.4758, 711, 0.5, 1e-300, 5e-324} {
		for _, v := range []float64{b, math.Nextafter(b, 0), math.Nextafter(b, 1000), -b, math.Nextafter(-b, 0)} {
			xs = append(xs, v)
		}
	}
	for i := 0; i < 6000; i++ {
		var v float64
		switch i % 6 {
		case 0:
			v = rng.Float64()*2 - 1
		case 1:
			v = rng.Float64()*6 - 3
		case 2:
			v = rng.Float64()*50 - 25
		case 3:
			v = rng.Float64()*1440 - 720
		case 4:
			v = math.Ldexp(rng.Float64()+0.5, rng.Intn(80)-60) * float64(1-2*rng.Intn(2))
		case 5:
			v = math.Ldexp(rng.Float64()+0.5, rng.Intn(1000)-300)
		}
		xs = append(xs, v)
	}
	conn := pgConn(t)
	reg := builtin.NewFor(types.Dialect{Version: 150000})
	compare := func(fn string, args []float64, maxRefused int) {
		lits := make([]string, len(args))
		for i, x := range args {
			lits[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		q := "SELECT " + fn + "(v)::text FROM unnest('{" + strings.Join(lits, ",") + "}'::float8[]) WITH ORDINALITY u(v, n) ORDER BY n"
		rows, err := conn.Query(t.Context(), q)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		var want []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			want = append(want, s)
		}
		rows.Close()
		call, err := reg.Resolve(fn, []uint32{types.Float8})
		if err != nil {
			t.Fatal(err)
		}
		bad, refused := 0, 0
		for i, x := range args {
			v, err := call.Eval(&builtin.Context{}, []types.Value{x})
			if err != nil {
				if e, ok := builtin.AsError(err); ok && e.Code == "0A000" {
					refused++
					continue
				}
				t.Fatalf("%s(%v): %v", fn, x, err)
			}
			if got := types.Out(types.Float8, v); got != want[i] {
				bad++
				if bad < 20 {
					t.Errorf("%s(%s): PostgreSQL %s, sidecar %s", fn, lits[i], want[i], got)
				}
			}
		}
		t.Logf("%s: %d arguments, %d differ, %d refused", fn, len(args), bad, refused)
		if refused > maxRefused || refused == len(args) {
			t.Errorf("%s: %d of %d refused", fn, refused, len(args))
		}
	}
	compare("sinh", xs, len(xs)/20)
	compare("cosh", xs, len(xs)/20)
	compare("tanh", xs, len(xs)/20)
	compare("asinh", xs, len(xs)) // the log1p range (|x| ≤ 2) is refused
	var ge1, in1 []float64
	for _, x := range xs {
		if a := math.Abs(x); a >= 1 {
			ge1 = append(ge1, a)
		} else {
			in1 = append(in1, x)
		}
	}
	for i := 0; i < 2000; i++ {
		ge1 = append(ge1, 1+rng.Float64()*2, 1+math.Ldexp(rng.Float64(), -rng.Intn(50)))
		in1 = append(in1, 1-math.Ldexp(rng.Float64(), -rng.Intn(50)))
	}
	compare("acosh", ge1, len(ge1)) // 1 < x ≤ 2 is refused
	compare("atanh", in1, len(in1)) // 2^-28 ≤ |x| < 1 is refused
}
