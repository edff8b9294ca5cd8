package exec

import (
	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// libAggInit is the state constructor of an aggregate the function
// library computes (sql/builtin: stddev, variance and their kin), for
// grouped queries and windows alike.
func libAggInit(name string, arg plan.OID) (func() aggState, error) {
	a, err := (*builtin.Registry)(nil).ResolveAggregate(name, arg)
	if err != nil {
		return nil, unsupported("the aggregate " + name + "(" + plan.T(arg).String() + ")")
	}
	return func() aggState { return libAgg{a.New()} }, nil
}

// libAggFloat says whether name is a library aggregate whose float
// answer depends on the order rows reach it (PostgreSQL's float8_accum
// is not associative), so a window must see peers in PostgreSQL's order.
func libAggFloat(name string) bool {
	switch name {
	case "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop":
		return true
	}
	return false
}

// libAgg adapts a library aggregate's state to the executor's.
type libAgg struct{ s builtin.AggState }

func (l libAgg) add(v types.Value) error { return libraryErr(l.s.Step(v)) }

func (l libAgg) result() (types.Value, error) {
	v, err := l.s.Final()
	return v, libraryErr(err)
}
