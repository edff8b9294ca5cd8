package mirror

import "github.com/sidecar-dev/sidecar/wal"

// Every pg_type row as pgjdbc reads them (wal.SchemaFacts.TypeList,
// carried by one table) follows the relation list as one more optional
// section: a mark and one length-prefixed body, so a record written
// before ends before the mark (and decodes with TypeList nil: the SQL
// port refuses getTypeInfo and getUDTs as before) and a later sidecar
// can append fields to the body.

const typeListMark = 'z'

// encodeTypeList writes the section's body (catfacts_section.go: when
// the facts hold it).
func encodeTypeList(b *enc, f *wal.Facts) {
	l := f.Schema.TypeList
	b.byte(flagBits(l.Types != nil, l.TempTypes))
	b.uvarint(uint64(len(l.Types)))
	for _, t := range l.Types {
		b.uvarint(uint64(t.OID))
		b.uvarint(uint64(t.Namespace))
		b.str(t.Name)
		b.byte(t.Type)
		b.byte(flagBits(t.IsArray))
		b.byte(t.RelKind)
		b.uvarint(uint64(t.BaseType))
		b.str(t.Comment)
	}
}

// decodeTypeList reads the body encodeTypeList writes; bytes after the
// fields it knows are skipped.
func decodeTypeList(b *dec, f *wal.Facts) {
	l := &wal.TypeListFacts{}
	fl := b.byte()
	if fl&1 != 0 {
		l.Types = []wal.TypeListEntry{}
	}
	l.TempTypes = fl&2 != 0
	for n := b.count(); n > 0 && b.err == nil; n-- {
		t := wal.TypeListEntry{OID: uint32(b.uvarint()), Namespace: uint32(b.uvarint()), Name: b.str(), Type: b.byte()}
		t.IsArray = b.byte()&1 != 0
		t.RelKind, t.BaseType, t.Comment = b.byte(), uint32(b.uvarint()), b.str()
		l.Types = append(l.Types, t)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.TypeList = l
	}
}
