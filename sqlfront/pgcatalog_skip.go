package sqlfront

import (
	"cmp"
	"slices"
	"strconv"

	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// A catalog row holding a value sidecar does not know (pgUnknown) in a
// column the statement reads refuses the statement — unless no scan of
// the relation can emit that row: each scan's filter has a conjunct
// that is false (or NULL) for the row on values sidecar knows. Such a
// row is dropped by the scan's filter anyway, so skipping it changes
// nothing but the refusal (psql's and pgjdbc's "WHERE a.attrelid = …
// AND a.attnum > 0" no longer trip over the index columns' or system
// columns' unknown values).
//
// Only conjuncts decidable exactly on the row's text are used: a
// column (through value-preserving casts) compared with a constant —
// integers and oids with = <> < <= > >=, name and text with = and <>
// (equality is byte equality under every deterministic collation) —,
// a boolean column or its negation, and IS [NOT] NULL.

// rowTest is one decidable conjunct: ord's value against text.
type rowTest struct {
	ord  int
	op   string // = <> < <= > >=, "true", "false", "null", "notnull", "in"
	num  bool   // compared as integers
	text string
	set  []string // "in": the list's constants
}

// scanUse is one scan of a catalog relation: the ordinals it reads and
// its decidable conjuncts.
type scanUse struct {
	ords  map[int]bool
	tests []rowTest
}

// noteFilter records scan s over v's relation.
func (v *pgScan) noteFilter(s *lplan.Scan) {
	u := scanUse{ords: map[int]bool{}}
	colOrd := map[lplan.ColumnID]int{}
	for i, id := range s.Cols {
		colOrd[id] = s.Ords[i]
		u.ords[s.Ords[i]] = true
	}
	if s.Filter != nil {
		for _, c := range lplan.Conjuncts(s.Filter) {
			if t, ok := decidable(c, colOrd, v.rel); ok {
				u.tests = append(u.tests, t)
			}
		}
	}
	v.uses = append(v.uses, u)
}

// drops says whether the scan's filter is false for row.
func (u scanUse) drops(row []*string) bool {
	for _, t := range u.tests {
		if t.rejects(row) {
			return true
		}
	}
	return false
}

// admit decides a row: refused (unknown >= 0: the ordinal of an unknown
// value a scan reads and may keep the row for), dropped (nil: every
// scan drops it), or emitted, with NULL for the unknown values only
// scans dropping the row read (their filters are false whatever the
// value; the scans keeping it do not read it).
func (v *pgScan) admit(row []*string) (out []*string, unknown int) {
	out = row
	copied := false
	for i, val := range row {
		standIn := val == pgStandIn // pgcatalog.go: refused if kept, read or not
		if !standIn && (val != pgUnknown || !v.reads[i]) {
			continue
		}
		if len(v.uses) == 0 {
			return nil, i
		}
		for _, u := range v.uses {
			if (standIn || u.ords[i]) && !u.drops(row) {
				return nil, i
			}
		}
		if standIn {
			return nil, -1 // every scan drops it
		}
		if !copied {
			out, copied = append([]*string(nil), row...), true
		}
		out[i] = nil
	}
	if copied {
		for _, u := range v.uses {
			if !u.drops(row) {
				return out, -1
			}
		}
		return nil, -1
	}
	return out, -1
}

// rejects says whether the conjunct is not true for row (known values
// only: an unknown value decides nothing).
func (t rowTest) rejects(row []*string) bool {
	val := row[t.ord]
	if val == pgUnknown || val == pgStandIn {
		return false
	}
	switch t.op {
	case "null":
		return val != nil
	case "notnull":
		return val == nil
	}
	if val == nil {
		return true // NULL: the filter drops it
	}
	switch t.op {
	case "true":
		return *val == "f"
	case "false":
		return *val == "t"
	case "in":
		return !slices.ContainsFunc(t.set, func(k string) bool { return !(rowTest{ord: t.ord, op: "=", num: t.num, text: k}).rejects(row) })
	}
	order := 0
	if t.num {
		a, err1 := strconv.ParseInt(*val, 10, 64)
		b, err2 := strconv.ParseInt(t.text, 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		order = cmp.Compare(a, b)
	} else if *val != t.text {
		order = 1 // only = and <> are used for text
	}
	switch t.op {
	case "=":
		return order != 0
	case "<>":
		return order == 0
	case "<":
		return order >= 0
	case "<=":
		return order > 0
	case ">":
		return order <= 0
	case ">=":
		return order < 0
	}
	return false
}

var intOIDs = map[uint32]bool{oidInt2: true, oidInt4: true, oidInt8: true, oidOID: true}
var textOIDs = map[uint32]bool{oidName: true, oidText: true, oidVarchar: true} // varchar: information_schema's character_data and yes_or_no

// column reads x as a column of the scan through casts that keep its
// value (integer to integer; name to text): its ordinal and whether it
// compares as an integer.
func column(x lplan.Scalar, ords map[lplan.ColumnID]int, rel *pgRel) (int, bool, bool) {
	for {
		switch y := x.(type) {
		case *lplan.Cast:
			in := y.Arg.Type()
			if !(intOIDs[in.OID] && intOIDs[y.T.OID] && in.OID != oidOID && y.T.OID != oidOID || (in.OID == oidName || in.OID == oidVarchar) && y.T.OID == oidText || in.OID == y.T.OID) {
				return 0, false, false
			}
			x = y.Arg
			continue
		case *lplan.ColRef:
			o, ok := ords[y.ID]
			if !ok {
				return 0, false, false
			}
			t := rel.cols[o].typ
			if t.OID == oidCharType || textOIDs[t.OID] {
				return o, false, true
			}
			return o, intOIDs[t.OID], intOIDs[t.OID] || t.OID == oidBool
		}
		return 0, false, false
	}
}

// constant reads x as a non-NULL constant's text, through casts to the
// integer types (an integer literal's text is its value) or to text and
// name of a constant of those; a regclass literal as the OID it names.
func constant(x lplan.Scalar, num bool) (string, bool) {
	toOID := false  // a negative integer cast to oid wraps around
	toChar := false // "char" keeps the first byte
	for {
		switch y := x.(type) {
		case *lplan.Cast:
			if !(num && intOIDs[y.T.OID] || !num && (textOIDs[y.T.OID] || y.T.OID == oidCharType)) || y.T.OID == oidVarchar && y.T.Mod >= 0 {
				return "", false // varchar(n) truncates
			}
			toOID = toOID || y.T.OID == oidOID
			toChar = toChar || y.T.OID == oidCharType
			x = y.Arg
			continue
		case *lplan.Func:
			// 'schema.name'::regclass (and its relabel to oid): the OID it
			// resolves to, as the engine evaluates it.
			if !num || y.Ext == nil || len(y.Args) != 1 {
				return "", false
			}
			if y.Name == "oid" {
				x = y.Args[0]
				continue
			}
			k, ok := strip(y.Args[0]).(*lplan.Const)
			if y.Name != "regclassin" || !ok || k.Null {
				return "", false
			}
			v, err := y.Ext.Eval([]types.Value{k.Text})
			n, isInt := v.(int64)
			if err != nil || !isInt || n < 0 {
				return "", false
			}
			return strconv.FormatInt(n, 10), true
		case *lplan.Const:
			if y.Null {
				return "", false
			}
			if num {
				if n, err := strconv.ParseInt(y.Text, 10, 32); err != nil || toOID && n < 0 {
					return "", false
				}
			} else if len(y.Text) > 63 || (toChar || y.T.OID == oidCharType) && len(y.Text) > 1 {
				return "", false // cast to name or "char", it would be truncated
			}
			return y.Text, true
		}
		return "", false
	}
}

var flipped = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// decidable reads conjunct c as a rowTest.
func decidable(c lplan.Scalar, ords map[lplan.ColumnID]int, rel *pgRel) (rowTest, bool) {
	switch x := c.(type) {
	case *lplan.ColRef:
		if o, ok := ords[x.ID]; ok && rel.cols[o].typ.OID == oidBool {
			return rowTest{ord: o, op: "true"}, true
		}
	case *lplan.BoolOp:
		if x.Op == "NOT" && len(x.Args) == 1 {
			if y, ok := x.Args[0].(*lplan.ColRef); ok {
				if o, ok := ords[y.ID]; ok && rel.cols[o].typ.OID == oidBool {
					return rowTest{ord: o, op: "false"}, true
				}
			}
		}
	case *lplan.IsNull:
		if o, _, ok := column(x.Arg, ords, rel); ok {
			op := "null"
			if x.Not {
				op = "notnull"
			}
			return rowTest{ord: o, op: op}, true
		}
	case *lplan.InList:
		// col IN (constants): a row whose value is none of them.
		o, num, ok := column(x.Arg, ords, rel)
		if x.Not || !ok || rel.cols[o].typ.OID == oidBool || len(x.List) == 0 {
			break
		}
		t := rowTest{ord: o, op: "in", num: num}
		for _, e := range x.List {
			k, ok := constant(e, num)
			if !ok || rel.cols[o].typ.OID == oidCharType && len(k) > 1 {
				return rowTest{}, false
			}
			t.set = append(t.set, k)
		}
		return t, true
	case *lplan.Op:
		if len(x.Args) != 2 || flipped[x.Op] == "" {
			break
		}
		for side, op := range []string{x.Op, flipped[x.Op]} {
			o, num, ok := column(x.Args[side], ords, rel)
			if !ok || rel.cols[o].typ.OID == oidBool {
				continue
			}
			if !num && op != "=" && op != "<>" {
				continue
			}
			if k, ok := constant(x.Args[1-side], num); ok && (rel.cols[o].typ.OID != oidCharType || len(k) <= 1) {
				return rowTest{ord: o, op: op, num: num, text: k}, true
			}
		}
	}
	return rowTest{}, false
}
