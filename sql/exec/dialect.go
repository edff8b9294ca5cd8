package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// The input of integers and numeric differs among the majors sidecar
// follows: from PostgreSQL 16 it takes 0x/0o/0b prefixes and underscores
// between digits ('0x1F'::int is 31), before 16 those fail 22P02. The
// library's input functions (types.In) are 16's; a statement for an
// older server checks the text through its dialect first: a cast of a
// string to an integer or numeric, and a literal typed as one. Before
// 15 the same check refuses interval input where 14's DecodeInterval
// answers otherwise than 15's (types/interval14.go), and under
// IntervalStyle sql_standard it refuses interval input with a leading
// '-' (types/intervalstyle.go). From 17 it refuses interval input
// reading as an infinity, which sidecar does not implement
// (types/interval17.go).

// dialectInput is the check the statement's dialect makes on text read
// as type to (nil: none needed).
func (c *compiler) dialectInput(to plan.OID) func(string) error {
	if c == nil || c.e == nil {
		return nil
	}
	old := c.e.dialect.Version != 0 && c.e.dialect.Version < 160000
	switch to {
	case plan.Int2, plan.Int4, plan.Int8, plan.Numeric:
		if !old {
			return nil
		}
	case plan.Interval: // 14's interval input (types/interval14.go), IntervalStyle sql_standard's, 17's infinities (interval17.go)
		v := c.e.dialect.Version
		if !(old && v < 150000) && !c.e.dialect.IntervalSQLStandard && v < 170000 {
			return nil
		}
	default:
		return nil
	}
	d := c.e.dialect
	return func(s string) error {
		_, err := d.In(to, -1, s)
		return err
	}
}

// dialectConverter is cv (the cast from → to) preceded by the dialect's
// check of a string's text.
func (c *compiler) dialectConverter(from, to plan.Type, cv conv) conv {
	if !isStr(from.OID) {
		return cv
	}
	check := c.dialectInput(to.OID)
	if check == nil {
		return cv
	}
	return func(v types.Value) (types.Value, error) {
		if s, ok := v.(string); ok {
			if err := check(s); err != nil {
				return nil, err
			}
		}
		if cv == nil {
			return v, nil
		}
		return cv(v)
	}
}

// dialectConst checks a literal typed as x's type in the dialect.
func (c *compiler) dialectConst(x *plan.Const) error {
	if x.Null {
		return nil
	}
	if check := c.dialectInput(x.T.OID); check != nil {
		return check(x.Text)
	}
	return nil
}
