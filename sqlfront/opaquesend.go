package sqlfront

import "github.com/sidecar-dev/sidecar/types"

// opaqueSend is the binary form of a value of a followed column's type
// the type catalog does not know (carried as its output text,
// unknowntypes.go), where PostgreSQL's send function for the type is
// knowable from that text: an enum's enum_send sends the label, which is
// enum_out's text, and a domain over an enum sends as its base type
// (pg_type.typsend of a domain is its base type's). ok is false for any
// other such type (a range's, a composite's, xml's send form is not the
// text): binary() refuses it.
func opaqueSend(p *plan, t uint32, txt string) (b []byte, ok bool) {
	if types.Known(t) {
		return nil, false
	}
	if planEnum(p, t) {
		return []byte(txt), true // enum.go: an enum sql/exec computed ('ok'::mood, max(m))
	}
	for _, tb := range p.tables {
		if tb.Facts == nil || len(tb.Facts.ColumnTypes) != len(tb.Columns) {
			continue
		}
		for i := range tb.Columns {
			if planColumnType(tb, i).OID != t {
				continue // domaincols.go: a domain over an enum is planned as the enum
			}
			ct := tb.Facts.ColumnTypes[i]
			return []byte(txt), ct.Kind == 'e' && !ct.Array
		}
	}
	return nil, false
}

// wireTypeSize is RowDescription's typlen of type t: typeSize's, or 4
// for an enum (a followed column's, or a domain's over one: enum OIDs
// are 4 bytes) the type catalog does not know; -1 for another.
func wireTypeSize(p *plan, t uint32) int16 {
	if n := typeSize(t); n != -1 || types.Known(t) {
		return n
	}
	if planEnum(p, t) {
		return 4 // enum.go
	}
	for _, tb := range p.tables {
		if tb.Facts == nil || len(tb.Facts.ColumnTypes) != len(tb.Columns) {
			continue
		}
		for i := range tb.Columns {
			if planColumnType(tb, i).OID == t {
				if ct := tb.Facts.ColumnTypes[i]; ct.Kind == 'e' && !ct.Array {
					return 4
				}
				return -1
			}
		}
	}
	return -1
}
