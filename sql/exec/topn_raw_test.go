package exec

import (
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// foldOrder is a text order other than bytes (case-insensitive first).
type foldOrder struct{}

func (foldOrder) Compare(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// TestTopNRawKeys: the top-N's bound is offered to a source's raw values
// only for keys whose raw order is the key's order: integers, numerics
// and dates, text and varchar under byte order; text under another
// collation (a TextOrder), char(n) (trailing blanks), floats, timestamps
// keep the compiled comparison. The raw judgement agrees with
// compareKey on each side of the bound, NULLs included.
func TestTopNRawKeys(t *testing.T) {
	for _, tc := range []struct {
		k          winKey
		text, want bool
	}{
		{winKey{oid: plan.Int4}, false, true},
		{winKey{oid: plan.Int8}, false, true},
		{winKey{oid: plan.Numeric}, false, true},
		{winKey{oid: plan.Date}, false, true},
		{winKey{oid: plan.Text}, true, true},
		{winKey{oid: plan.Varchar}, true, true},
		{winKey{oid: plan.Text, ord: foldOrder{}}, false, false},
		{winKey{oid: plan.Varchar, ord: foldOrder{}}, false, false},
		{winKey{oid: plan.Bpchar}, false, false},
		{winKey{oid: plan.Float8}, false, false},
		{winKey{oid: plan.Timestamp}, false, false},
	} {
		text, ok := rawTopNKey(tc.k)
		if ok != tc.want || ok && text != tc.text {
			t.Errorf("%v: raw %v text %v, want %v %v", tc.k.oid, ok, text, tc.want, tc.text)
		}
	}
	for _, desc := range []bool{false, true} {
		for _, nullsFirst := range []bool{false, true} {
			k := winKey{oid: plan.Int8, desc: desc, nullsFirst: nullsFirst}
			f := &topNFilter{key: k}
			c := f.step().cmp
			for _, bound := range []types.Value{nil, int64(5)} {
				f.set(bound)
				b := c.TopNBound()
				for _, row := range []types.Value{nil, int64(4), int64(5), int64(6)} {
					want := compareKey(k, row, bound) <= 0
					var got bool
					if row == nil || bound == nil {
						got = c.TopNNull(row == nil, b)
					} else {
						s, ok := TopNCmpInt(row.(int64), 0, b)
						got = ok && c.TopNKeeps(s)
					}
					if got != want {
						t.Errorf("desc %v nulls first %v: row %v bound %v: kept %v, want %v", desc, nullsFirst, row, bound, got, want)
					}
				}
			}
		}
	}
}
