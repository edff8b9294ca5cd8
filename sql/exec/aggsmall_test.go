package exec_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/sql/exec"
	"github.com/sidecar-dev/sidecar/sql/internal/plantest"
)

// TestSmallAggMatchesGeneral: numeric sums and averages of + - * over
// columns and constants (aggsmall.go's int64 path) give exactly what the
// general expressions give (coalesce(x, NULL) keeps an argument off the
// small path), over values that fit the int64, values and products that
// do not, NaN and NULL, with and without spilling groups to disk.
func TestSmallAggMatchesGeneral(t *testing.T) {
	cat, err := plantest.LoadCatalog("../plan/testdata/catalog.sql")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed.New(t, seedFlag), 3))
	num := func() *string {
		var s string
		switch r.IntN(12) {
		case 0:
			s = "9999999999999.99" // products past the int64
		case 1:
			s = "-9999999999999.99"
		case 2:
			s = "NaN"
		case 3:
			return nil
		default:
			s = fmt.Sprintf("%d.%02d", r.IntN(200000)-1000, r.IntN(100))
		}
		return &s
	}
	str := func(s string) *string { return &s }
	src := &memSource{rows: map[string][][]*string{}}
	for i := 0; i < 3000; i++ {
		row := []*string{str(fmt.Sprint(i/3 + 1)), str("1"), str("1"), str(fmt.Sprint(i%3 + 1)), num(), num(), num(), num(),
			str([]string{"A", "N", "R"}[r.IntN(3)]), str([]string{"F", "O"}[r.IntN(2)]),
			str("1998-01-01"), str("1998-01-01"), str("1998-01-01"), str("NONE"), str("AIR"), str("x")}
		src.rows["lineitem"] = append(src.rows["lineitem"], row)
	}
	exprs := []string{"l_quantity", "l_extendedprice * (1 - l_discount)", "l_extendedprice * (1 - l_discount) * (1 + l_tax)",
		"l_quantity - l_tax * 3", "l_linenumber * l_quantity + 2.5", "l_orderkey::int8 * 1000000"}
	for _, group := range []string{"l_returnflag, l_linestatus", "l_orderkey"} {
		for _, workMem := range []int64{0, 200 << 10} {
			var small, general []string
			for _, x := range exprs {
				small = append(small, fmt.Sprintf("sum(%s), avg(%s)", x, x))
				general = append(general, fmt.Sprintf("sum(coalesce(%s, NULL)), avg(coalesce(%s, NULL))", x, x))
			}
			q := "SELECT %s, %s, count(*) FROM lineitem GROUP BY %s" // rows compared sorted
			opts := exec.Options{WorkMem: workMem, TempDir: t.TempDir()}
			got := runSQLWith(cat, src, fmt.Sprintf(q, group, strings.Join(small, ", "), group), opts)
			want := runSQLWith(cat, src, fmt.Sprintf(q, group, strings.Join(general, ", "), group), opts)
			if strings.HasPrefix(got, "error") || strings.Count(got, "\n") < 5 {
				t.Fatalf("group by %s, work_mem %d: %.300s", group, workMem, got)
			}
			gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
			slices.Sort(gl[1:])
			slices.Sort(wl[1:])
			if len(gl) != len(wl) {
				t.Fatalf("group by %s, work_mem %d: %d rows, general %d", group, workMem, len(gl), len(wl))
			}
			for i := 1; i < len(gl); i++ { // the header names the expressions
				if gl[i] != wl[i] {
					t.Fatalf("group by %s, work_mem %d, row %d:\n got %s\nwant %s", group, workMem, i, gl[i], wl[i])
				}
			}
		}
	}
}
