package query

import (
	"errors"
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// min and max over values that compare equal but print differently — 0
// and -0, 1.0 and 1.00 — answer the one PostgreSQL's transition function
// keeps: the later of equal values (float8smaller, numeric_smaller),
// which depends on the order its plan reads the rows in, not the order
// the scan reads them here. `SELECT min(n) FROM t` over 1.0 and 1.00
// answered 1.0 where PostgreSQL answered 1.00. Such a min/max is refused
// (the state's mixed flag); the page summaries' float extremes cannot
// tell 0 from -0, so a summary extreme of 0 scans instead.

// errSummaryZero sends a summarisable plan to the scan.
var errSummaryZero = errors.New("a float min/max of 0 from the summaries")

// errMinMaxTies refuses a min/max whose value PostgreSQL's read order
// decides.
func errMinMaxTies(fn string) error {
	return &types.Error{Code: types.CodeUnsupported,
		Message: "not supported yet: " + fn + " choosing among values that compare equal but print differently (0 and -0, 1.0 and 1.00): PostgreSQL's read order decides which"}
}

// numSamePrint says whether two equal numerics print alike (the same
// scale; NaN and the infinities print alike).
func numSamePrint(a, b numv) bool {
	return a.cls != numFinite || b.cls != numFinite || a.s == b.s
}

// sameExtreme says whether two tied extremes print alike.
func sameExtreme(a boundAgg, dst, src *acc) bool {
	switch kindVK(a.kind) {
	case vFloat:
		return math.Signbit(dst.mf) == math.Signbit(src.mf)
	case vNumeric:
		return numSamePrint(dst.nx.best, src.nx.best)
	}
	return true
}
