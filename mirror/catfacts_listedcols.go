package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The columns of the relation list's tables, views and foreign tables
// (wal.SchemaFacts.ListedColumns, carried by one table) follow the type
// list as one more optional section: a mark and one length-prefixed
// body, so a record written before ends before the mark (and decodes
// with ListedColumns nil: the SQL port refuses what reads those
// relations' columns, as before) and a later sidecar can append fields
// to the body.

const listedColumnsMark = 'A'

// encodeListedColumns writes the section's body (catfacts_section.go:
// when the facts hold it).
func encodeListedColumns(b *enc, f *wal.Facts) {
	l := f.Schema.ListedColumns
	b.byte(flagBits(l.Columns != nil))
	b.uvarint(uint64(len(l.Columns)))
	for _, c := range l.Columns {
		b.uvarint(uint64(c.Rel))
		b.str(c.Name)
		b.uvarint(uint64(uint16(c.Num)))
		b.uvarint(uint64(c.TypeOID))
		b.uvarint(uint64(uint32(c.TypeMod)))
		b.uvarint(uint64(uint16(c.Len)))
		b.uvarint(uint64(uint32(c.NDims)))
		b.byte(flagBits(c.NotNull, c.HasDefault, c.Dropped, c.IsLocal))
		b.byte(c.Identity)
		b.byte(c.Generated)
		b.uvarint(uint64(uint32(c.InhCount)))
		b.uvarint(uint64(c.Collation))
		b.str(c.Default)
		b.str(c.DefaultPretty)
	}
}

// decodeListedColumns reads the body encodeListedColumns writes; bytes
// after the fields it knows are skipped.
func decodeListedColumns(b *dec, f *wal.Facts) {
	l := &wal.ListedColumnsFacts{}
	if b.byte()&1 != 0 {
		l.Columns = []wal.ListedColumn{}
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		c := wal.ListedColumn{Rel: uint32(b.uvarint()), Name: b.str(), Num: int16(uint16(b.uvarint())), TypeOID: uint32(b.uvarint())}
		c.TypeMod, c.Len, c.NDims = int32(uint32(b.uvarint())), int16(uint16(b.uvarint())), int32(uint32(b.uvarint()))
		fl := b.byte()
		c.NotNull, c.HasDefault, c.Dropped, c.IsLocal = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0
		c.Identity, c.Generated = b.byte(), b.byte()
		c.InhCount, c.Collation = int32(uint32(b.uvarint())), uint32(b.uvarint())
		c.Default, c.DefaultPretty = b.str(), b.str()
		l.Columns = append(l.Columns, c)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.ListedColumns = l
	}
}
