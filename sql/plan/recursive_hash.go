package plan

import "github.com/sidecar-dev/sidecar/types"

// PostgreSQL runs a recursive UNION (not UNION ALL) by hashing the rows
// it has seen, so a column whose type has no hash opclass — money, bit,
// bit varying, tsvector, tsquery, arrays of them — fails when it plans
// the statement: 0A000 "could not implement recursive UNION" (the
// regression corpus's with.sql:35, which the sidecar answered).

// notHashable are the types with a default btree opclass but no hash one.
var notHashable = map[types.OID]bool{types.Money: true, types.Bit: true, types.Varbit: true, 3614: true, 3615: true} // 3614 tsvector, 3615 tsquery

// recursiveUnionHashable is PostgreSQL's refusal of a recursive UNION
// over cols when a column's type cannot be hashed; nil otherwise.
func recursiveUnionHashable(md *Metadata, cols []ColumnID) error {
	for _, id := range cols {
		t := md.Column(id).Type
		for IsArray(t) {
			t = ElemType(t)
		}
		if notHashable[t.OID] {
			return &Error{Code: CodeFeatureNotSupported, Message: "could not implement recursive UNION", Detail: "All column datatypes must be hashable."}
		}
	}
	return nil
}
