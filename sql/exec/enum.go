package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// User enum types (sql/plan enum.go): a scan reads an enum column's
// stored label into a types.EnumVal with the column's labels, a literal
// of an enum type is read with the query's (22P02 for a label the type
// lacks, as enum_in), and the casts between an enum and the string types
// are PostgreSQL's I/O casts (the label). Comparing, ordering, grouping
// and hashing work on the values themselves.

// DecodeColumn is the value of col's stored text s, of type oid (the
// plan's type of the column): types.In, or for an enum column the label
// read with the column's labels. A stored label the labels lack (added
// or renamed after the facts the statement reads were read) is refused:
// its order is not known.
func DecodeColumn(col *plan.ColumnDef, oid plan.OID, s string) (types.Value, error) {
	if col.Enum == nil || col.Enum.OID != oid {
		return types.In(oid, -1, s)
	}
	if col.Enum.Ambiguous(s) {
		return nil, &types.Error{Code: "0A000", Message: "the stored label \"" + s + "\" of enum type " + col.Enum.Name + " may be another label's former text: a label of the type was renamed from it and the text given to another label since (ALTER TYPE … RENAME VALUE, then ADD VALUE), and the mirror holds enum values as their text, not as PostgreSQL's label OIDs"}
	}
	v, ok := col.Enum.Value(s)
	if !ok {
		return nil, &types.Error{Code: "0A000", Message: "the label \"" + s + "\" of enum type " + col.Enum.Name + " is not in the type's labels sidecar read at this version (added or renamed since)",
			Hint: "the catalog poll reads the labels within seconds: run the statement again"}
	}
	return v, nil
}

// enumConst reads a literal of an enum type (ok false: x is not one).
func (c *compiler) enumConst(x *plan.Const) (types.Value, bool, error) {
	e := c.e.md.Enum(x.T.OID)
	if e == nil || x.Null {
		return nil, false, nil
	}
	v, err := e.In(x.Text)
	return v, true, err
}

// enumCast compiles a cast to or from an enum type (ok false: neither
// side is one): to a string type the label, from one enum_in. Other
// casts of an enum (to another enum, to a number) are refused.
func (c *compiler) enumCast(arg vexpr, from, to plan.Type) (vexpr, bool, error) {
	fe, te := c.e.md.Enum(from.OID), c.e.md.Enum(to.OID)
	if fe == nil && te == nil {
		return nil, false, nil
	}
	switch {
	case fe != nil && from.OID == to.OID:
		return arg, true, nil
	case fe != nil && isStr(to.OID):
		return func(b *Batch, sel []int, out []types.Value) error {
			if err := arg(b, sel, out); err != nil {
				return err
			}
			for _, i := range sel {
				if v, ok := out[i].(types.EnumVal); ok {
					lv, err := types.ConvertIn(v.Label, plan.Text, to.OID, to.Mod, nil)
					if err != nil {
						return err
					}
					out[i] = lv
				}
			}
			return nil
		}, true, nil
	case te != nil && (isStr(from.OID) || from.OID == plan.Unknown):
		return func(b *Batch, sel []int, out []types.Value) error {
			if err := arg(b, sel, out); err != nil {
				return err
			}
			for _, i := range sel {
				if out[i] == nil {
					continue
				}
				s, ok := out[i].(string)
				if !ok {
					return unsupported("a cast to " + te.Name + " of a value that is not text")
				}
				v, err := te.In(s)
				if err != nil {
					return err
				}
				out[i] = v
			}
			return nil
		}, true, nil
	}
	return nil, true, unsupported("a cast from " + enumTypeName(c.e.md, from) + " to " + enumTypeName(c.e.md, to))
}

// enumTypeName names t, an enum by its name.
func enumTypeName(md *plan.Metadata, t plan.Type) string {
	if e := md.Enum(t.OID); e != nil {
		return e.Name
	}
	return t.String()
}

// enumColumn says whether the scan's i-th column is an enum column whose
// labels the scan reads with (a column of a user type without them is
// refused: its values would compare as text).
func enumColumn(s *plan.Scan, i int, t plan.Type) bool {
	if i >= len(s.Ords) || s.Ords[i] >= len(s.Table.Columns) {
		return false
	}
	e := s.Table.Columns[s.Ords[i]].Enum
	return e != nil && e.OID == t.OID
}
