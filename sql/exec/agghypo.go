package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Hypothetical-set aggregates (sql/plan's agghypo.go): rank, dense_rank,
// percent_rank and cume_dist of the row of direct arguments among the
// group's rows in the WITHIN GROUP order, as PostgreSQL's
// hypothetical_rank_common and hypothetical_dense_rank_final compute
// them. Rows with NULL keys count (NULLs order as the keys say). The
// value counts rows, whatever order they arrive in; the state keeps
// counts, and for dense_rank the distinct keys before the hypothetical
// row (accounted against the statement's working memory).

// hypoAggFunc compiles a hypothetical-set aggregate: each row gives its
// direct arguments (constants) and keys.
func (c *compiler) hypoAggFunc(f *aggFunc, ae plan.AggExpr) error {
	args, err := c.compileArgs(ae.Args)
	if err != nil {
		return err
	}
	n := len(ae.Order)
	f.arg = rowWise(args, func(row []types.Value) (types.Value, error) {
		return &extraRow{vals: append([]types.Value(nil), row[:n]...), keys: append([]types.Value(nil), row[n:]...)}, nil
	})
	f.argT = plan.Unknown
	var keys []winKey
	for i, o := range ae.Order {
		oid := ae.Args[n+i].Type().OID
		keys = append(keys, winKey{idx: i, oid: oid, desc: o.Desc, nullsFirst: o.NullsFirst, ord: c.e.keyOrder(oid)})
	}
	name := ae.Name
	f.init = func() aggState { return &hypoAgg{name: name, keys: keys} }
	return nil
}

// hypoAgg is one group's state.
type hypoAgg struct {
	name string
	keys []winKey
	// rows: rows seen; before: rows ordered before the hypothetical
	// row; peers: rows tied with it.
	rows, before, peers int64
	// distinct: dense_rank's distinct keys ordered before it.
	distinct [][]types.Value
	mem      *memAcct
}

func (h *hypoAgg) charge(m *memAcct) { h.mem = m }

func (h *hypoAgg) add(v types.Value) error {
	r := v.(*extraRow)
	h.rows++
	switch c := compareKeys(h.keys, r.keys, r.vals); {
	case c < 0:
		h.before++
		if h.name == "dense_rank" {
			for _, d := range h.distinct {
				if compareKeys(h.keys, d, r.keys) == 0 {
					return nil
				}
			}
			if h.mem != nil {
				if err := h.mem.grow(h.name, r.rowBytes()); err != nil {
					return err
				}
			}
			h.distinct = append(h.distinct, r.keys)
		}
	case c == 0:
		h.peers++
	}
	return nil
}

func (h *hypoAgg) result() (types.Value, error) {
	switch h.name {
	case "rank":
		return h.before + 1, nil
	case "dense_rank":
		return int64(len(h.distinct)) + 1, nil
	case "percent_rank":
		if h.rows == 0 {
			return float64(0), nil
		}
		return float64(h.before) / float64(h.rows), nil
	}
	// cume_dist: the hypothetical row after its peers.
	return float64(h.before+h.peers+1) / float64(h.rows+1), nil
}
