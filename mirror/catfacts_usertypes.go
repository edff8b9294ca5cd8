package mirror

import (
	"math"

	"github.com/sidecar-dev/sidecar/wal"
)

// The database's domains and enums (wal.SchemaFacts.UserTypes, carried
// by one table) follow the column numbers as one more optional section
// of the facts: a mark and one length-prefixed body, so a record written
// before ends before the mark (and decodes with UserTypes nil: the SQL
// port then refuses what they answer) and a later sidecar can append
// fields to the body.

const userTypesMark = 'u'

// encodeUserTypes writes the section's body (catfacts_section.go: when
// the facts hold the types).
func encodeUserTypes(b *enc, f *wal.Facts) {
	u := f.Schema.UserTypes
	b.uvarint(uint64(len(u.Types)))
	for _, t := range u.Types {
		encodeTypeFacts(b, t)
	}
	b.uvarint(uint64(len(u.Labels)))
	for _, l := range u.Labels {
		b.uvarint(uint64(l.OID))
		b.uvarint(uint64(l.TypeOID))
		b.uvarint(uint64(math.Float32bits(l.SortOrder)))
		b.str(l.Label)
	}
	encodeNamespaceList(b, u.Namespaces) // catfacts_namespaces.go
	b.uvarint(uint64(len(u.Namesakes)))
	for _, n := range u.Namesakes {
		b.str(n.Namespace)
		b.str(n.Name)
	}
	if len(u.Retired) > 0 || u.RetiredLost {
		encodeEnumHistory(b, u) // catfacts_enumhistory.go; absent, the body is as before
	}
}

// decodeUserTypes reads the body encodeUserTypes writes (after the
// schema facts it belongs to); bytes after the fields it knows are
// skipped.
func decodeUserTypes(b *dec, f *wal.Facts) {
	u := &wal.UserTypeFacts{}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		u.Types = append(u.Types, decodeTypeFacts(b))
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		u.Labels = append(u.Labels, wal.EnumLabel{OID: uint32(b.uvarint()), TypeOID: uint32(b.uvarint()), SortOrder: math.Float32frombits(uint32(b.uvarint())), Label: b.str()})
	}
	u.Namespaces = decodeNamespaceList(b)
	for n := b.count(); n > 0 && b.err == nil; n-- {
		u.Namesakes = append(u.Namesakes, wal.TypeName{Namespace: b.str(), Name: b.str()})
	}
	decodeEnumHistory(b, u)
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.UserTypes = u
	}
}

// encodeTypeFacts writes one pg_type row.
func encodeTypeFacts(b *enc, t wal.TypeFacts) {
	b.uvarint(uint64(t.OID))
	b.uvarint(uint64(t.Namespace))
	b.uvarint(uint64(t.Owner))
	b.str(t.Name)
	b.varint(int64(t.Len))
	b.byte(flagBits(t.ByVal, t.NotNull, t.HasDefault))
	for _, c := range []byte{t.Type, t.Category, t.Delim, t.Align, t.Storage} {
		b.byte(c)
	}
	for _, o := range []uint32{t.Elem, t.Array, t.BaseType} {
		b.uvarint(uint64(o))
	}
	b.varint(int64(t.TypMod))
	b.uvarint(uint64(t.Collation))
	b.str(t.Default)
	b.varint(int64(t.NDims))
}

// decodeTypeFacts reads what encodeTypeFacts wrote.
func decodeTypeFacts(b *dec) wal.TypeFacts {
	t := wal.TypeFacts{OID: uint32(b.uvarint()), Namespace: uint32(b.uvarint()), Owner: uint32(b.uvarint()), Name: b.str(), Len: int16(b.varint())}
	fl := b.byte()
	t.ByVal, t.NotNull, t.HasDefault = fl&1 != 0, fl&2 != 0, fl&4 != 0
	t.Type, t.Category, t.Delim, t.Align, t.Storage = b.byte(), b.byte(), b.byte(), b.byte(), b.byte()
	t.Elem, t.Array, t.BaseType = uint32(b.uvarint()), uint32(b.uvarint()), uint32(b.uvarint())
	t.TypMod, t.Collation, t.Default, t.NDims = int32(b.varint()), uint32(b.uvarint()), b.str(), int32(b.varint())
	return t
}
