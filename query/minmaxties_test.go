package query

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/types"
)

// minMaxTieRefusal reports whether err is the engine's refusal of a
// min/max among equal values printing differently (minmaxties.go),
// failing t when the data gives no cause: no min/max of a float or
// numeric column whose rows (passing the WHERE) hold two equal values
// printing differently (0 and -0; 1.0 and 1.00).
func minMaxTieRefusal(t *testing.T, err error, req Request, rows []refRow, where string) bool {
	t.Helper()
	var te *types.Error
	if !errors.As(err, &te) || te.Code != types.CodeUnsupported || !strings.Contains(te.Message, "compare equal but print differently") {
		return false
	}
	for _, a := range req.Aggs {
		if a.Func != "min" && a.Func != "max" {
			continue
		}
		c := colIndex(a.Col)
		k := modelSchema.Columns[c].Kind
		prints := map[string]map[string]bool{} // value's key → its texts
		for _, r := range rows {
			if req.Where != nil && refEval(req.Where, r) != 1 || r[c] == nil {
				continue
			}
			key := *r[c]
			switch v := refValue(k, r[c]); {
			case v.K == vFloat && v.F == 0:
				key = "0"
			case v.K == vNumeric:
				if q, ok := new(big.Rat).SetString(*r[c]); ok {
					key = q.RatString() // 1.0 and 1.00 alike
				}
			case v.K == vFloat && !math.IsNaN(v.F):
				continue
			}
			if prints[key] == nil {
				prints[key] = map[string]bool{}
			}
			prints[key][*r[c]] = true
			if len(prints[key]) > 1 {
				return true
			}
		}
	}
	t.Fatalf("%s: %s refused (%v), yet no min/max column has equal values printing differently", where, reqJSON(req), err)
	return true
}
