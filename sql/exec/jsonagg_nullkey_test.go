package exec

import (
	"testing"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// json_object_agg of a NULL key fails 22004 from PostgreSQL 16 and 22023
// before (checked on 14.23, 16.14, 17.10, 18.4); jsonb_object_agg fails
// 22023 on every major. sql/exec answered 22023 on 16–18 (found by the
// funcs helper running sql/exec's diff files on 18); with the major
// unknown it refuses.
func TestJSONObjectAggNullKeyByMajor(t *testing.T) {
	ae := plan.AggExpr{Name: "json_object_agg", T: plan.T(plan.JSON), Args: []plan.Scalar{&plan.Const{T: plan.T(plan.Text)}, &plan.Const{T: plan.T(plan.Int4)}}}
	rows := []types.Value{&aggRow{v: "a", v2: int64(1)}, &aggRow{v: nil, v2: int64(2)}}
	for _, c := range []struct {
		major int
		name  string
		code  string
	}{{14, "json_object_agg", "22023"}, {15, "json_object_agg", "22023"}, {16, "json_object_agg", "22004"}, {18, "json_object_agg", "22004"},
		{0, "json_object_agg", "0A000"}, {18, "jsonb_object_agg", "22023"}, {0, "jsonb_object_agg", "22023"}} {
		ae.Name, ae.T = c.name, plan.T(plan.JSON)
		if c.name == "jsonb_object_agg" {
			ae.T = plan.T(plan.JSONB)
		}
		init, ok := jsonAggInit(ae, nil, types.Dialect{Version: c.major * 10000})
		if !ok {
			t.Fatalf("%s: not a json aggregate", c.name)
		}
		st := init()
		for _, r := range rows {
			if err := st.add(r); err != nil {
				t.Fatal(err)
			}
		}
		_, err := st.result()
		te, _ := err.(*types.Error)
		if te == nil || te.Code != c.code {
			t.Errorf("%s of a NULL key on %d: %v, want %s", c.name, c.major, err, c.code)
		}
	}
}
