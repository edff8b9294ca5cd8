package exec

import (
	"math"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A late filter's conjunct that compares a column of integers, numerics
// or dates with a constant or with another such column (TPC-H's
// l_shipdate >= date '1994-01-01', l_discount between 0.05 and 0.07,
// l_quantity < 24, l_commitdate < l_receiptdate) is described to the
// source as a ColCmp, which a source holding those values as scaled
// integers (the HEAD's typed pages) evaluates on them: no value is
// decoded into a types.Value, and the column is decoded only for the
// rows the whole filter keeps. The answer is the conjunct's: integers
// and numerics compare by value whatever their scales (PostgreSQL's
// int-to-numeric promotion and cmp_numerics), dates by their day
// numbers (±infinity are the extreme int32s, as in PostgreSQL), a date
// with a finite timestamp constant as date_cmp_timestamp does
// (datecmp.go); none of these comparisons can fail, so the errors of the
// filter are unchanged. A value the source cannot read so (a numeric
// held as text: NaN, ±Infinity, more than 18 digits; scales too far
// apart to compare in 64 bits) is left to the compiled conjunct.

// ColCmp is a conjunct `vector Col op constant` (Col2 < 0) or `vector
// Col op vector Col2` over scaled integers: a value is its integer /
// 10^scale (scale 0 for integers and dates).
type ColCmp struct {
	Col, Col2 int
	// Const and Scale are the constant (Col2 < 0).
	Const int64
	Scale uint8
	// mask holds bit sign+1 for each sign of compare(left, right) the
	// conjunct is true for; eqIsLess: an equal compare counts as less
	// (a date against a timestamp with a time of day, whose day Const is).
	mask     uint8
	eqIsLess bool
	// key, when set, makes it a join's key filter on vector Col
	// (joinfilter.go) instead: KeyMayMatch, on integer and date keys.
	key *keyFilter
	// topn, when set, makes it a top-N's bound on vector Col
	// (topn_raw.go) instead; topnText: compared as text bytes.
	topn     *topNFilter
	topnText bool
}

// Key says whether c is a join's key filter: a row is kept where its
// integer or date key (not a numeric: KeyMayMatch hashes the integer)
// may match (KeyMayMatch), dropped where it is NULL; while KeyOff, every
// row is kept; KeyCount counts the rows judged.
func (c *ColCmp) Key() bool { return c.key != nil }

// KeyMayMatch says whether an integer or date key v may match a build
// row (it hashes as valueHasher hashes the key's value).
func (c *ColCmp) KeyMayMatch(v int64) bool {
	h := c.key.h.mix64(uint64(v)) & c.key.mask
	return c.key.bits[h/64]&(1<<(h%64)) != 0
}

// KeyOff says whether the key filter has stopped (it keeps every row).
func (c *ColCmp) KeyOff() bool { return c.key.off.Load() }

// KeyCount counts seen rows judged, dropped of them dropped.
func (c *ColCmp) KeyCount(seen, dropped int) { c.key.count(seen, dropped) }

// Holds says whether the conjunct is true for a left value a/10^sa and
// a right value b/10^sb (ok=false: the scales are too far apart to
// compare in 64 bits; the conjunct must be evaluated on the values).
func (c *ColCmp) Holds(a int64, sa uint8, b int64, sb uint8) (holds, ok bool) {
	var s int
	if sa == sb {
		s = cmpInt(a, b)
	} else if s, ok = cmpScaled(a, sa, b, sb); !ok {
		return false, false
	}
	if s == 0 && c.eqIsLess {
		s = -1
	}
	return c.mask&(1<<(s+1)) != 0, true
}

// cmpScaled compares a/10^sa with b/10^sb by bringing both to the larger
// scale (ok=false when that overflows int64).
func cmpScaled(a int64, sa uint8, b int64, sb uint8) (int, bool) {
	if sa > sb {
		s, ok := cmpScaled(b, sb, a, sa)
		return -s, ok
	}
	// sa < sb: a·10^(sb-sa) against b (numfast.go)
	x, ok := rescaleSmall(a, int32(sb-sa))
	if !ok {
		return 0, false
	}
	return cmpInt(x, b), true
}

// cmpMasks are the signs each comparison operator is true for (bit
// sign+1: less 1, equal 2, greater 4).
var cmpMasks = map[string]uint8{"<": 1, "<=": 3, "=": 2, "<>": 5, ">=": 6, ">": 4}

// flipMask is m for the operands swapped (less and greater exchanged).
func flipMask(m uint8) uint8 { return m&2 | m&1<<2 | m&4>>2 }

// colCmp is conjunct cj as a ColCmp over layout lay (nil when it is not
// one).
func (e *env) colCmp(cj plan.Scalar, lay layout) *ColCmp {
	op, ok := cj.(*plan.Op)
	if !ok || len(op.Args) != 2 {
		return nil
	}
	mask, ok := cmpMasks[op.Op]
	if !ok {
		return nil
	}
	l, r := op.Args[0], op.Args[1]
	lc, lok := l.(*plan.ColRef)
	rc, rok := r.(*plan.ColRef)
	if !lok && rok {
		l, r, lc, rc, lok, rok, mask = r, l, rc, lc, rok, lok, flipMask(mask)
	}
	if !lok {
		return nil
	}
	li, in := lay[lc.ID]
	if !in {
		return nil
	}
	lt, rt := lc.T.OID, r.Type().OID
	date := lt == plan.Date && (rt == plan.Date || rt == plan.Timestamp && !rok)
	if !date && !(scaledInt(lt) && scaledInt(rt)) {
		return nil
	}
	if rok {
		ri, in := lay[rc.ID]
		if !in {
			return nil
		}
		return &ColCmp{Col: li, Col2: ri, mask: mask}
	}
	if !constOnly(r) {
		return nil
	}
	cc := &compiler{e: e, lay: lay}
	ev, err := cc.compile(r)
	if err != nil {
		return nil
	}
	v, err := scalarOnce(ev)
	if err != nil || v == nil {
		return nil // the compiled conjunct gives the error, or NULL
	}
	out := &ColCmp{Col: li, Col2: -1, mask: mask}
	switch x := v.(type) {
	case int64:
		out.Const = x
	case types.DateVal:
		out.Const = int64(x)
	case types.TimestampVal:
		if x == types.TimestampPosInf || x == types.TimestampNegInf {
			return nil
		}
		day, rem := int64(x)/usecsPerDay, int64(x)%usecsPerDay
		if rem < 0 {
			day, rem = day-1, rem+usecsPerDay
		}
		// date_cmp_timestamp: the date's midnight against the timestamp
		out.Const, out.eqIsLess = day, rem != 0
	case *types.Decimal:
		if x.NaN || x.Inf != 0 || !x.V.IsInt64() || x.Scale < 0 || x.Scale > math.MaxUint8 {
			return nil
		}
		out.Const, out.Scale = x.V.Int64(), uint8(x.Scale)
	default:
		return nil
	}
	return out
}

// scaledInt says whether values of type oid are compared as integers
// scaled by a power of ten (the integer types and numeric).
func scaledInt(oid plan.OID) bool {
	switch oid {
	case plan.Int2, plan.Int4, plan.Int8, plan.Numeric:
		return true
	}
	return false
}

// constOnly says whether s reads no column, parameter or subquery and
// calls nothing stable or volatile (its value is the same for every row).
func constOnly(s plan.Scalar) bool {
	if _, ok := s.(*plan.Const); ok {
		return true
	}
	return foldable(s)
}

// ColCmp is conjunct k as a comparison a source may evaluate on its
// stored scaled integers (nil: evaluate it with Apply).
func (f *LateFilter) ColCmp(k int) *ColCmp { return f.steps[k].cmp }
