package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The type and typmod PostgreSQL describes each column by on the wire
// (wal.ColumnType.BaseType/BaseMod: a domain's base type) follow the
// other sections as section 't', one length-prefixed body: a count and,
// per column of the columns' types (section 'q', written before it),
// the base type OID and typmod. A record written before ends before the
// mark and decodes with BaseType 0 (not read): the SQL port then carries
// a domain column as a type it does not know, as before.

const columnBasesMark = 't'

// columnBasesRead says whether f's column types hold their base types.
func columnBasesRead(f *wal.Facts) bool {
	for _, c := range f.ColumnTypes {
		if c.BaseType != 0 {
			return true
		}
	}
	return false
}

// encodeColumnBases writes the section's body.
func encodeColumnBases(b *enc, f *wal.Facts) {
	b.uvarint(uint64(len(f.ColumnTypes)))
	for _, c := range f.ColumnTypes {
		b.uvarint(uint64(c.BaseType))
		b.varint(int64(c.BaseMod))
	}
}

// decodeColumnBases reads the body encodeColumnBases writes into the
// column types section 'q' decoded; bytes after the fields it knows are
// skipped. A count other than the column types' is a corrupt record.
func decodeColumnBases(b *dec, f *wal.Facts) {
	n := b.count()
	if b.err == nil && n != len(f.ColumnTypes) {
		b.fail("column base types (a count other than the column types')")
		return
	}
	for i := 0; i < n && b.err == nil; i++ {
		base, mod := b.uvarint(), b.varint()
		f.ColumnTypes[i].BaseType, f.ColumnTypes[i].BaseMod = uint32(base), int32(mod)
	}
}
