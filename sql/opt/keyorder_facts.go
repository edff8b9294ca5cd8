package opt

import "github.com/sidecar-dev/sidecar/sql/plan"

// infallibleCall says whether calling f cannot fail (keyorder.go's
// infallible): coalesce of arguments that cannot fail, or a library
// function whose facts say it cannot fail for any value of its
// arguments read per row, given its constant ones
// (builtin.Call.CannotFail), each argument itself infallible.
func infallibleCall(f *plan.Func) bool {
	if f.Ext != nil || !infallible(f.Args...) {
		return false
	}
	if f.Call == nil {
		return f.Name == "coalesce" // greatest/least compare, nullif tests equality: not claimed
	}
	consts := make([]*string, len(f.Args))
	for i, a := range f.Args {
		if c, ok := a.(*plan.Const); ok {
			if c.Null {
				return false // strict: NULL, but not worth a fact
			}
			text := c.Text
			consts[i] = &text
		}
	}
	return f.Call.CannotFail(consts)
}

// printsAsText says whether a cast from type from to to is a type's
// output function into unbounded text or varchar, which cannot fail for
// these types (their output prints every value, infinities and NaN
// included).
func printsAsText(from plan.OID, to plan.Type) bool {
	if to.OID != plan.Text && to.OID != plan.Varchar || to.Mod >= 0 {
		return false
	}
	switch from {
	case plan.Int2, plan.Int4, plan.Int8, plan.Numeric, plan.Float4, plan.Float8, plan.Bool, plan.Date,
		plan.Timestamp, plan.Timestamptz, plan.Text, plan.Varchar, plan.UUID:
		return true
	}
	return false
}

// textual: text and varchar, which compare with text's operators (a
// varchar is binary-coercible to text: `varchar_col < $1` is text < text).
func textual(oid plan.OID) bool { return oid == plan.Text || oid == plan.Varchar }
