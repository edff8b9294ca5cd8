package sqlfront

import (
	"context"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// Stale enum labels on the flat path. The mirror holds an enum value as
// its label's text as pgoutput sent it. ALTER TYPE … RENAME VALUE
// changes no row, so a row not written since keeps the old label's text
// where PostgreSQL (which stores the label's OID) prints the new label.
// The flat planner passes enum columns through as their stored text
// (unknowntypes.go); where a result column prints one, each value is
// checked against the type's labels at the version read (the facts'
// 'u' section, the labels sql/exec reads: enum.go) and a text the
// labels lack is refused 0A000 — sql/exec refuses it the same way
// (exec.DecodeColumn). A cast of an enum to text is left to sql/exec
// (opaqueCastRefusal), which checks there. The direct path checks the
// stored row bytes before sending them (runDirect).
//
// A label renamed and its old text added again as a new label (RENAME
// VALUE 'sad' TO 'blue', then ADD VALUE 'sad') makes a stored 'sad'
// ambiguous: the facts' label history (wal/enumhistory.go) names such
// texts, and both paths refuse them (checkLabel, exec.DecodeColumn).

// enumOut is a result column of a flat plan printing an enum column as
// stored.
type enumOut struct {
	target int // index in plan.targets
	item   int // the from item whose column it is
	col    int // the column's index in that item's table
	array  bool
}

// planEnumOuts records in p.enumOuts the targets printing an enum (or
// enum array) column of a followed table, a domain over one included.
func (pl *planner) planEnumOuts() {
	p := pl.p
	p.enumOuts = nil
	for i, e := range p.targets {
		c, ok := e.(*colExpr)
		if !ok || c.idx < 0 || c.idx >= len(pl.scope) {
			continue
		}
		sc := pl.scope[c.idx]
		if sc.item < 0 || sc.item >= len(p.from) || p.from[sc.item].table == nil {
			continue
		}
		it := p.from[sc.item]
		col := c.idx - it.base
		t := it.table
		if col < 0 || col >= len(t.Columns) {
			continue
		}
		if f := t.Facts; f != nil && len(f.ColumnTypes) == len(t.Columns) {
			switch ct := f.ColumnTypes[col]; {
			case ct.Kind == 'e':
				p.enumOuts = append(p.enumOuts, enumOut{target: i, item: sc.item, col: col, array: ct.Array})
			case ct.Array && pl.enumArray(t.Columns[col].TypeOID):
				// An array's typtype is 'b': its element type says.
				p.enumOuts = append(p.enumOuts, enumOut{target: i, item: sc.item, col: col, array: true})
			}
			continue
		}
		// The column's facts are not read (a record written before):
		// the user types say whether its type is an enum or an array
		// of one.
		u := userTypes(pl.src.Tables())
		for _, array := range []bool{false, true} {
			if enumLabelsOf(u, t.Columns[col].TypeOID, array) != nil {
				p.enumOuts = append(p.enumOuts, enumOut{target: i, item: sc.item, col: col, array: array})
				break
			}
		}
	}
}

// enumArray says whether oid is an array of an enum (a domain over one
// included) by the user type facts.
func (pl *planner) enumArray(oid uint32) bool {
	return enumLabelsOf(userTypes(pl.src.Tables()), oid, true) != nil
}

// enumLabelSet is the labels of one enum type at one version: true for
// a label whose stored text means it, false for one whose text another
// label had before a rename (wal.UserTypeFacts.AmbiguousLabels).
type enumLabelSet map[string]bool

// userTypesAt are the user type facts at version v (nil: not read).
func userTypesAt(ctx context.Context, src Source, v Version) *wal.UserTypeFacts {
	var at []Table
	for _, t := range src.Tables() {
		if s := schemaFactsOf(&t); s == nil || s.UserTypes == nil {
			continue
		}
		old, err := src.Table(ctx, v, t.Name)
		if err != nil {
			continue
		}
		at = append(at, old)
	}
	return userTypes(at)
}

// enumLabelsOf are the labels of the enum type under type oid (a domain
// over it, an array of it, with array) in u; nil when oid is not one.
func enumLabelsOf(u *wal.UserTypeFacts, oid uint32, array bool) enumLabelSet {
	if u == nil {
		return nil
	}
	byOID := make(map[uint32]*wal.TypeFacts, len(u.Types))
	for i := range u.Types {
		byOID[u.Types[i].OID] = &u.Types[i]
	}
	for range len(u.Types) + 1 { // a chain of domains and arrays, bounded
		t := byOID[oid]
		switch {
		case t == nil:
			return nil
		case t.Type == 'd':
			oid = t.BaseType
		case array && t.Elem != 0 && t.Type != 'e':
			oid, array = t.Elem, false
		case t.Type == 'e' && !array:
			set := enumLabelSet{}
			ambiguous := u.AmbiguousLabels(oid)
			for _, l := range u.Labels {
				if l.TypeOID == oid {
					_, amb := ambiguous[l.Label]
					set[l.Label] = !amb
				}
			}
			return set
		default:
			return nil
		}
	}
	return nil
}

// enumCheck checks the stored labels of p's enum result columns for one
// execution: the labels of each column's type at its item's version.
type enumCheck struct {
	outs   []enumOut
	labels []enumLabelSet // per out; nil: not read (every value refused)
	names  []string       // per out: the column's type, for the message
}

// enumCheckFor builds p's check (nil: p prints no enum column).
func (p *plan) enumCheckFor(ex *execCtx) (*enumCheck, error) {
	if len(p.enumOuts) == 0 {
		return nil, nil
	}
	ck := &enumCheck{outs: p.enumOuts, labels: make([]enumLabelSet, len(p.enumOuts)), names: make([]string, len(p.enumOuts))}
	facts := map[string]*wal.UserTypeFacts{}
	for i, o := range p.enumOuts {
		it := p.from[o.item]
		u, ok := facts[it.asOf]
		if !ok {
			v, err := ex.sess.versionFor(ex.ctx, it.asOf)
			if err != nil {
				return nil, err
			}
			u = userTypesAt(ex.ctx, ex.src, v)
			facts[it.asOf] = u
		}
		c := it.table.Columns[o.col]
		ck.labels[i] = enumLabelsOf(u, c.TypeOID, o.array)
		ck.names[i] = unknownTypeName(c)
		if it.table.Facts != nil && len(it.table.Facts.ColumnTypes) == len(it.table.Columns) {
			ck.names[i] = it.table.Facts.ColumnTypes[o.col].Name
		}
	}
	return ck, nil
}

// check refuses a label of out i the labels lack.
func (ck *enumCheck) check(i int, txt []byte) error {
	if ck.outs[i].array {
		return eachArrayElem(txt, func(elem []byte) error { return ck.checkLabel(i, elem) })
	}
	return ck.checkLabel(i, txt)
}

// checkLabel refuses one label of out i the labels lack.
func (ck *enumCheck) checkLabel(i int, label []byte) error {
	set := ck.labels[i]
	if set == nil {
		return unsupported(-1, "printing a value of type "+ck.names[i]+": the type's labels are not read (the next catalog poll or a resync reads them)")
	}
	switch unambiguous, ok := set[string(label)]; {
	case ok && unambiguous:
		return nil
	case ok:
		return unsupported(-1, "printing the label \""+string(label)+"\" of type "+ck.names[i]+": a label of the type was renamed from this text and the text given to another label since (ALTER TYPE … RENAME VALUE, then ADD VALUE), and the mirror holds enum values as their text, not as PostgreSQL's label OIDs: a stored \""+string(label)+"\" may be either label")
	}
	return unsupported(-1, "printing the label \""+string(label)+"\" of type "+ck.names[i]+": the mirror holds it as written, and it is not a label of the type at the version read (renamed by ALTER TYPE … RENAME VALUE since the row was written)").
		hint("resync the table (the copy reads the current labels), or write the rows again")
}

// row checks a projected row of values.
func (ck *enumCheck) row(row []Value) error {
	for i, o := range ck.outs {
		var s string
		switch v := row[o.target].(type) {
		case string:
			s = v
		case storedText:
			if v.s == nil {
				continue
			}
			s = *v.s
		default:
			continue // NULL
		}
		if err := ck.check(i, []byte(s)); err != nil {
			return err
		}
	}
	return nil
}

// stored checks a canonical stored row (rowenc) of the direct path.
func (ck *enumCheck) stored(row []byte) error {
	it := rowenc.NewIter(row)
	for it.Next() {
		c := it.Column()
		for i, o := range ck.outs {
			if o.col != c || it.Value() == nil {
				continue
			}
			if err := ck.check(i, it.Value()); err != nil {
				return err
			}
		}
	}
	if err := it.Err(); err != nil {
		return errf(codeInternal, -1, "stored row: %v", err)
	}
	return nil
}

// eachArrayElem calls f with each non-NULL element of an array's output
// text ({a,"b c",NULL}, nested braces, a [l:u]= dimension prefix).
func eachArrayElem(txt []byte, f func([]byte) error) error {
	i := 0
	if len(txt) > 0 && txt[0] == '[' {
		for i < len(txt) && txt[i] != '=' {
			i++
		}
		i++
	}
	var elem []byte
	for i < len(txt) {
		switch ch := txt[i]; {
		case ch == '{' || ch == '}' || ch == ',' || ch == ' ':
			i++
		case ch == '"':
			elem = elem[:0]
			for i++; i < len(txt) && txt[i] != '"'; i++ {
				if txt[i] == '\\' && i+1 < len(txt) {
					i++
				}
				elem = append(elem, txt[i])
			}
			i++
			if err := f(elem); err != nil {
				return err
			}
		default:
			j := i
			for j < len(txt) && txt[j] != ',' && txt[j] != '}' {
				j++
			}
			if s := txt[i:j]; string(s) != "NULL" {
				if err := f(s); err != nil {
					return err
				}
			}
			i = j
		}
	}
	return nil
}
