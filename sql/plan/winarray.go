package plan

import pg "github.com/pganalyze/pg_query_go/v6"

// array_agg as a window function: the frame's values (NULLs included) in
// the window's order, an array of the argument's type, as PostgreSQL's
// array_agg over a window. The executor refuses it where peers that
// differ would be put in an order PostgreSQL's sort decides
// (sql/exec winarray.go).
func (b *binder) windowArrayAgg(c *winCall, f *pg.FuncCall) (Type, error) {
	if f.AggStar || len(c.args) != 1 {
		return Type{}, errorf(CodeUndefinedFunction, "function array_agg with %d arguments does not exist", len(c.args)).at(f.Location)
	}
	t := c.args[0].Type()
	switch {
	case t.OID == Unknown:
		return Type{}, unsupported("array_agg of an untyped literal", f.Location)
	case IsArray(t):
		return Type{}, unsupported("array_agg of arrays (multidimensional arrays)", f.Location)
	}
	at := ArrayType(T(t.OID))
	if at.OID == 0 {
		return Type{}, unsupported("array_agg over values of type "+t.String(), f.Location)
	}
	return at, nil
}
