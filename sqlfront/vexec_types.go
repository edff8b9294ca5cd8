package sqlfront

import (
	"reflect"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
)

// The session settings that change how values print (extra_float_digits,
// bytea_output, DateStyle, IntervalStyle) matter wherever a value of the
// type is printed: in a result column, and inside the statement when it
// is converted to text (a cast, ||, format, concat, a row or an array).
// settingsFollowed (vexec.go) decides from the types the statement
// evaluates. Before, those were only its plan's columns (the metadata),
// so a value computed and printed inside one expression was not seen:
// under extra_float_digits = 0, `SELECT 'x' || (1/3::float8)` answered
// x0.3333333333333333 where PostgreSQL prints x0.333333333333333, and
// under a server IntervalStyle iso_8601 `to_json(interval '1 day')`
// answered "1 day" for "P1D".

// planValueTypes adds to uses the type of every expression of q's plan:
// every scalar reachable from the plan tree, subqueries' plans included,
// and the element type of each array type. The walk is reflective so
// that an operator or expression added to sql/plan later is covered
// without a change here.
func planValueTypes(q *lplan.Query, uses map[uint32]bool) {
	scalarT := reflect.TypeOf((*lplan.Scalar)(nil)).Elem()
	mdT := reflect.TypeOf((*lplan.Metadata)(nil))
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if !v.IsValid() {
			return
		}
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
			return
		case reflect.Pointer:
			if v.IsNil() || v.Type() == mdT {
				return // the metadata's columns are added by the caller
			}
			if seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
		}
		if v.Type().Implements(scalarT) && v.CanInterface() {
			if s, ok := v.Interface().(lplan.Scalar); ok && (v.Kind() != reflect.Pointer || !v.IsNil()) {
				t := s.Type()
				uses[t.OID] = true
				if lplan.IsArray(t) {
					uses[lplan.ElemType(t).OID] = true
				}
			}
		}
		switch v.Kind() {
		case reflect.Pointer:
			walk(v.Elem())
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Value())
			}
		}
	}
	walk(reflect.ValueOf(q.Plan))
}
