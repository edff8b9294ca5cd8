package exec

import (
	"slices"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// jsonAgg is json_agg, jsonb_agg, json_object_agg and jsonb_object_agg:
// array_agg's gathering (every input, NULLs kept, charged to the
// statement's memory, in ORDER BY order, refused where ties leave the
// order to PostgreSQL's plan) with the library printing the value.
type jsonAgg struct {
	arrayAgg
	t    plan.OID    // json or jsonb
	zone *types.Zone // the session's: a timestamptz's offset
	// major is the followed server's major (0: unknown): json_object_agg's
	// NULL key fails 22004 from 16, 22023 before (nullKeyErr).
	major int
}

// jsonAggInit is the state of ae when it is a json aggregate.
func jsonAggInit(ae plan.AggExpr, zone *types.Zone, dialect types.Dialect) (func() aggState, bool) {
	switch ae.Name {
	case "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
	default:
		return nil, false
	}
	elem, elem2 := ae.Args[0].Type().OID, plan.OID(0)
	if plan.OrderedAggArgs(ae.Name) == 2 {
		elem2 = ae.Args[1].Type().OID
	}
	t, name := ae.T.OID, ae.Name
	return func() aggState {
		return &jsonAgg{arrayAgg: arrayAgg{elem: elem, elem2: elem2, name: name}, t: t, zone: zone, major: dialect.Version / 10000}
	}, true
}

func (a *jsonAgg) result() (types.Value, error) {
	if len(a.rows) == 0 {
		return nil, nil
	}
	if a.elem2 != 0 {
		// A NULL key fails whatever the order of rows: before any
		// refusal of an order the rows' ties leave open.
		if err := a.nullKeyErr(a.rows); err != nil {
			return nil, err
		}
	}
	var rows []*aggRow
	var err error
	if a.t == types.JSONB && a.elem2 != 0 && !a.distinct {
		rows, err = a.jsonbObjectRows()
	} else {
		rows, err = a.ordered()
	}
	if err != nil {
		return nil, err
	}
	vals := make([]types.Value, len(rows))
	for i, r := range rows {
		vals[i] = r.v
	}
	var v types.Value
	if a.elem2 == 0 {
		v, err = builtin.JSONAgg(a.t, vals, a.elem, a.zone)
	} else {
		vals2 := make([]types.Value, len(rows))
		for i, r := range rows {
			vals2[i] = r.v2
		}
		v, err = builtin.JSONObjectAgg(a.t, vals, vals2, a.elem, a.elem2, a.zone)
	}
	if err != nil {
		return nil, libraryErr(err)
	}
	return v, nil
}

// jsonbObjectRows are jsonb_object_agg's rows in their ORDER BY order.
// A jsonb object keeps one value per key, the last one given, and sorts
// its keys: the rows' order matters only between rows of the same key
// with values that print differently, when the ORDER BY (or its
// absence) leaves them tied — refused then, as PostgreSQL's plan
// decides which comes last. Keys that differ, the usual case
// (jsonb_object_agg(kind, n) over a GROUP BY kind), are answered
// whatever the order.
func (a *jsonAgg) jsonbObjectRows() ([]*aggRow, error) {
	cmpKeys := func(x, y *aggRow) int { return compareAggKeys(a.ord, x.kt, x.order, x.keys, y.keys) } // aggextra.go
	rows := append([]*aggRow(nil), a.rows...)
	slices.SortStableFunc(rows, cmpKeys)
	if a.inOrder {
		return rows, nil
	}
	last := map[string]int{} // key text → its last row so far
	for i, r := range rows {
		if r.v == nil {
			continue // a NULL key fails in the library, as PostgreSQL's
		}
		k := types.Out(a.elem, r.v)
		if j, ok := last[k]; ok && cmpKeys(rows[j], r) == 0 && !sameValue(a.elem2, rows[j].v2, r.v2) {
			return nil, unsupported(a.aggName() + " whose value depends on the order of rows its ORDER BY leaves tied (PostgreSQL's plan decides it); add ORDER BY keys that tell the rows apart")
		}
		last[k] = i
	}
	return rows, nil
}

// nullKeyErr is json[b]_object_agg's error for a NULL key as the followed
// major raises it: PostgreSQL 16 made it 22004 "null value not allowed
// for object key" (json_object_agg_transfn_worker); before, and for
// jsonb_object_agg on every major, 22023 "field name must not be null"
// (the library's). Unknown major: refused.
func (a *jsonAgg) nullKeyErr(rows []*aggRow) error {
	for _, r := range rows {
		if r.v != nil {
			continue
		}
		switch {
		case a.t != types.JSON:
			return &types.Error{Code: "22023", Message: "field name must not be null"}
		case a.major >= 16:
			return &types.Error{Code: "22004", Message: "null value not allowed for object key"}
		case a.major == 0:
			return unsupported("json_object_agg of a NULL key when the followed server's major is unknown (its error differs by major)")
		}
		return &types.Error{Code: "22023", Message: "field name must not be null"}
	}
	return nil
}
