package exec

import (
	"strings"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// TextOrder orders text under a collation other than byte order (a libc
// locale proven to order as the server's: sqlfront/collate.go). It must
// be deterministic: Compare is 0 only for equal strings, so equality
// stays bytewise and hashing is unaffected.
type TextOrder interface {
	Compare(a, b string) int
}

// collatedOID says whether values of type oid compare under the
// statement's text order: text, varchar and char(n) (name compares as
// "C", "char" has no collation).
func collatedOID(oid plan.OID) bool {
	return oid == plan.Text || oid == plan.Varchar || oid == plan.Bpchar || oid == plan.Unknown
}

// compareIn is types.Compare, with text types ordered by ord when it is
// set (char(n) without its trailing blanks, as bpcharcmp).
func compareIn(ord TextOrder, oid plan.OID, a, b types.Value) int {
	if ord != nil && collatedOID(oid) {
		x, ok := a.(string)
		y, ok2 := b.(string)
		if ok && ok2 {
			if oid == plan.Bpchar {
				x, y = strings.TrimRight(x, " "), strings.TrimRight(y, " ")
			}
			return ord.Compare(x, y)
		}
	}
	return types.Compare(oid, a, b)
}

// keyOrder is the text order a sort key of type oid uses (nil: bytes).
func (e *env) keyOrder(oid plan.OID) TextOrder {
	if collatedOID(oid) {
		return e.textOrder
	}
	return nil
}

// collatedInit is init with the states that order text — min/max, an
// aggregate's ORDER BY, an ordered-set aggregate's WITHIN GROUP —
// ordering it by the statement's text order.
func (e *env) collatedInit(init func() aggState) func() aggState {
	if e.textOrder == nil || init == nil {
		return init
	}
	return func() aggState {
		s := init()
		switch st := s.(type) {
		case *minMaxAgg:
			st.ord = e.textOrder
		case *stringAgg: // its ORDER BY keys (aggextra.go)
			st.ord = e.textOrder
		case *arrayAgg: // array_agg … ORDER BY (array.go)
			st.ord = e.textOrder
		case *jsonAgg: // json[b]_agg, json[b]_object_agg … ORDER BY (jsonagg.go)
			st.ord = e.textOrder
		case *orderedSetAgg: // mode, percentile_disc WITHIN GROUP (aggextra.go)
			st.ord = e.textOrder
		}
		return s
	}
}
