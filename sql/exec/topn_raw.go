package exec

import (
	"math"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The top-N's bound on its scan (topn_filter.go) judged on the source's
// raw values. As a compiled conjunct the bound decodes the first ORDER
// BY key of every row the scan's filter keeps into a types.Value (a
// boxed integer, an interned string) only to compare it with the bound
// and drop nearly all of them. A source holding the key as scaled
// integers (integer, numeric and date columns of the HEAD's typed
// pages) or as the text's bytes compares the stored value with the
// bound where it lies (ColCmp.TopN), and a whole page whose zone map
// says no row of it can enter the heap is not read at all
// (LateFilter.TopNPages). The order is the key's: integers and numerics
// by value (cmpScaled, as compareKey's cmp_numerics), dates by their day
// numbers, text bytewise only where the key's text order is bytes (ord
// nil: the C collation; text under another collation keeps the compiled
// conjunct), NULLs where NULLS FIRST/LAST puts them, DESC reversed. So a
// row is dropped exactly when compareKey would drop it.

// TopNBound is the top-N's bound as a source compares it: the worst kept
// row's first key, NULL, as a scaled integer or as text bytes.
type TopNBound struct {
	v    types.Value
	Null bool
	// Int / Scale: the bound as Int/10^Scale (IntOK: it is one; a NaN
	// or infinite numeric, or one past 64 bits, is not).
	Int   int64
	Scale uint8
	IntOK bool
	// Text is the bound's bytes (TextOK: a text key compared bytewise).
	Text   string
	TextOK bool
}

// newTopNBound is v as a bound a source compares raw values with.
func newTopNBound(v types.Value) *TopNBound {
	b := &TopNBound{v: v, Null: v == nil}
	switch x := v.(type) {
	case int64:
		b.Int, b.IntOK = x, true
	case types.DateVal:
		b.Int, b.IntOK = int64(x), true
	case *types.Decimal:
		if !x.NaN && x.Inf == 0 && x.V.IsInt64() && x.Scale >= 0 && x.Scale <= math.MaxUint8 {
			b.Int, b.Scale, b.IntOK = x.V.Int64(), uint8(x.Scale), true
		}
	case string:
		b.Text, b.TextOK = x, true
	}
	return b
}

// rawTopNKey says whether a top-N key k can be compared on raw values:
// integers, numerics and dates as scaled integers (text false), text and
// varchar under byte order as bytes (text true).
func rawTopNKey(k winKey) (text, ok bool) {
	switch {
	case scaledInt(k.oid) || k.oid == plan.Date:
		return false, true
	case (k.oid == plan.Text || k.oid == plan.Varchar) && k.ord == nil:
		return true, true
	}
	return false, false
}

// TopN says whether c is a top-N's bound (the source judges it with
// TopNBound, TopNNull and TopNKeeps, not Holds).
func (c *ColCmp) TopN() bool { return c.topn != nil }

// TopNText says whether the top-N's key is compared as text bytes (else
// as scaled integers).
func (c *ColCmp) TopNText() bool { return c.topnText }

// TopNBound is the bound now (nil while the heap is not full: every row
// is kept). It changes as the heap fills: a source reads it once per
// chunk of rows.
func (c *ColCmp) TopNBound() *TopNBound { return c.topn.bound.Load() }

// TopNNull says whether a row is kept when its key or the bound is NULL
// (not both non-NULL): compareKey's NULL order.
func (c *ColCmp) TopNNull(rowNull bool, b *TopNBound) bool {
	return nullOrder(rowNull, b.Null, c.topn.key.nullsFirst) <= 0
}

// TopNKeeps says whether a row is kept whose non-NULL key compares with
// the non-NULL bound as sign s (ascending order).
func (c *ColCmp) TopNKeeps(s int) bool {
	if c.topn.key.desc {
		s = -s
	}
	return s <= 0
}

// TopNCmpInt compares a key value a/10^sa with the bound b in ascending
// order (ok=false: it cannot be compared in 64 bits, or the bound is no
// scaled integer: evaluate the conjunct on the decoded value).
func TopNCmpInt(a int64, sa uint8, b *TopNBound) (int, bool) {
	if !b.IntOK {
		return 0, false
	}
	if sa == b.Scale {
		return cmpInt(a, b.Int), true
	}
	return cmpScaled(a, sa, b.Int, b.Scale)
}

// TopNPages is the top-N's bound of f when a source may skip a page on
// its zone map alone: every conjunct of f is a comparison that cannot
// fail (a ColCmp), so a row skipped unread could have raised no error.
// Nil otherwise.
func (f *LateFilter) TopNPages() *ColCmp {
	var t *ColCmp
	for _, st := range f.steps {
		switch {
		case st.cmp == nil:
			return nil
		case st.cmp.topn != nil:
			t = st.cmp
		}
	}
	return t
}
