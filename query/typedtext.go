package query

import (
	"fmt"

	"github.com/sidecar-dev/sidecar/types"
)

// Columns of uuid, inet, cidr and interval are stored as PostgreSQL's
// output text (heap.KindText), which the engine compares bytewise. Their
// values are compared here as PostgreSQL compares them:
//
//   - uuid: the stored text is uuid_out's (lower-case hex, hyphenated),
//     whose byte order is uuid_cmp's (memcmp of the 16 bytes), so only a
//     request's literals are rewritten to that form ('A0EEBC99…',
//     '{a0eebc99…}' and unhyphenated ones are one uuid). WHERE and GROUP
//     BY answer.
//   - inet, cidr: network_cmp orders by family, the bits both masks
//     cover, the mask length, then the whole address; each row's text is
//     read (types.In) and compared with the literals (types.Compare).
//     The output text is one per value, so GROUP BY groups by the text,
//     and the groups and HAVING are ordered and compared by value.
//   - interval: interval_cmp compares months·30 days + days·24 hours +
//     time, so '1 mon' equals '30 days'; WHERE compares by value. GROUP
//     BY and min/max stay refused: equal values print differently and
//     PostgreSQL shows the one its plan meets first.
//
// jsonb is not among them: its equality is by value ('1.0' = '1'), and
// so is its order, through numerics that print differently; it stays
// refused (opaque.go) beyond count and IS [NOT] NULL.

// valueOrder says whether the engine compares a text-stored column of
// type oid by value (typed), and whether its text needs no reading for
// that (bytewise: its output text orders as its values).
func valueOrder(oid uint32) (typed, bytewise bool) {
	switch oid {
	case types.UUID:
		return true, true
	case types.Inet, types.Cidr, types.Interval:
		return true, false
	}
	return false, false
}

// valueGroups says whether GROUP BY a column of type oid (stored as
// text) groups as PostgreSQL does: equal values print alike.
func valueGroups(oid uint32) bool {
	return oid == types.UUID || oid == types.Inet || oid == types.Cidr
}

// typeLiterals binds n's literals (a leaf of WHERE or HAVING over a
// column of type oid that valueOrder compares by value): each is read
// with the type's input function (an invalid one is a bad request, as
// PostgreSQL's 22P02); a uuid's is rewritten to uuid_out's text, an
// inet's, cidr's or interval's kept parsed in n.typed for per-row
// comparison. LIKE on such a column is refused (PostgreSQL has no such
// operator).
func typeLiterals(n *node, e *Expr, oid uint32) error {
	typed, bytewise := valueOrder(oid)
	if !typed || len(n.args) > 0 || n.op == "is_null" || n.op == "is_not_null" {
		return nil
	}
	if e.Op == "like" {
		return badf("%s: LIKE on column %q of type %s: PostgreSQL has no such operator", e.String(), e.Col, types.NameOf(oid))
	}
	vals := make([]types.Value, len(n.vals))
	for i, s := range e.Values {
		v, err := types.In(oid, -1, s)
		if err != nil {
			return badf("%s: %v", e.String(), err)
		}
		vals[i] = v
		n.vals[i] = Value{K: vText, S: types.Out(oid, v)}
	}
	if bytewise {
		n.in = newInSet(n)
		return nil
	}
	n.typed = &typedLits{oid: oid, vals: vals}
	n.in = nil
	return nil
}

// typedLits are a leaf's literals read as values of type oid.
type typedLits struct {
	oid  uint32
	vals []types.Value
}

// typedMatch is textMatch for a leaf with typed literals: the row's
// text read as a value of the type (a text the type does not read, which
// PostgreSQL's output never is, matches nothing).
func typedMatch(n *node, b []byte) bool {
	x, err := types.In(n.typed.oid, -1, string(b))
	if err != nil {
		return false
	}
	c := func(i int) int { return types.Compare(n.typed.oid, x, n.typed.vals[i]) }
	switch n.op {
	case "in":
		for i := range n.typed.vals {
			if c(i) == 0 {
				return true
			}
		}
		return false
	case "between":
		return c(0) >= 0 && c(1) <= 0
	}
	return cmpOK(n.op, c(0))
}

// compareTyped orders two output texts of type oid by value (bytewise
// when one is not the type's text).
func compareTyped(oid uint32, a, b string) int {
	x, errA := types.In(oid, -1, a)
	y, errB := types.In(oid, -1, b)
	if errA != nil || errB != nil {
		return compareValues(Value{K: vText, S: a}, Value{K: vText, S: b})
	}
	return types.Compare(oid, x, y)
}

// bindTyped types the leaves of the bound tree n (bound from e) whose
// column oidOf gives a type valueOrder compares by value.
func bindTyped(n *node, e *Expr, oidOf func(name string) uint32) error {
	if n == nil || e == nil {
		return nil
	}
	if len(n.args) > 0 {
		if len(n.args) != len(e.Args) {
			return fmt.Errorf("query: bound %s has %d operands, %d given", e.Op, len(n.args), len(e.Args))
		}
		for i := range n.args {
			if err := bindTyped(n.args[i], e.Args[i], oidOf); err != nil {
				return err
			}
		}
		return nil
	}
	return typeLiterals(n, e, oidOf(e.Col))
}

// colOIDs are the types of a table's text-stored columns the engine
// compares by value, by column name.
type colOIDs map[string]uint32

// typeColumns types p's WHERE and HAVING leaves over columns of oids
// (bindTyped) and its group columns' outputs, so that HAVING, ORDER BY
// and the groups' default order compare them by value.
func (p *Plan) typeColumns(oids colOIDs) error {
	if len(oids) == 0 {
		return nil
	}
	p.outOIDs = make([]uint32, len(p.Columns))
	for i, g := range p.Req.GroupBy {
		if p.outOIDs[i] = oids[g]; p.outOIDs[i] != 0 {
			p.Columns[i].Type = types.NameOf(p.outOIDs[i]) // the column's type, not its kind's (text)
		}
	}
	if err := bindTyped(p.where, p.Req.Where, func(name string) uint32 { return oids[name] }); err != nil {
		return err
	}
	return bindTyped(p.having, p.Req.Having, func(name string) uint32 {
		for i, c := range p.Columns {
			if c.Name == name {
				return p.outOIDs[i]
			}
		}
		return 0
	})
}

// compareOut orders two non-NULL values of output column c.
func (p *Plan) compareOut(c int, a, b Value) int {
	if c < len(p.outOIDs) && p.outOIDs[c] != 0 && a.K == vText && b.K == vText {
		return compareTyped(p.outOIDs[c], a.S, b.S)
	}
	return compareValues(a, b)
}
