package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The enum label history (wal.UserTypeFacts.Retired, wal/enumhistory.go)
// is appended to the user types' body ('u', catfacts_usertypes.go): a
// record written before ends its body before it and decodes with no
// history.

// encodeEnumHistory writes the retired labels and the lost flag.
func encodeEnumHistory(b *enc, u *wal.UserTypeFacts) {
	b.uvarint(uint64(len(u.Retired)))
	for _, r := range u.Retired {
		b.uvarint(uint64(r.OID))
		b.uvarint(uint64(r.TypeOID))
		b.str(r.Label)
	}
	b.byte(flagBits(u.RetiredLost))
}

// decodeEnumHistory reads what encodeEnumHistory wrote, if the body
// holds it.
func decodeEnumHistory(b *dec, u *wal.UserTypeFacts) {
	if b.err != nil || len(b.b) == 0 {
		return
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		u.Retired = append(u.Retired, wal.RetiredLabel{OID: uint32(b.uvarint()), TypeOID: uint32(b.uvarint()), Label: b.str()})
	}
	u.RetiredLost = b.byte()&1 != 0
}

// withEnumHistory returns cur (the catalog's facts of a table, freshly
// read) carrying the label history of prev (the mirror's facts of it):
// the catalog has only the labels' current texts.
func withEnumHistory(cur, prev *wal.Relation) *wal.Relation {
	if cur == nil || prev == nil || cur.Facts == nil || prev.Facts == nil || cur.Facts.Schema == nil || prev.Facts.Schema == nil {
		return cur
	}
	u := cur.Facts.Schema.UserTypes
	h := u.WithHistory(prev.Facts.Schema.UserTypes)
	if h == u {
		return cur
	}
	s := *cur.Facts.Schema
	s.UserTypes = h
	f := *cur.Facts
	f.Schema = &s
	out := *cur
	out.Facts = &f
	return &out
}
