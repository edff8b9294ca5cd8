package exec

import (
	"strings"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// constInSet compiles col [NOT] IN (constants) as a set look-up, when x
// reads a column and every element is a non-NULL constant of the
// column's own type, a type whose equality is equality of the Go values:
// integers; text and varchar by their bytes (under a libc text order
// too: it is deterministic, so equal only for equal strings, collate.go);
// char(n) without trailing blanks, as bpchareq. The elements are
// evaluated once and each row looked up once, where the general IN
// broadcasts each element to every row and compares it (TPC-H Q12, Q16,
// Q19: l_shipmode, p_container, p_size lists). slow is the general
// form, used for a batch holding a value of another Go type than
// expected. nil: not such a list.
func (c *compiler) constInSet(x *plan.InList, slow vexpr) (vexpr, error) {
	if _, ok := x.Arg.(*plan.ColRef); !ok {
		return nil, nil
	}
	oid := x.Arg.Type().OID
	switch oid {
	case plan.Int2, plan.Int4, plan.Int8, plan.Text, plan.Varchar, plan.Bpchar:
	default:
		return nil, nil
	}
	for _, l := range x.List {
		if k, ok := l.(*plan.Const); !ok || k.Null || k.T.OID != oid {
			return nil, nil
		}
	}
	arg, err := c.compile(x.Arg)
	if err != nil {
		return nil, err
	}
	bpchar := oid == plan.Bpchar
	ints, strs := map[int64]bool{}, map[string]bool{}
	for _, l := range x.List {
		f, err := c.compile(l)
		if err != nil {
			return nil, err
		}
		v, err := scalarOnce(f)
		if err != nil || v == nil {
			return nil, err
		}
		if n, ok := inSetInt(v); ok {
			ints[n] = true
		} else if s, ok := v.(string); ok {
			if bpchar {
				s = strings.TrimRight(s, " ")
			}
			strs[s] = true
		} else {
			return nil, nil
		}
	}
	match, miss := types.Value(true), types.Value(false)
	if x.Not {
		match, miss = false, true
	}
	return func(b *Batch, sel []int, out []types.Value) error {
		if err := arg(b, sel, out); err != nil {
			return err
		}
		for _, i := range sel {
			var hit bool
			switch v := out[i].(type) {
			case nil:
				continue // NULL IN (non-NULL constants) is NULL
			case string:
				if bpchar {
					v = strings.TrimRight(v, " ")
				}
				hit = strs[v]
			default:
				n, ok := inSetInt(v)
				if !ok {
					return slow(b, sel, out)
				}
				hit = ints[n]
			}
			if hit {
				out[i] = match
			} else {
				out[i] = miss
			}
		}
		return nil
	}, nil
}

// inSetInt is an integer value as an int64.
func inSetInt(v types.Value) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int16:
		return int64(n), true
	}
	return 0, false
}
