package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The attnums of a Relation's columns, the definitions of the columns
// the stream does not carry and the table's dropped columns
// (wal.Facts.AttNums, NotCarriedColumns, Dropped) follow
// the not-carried names as one more optional section: a mark and one
// length-prefixed body, so a later sidecar can append fields to the body
// and a record written before ends before the mark (and decodes with
// neither: the SQL port then lists columns at their positions, and
// refuses to list a table whose generated columns it cannot describe).

const columnNumbersMark = 'h'

// encodeColumnNumbers writes the section's body (catfacts_section.go).
func encodeColumnNumbers(b *enc, f *wal.Facts) {
	b.uvarint(uint64(len(f.AttNums)))
	for _, n := range f.AttNums {
		b.varint(int64(n))
	}
	b.uvarint(uint64(len(f.NotCarriedColumns)))
	for _, c := range f.NotCarriedColumns {
		b.str(c.Name)
		b.varint(int64(c.AttNum))
		b.uvarint(uint64(c.TypeOID))
		b.varint(int64(c.TypeMod))
		b.str(c.TypeName)
		encodeCollation(b, c.Collation)
		b.byte(flagBits(c.NotNull))
		b.byte(c.Generated)
		b.str(c.Expr)
		b.str(c.ExprPretty)
		b.str(c.Comment)
		b.str(c.Storage)
		b.str(c.Compression)
		b.str(c.StatTarget)
	}
	b.uvarint(uint64(len(f.Dropped)))
	for _, c := range f.Dropped {
		b.varint(int64(c.AttNum))
		b.varint(int64(c.Len))
		b.varint(int64(c.TypeMod))
		b.byte(c.Identity)
	}
}

// decodeColumnNumbers reads the body encodeColumnNumbers writes; bytes
// after the fields it knows (a later sidecar's) are skipped.
func decodeColumnNumbers(b *dec, f *wal.Facts) {
	n := b.count()
	f.AttNums = make([]int16, 0, n)
	for i := 0; i < n && b.err == nil; i++ {
		f.AttNums = append(f.AttNums, int16(b.varint()))
	}
	n = b.count()
	for i := 0; i < n && b.err == nil; i++ {
		c := wal.NotCarriedColumn{Name: b.str(), AttNum: int16(b.varint()), TypeOID: uint32(b.uvarint()), TypeMod: int32(b.varint()), TypeName: b.str(),
			Collation: decodeCollation(b)}
		c.NotNull = b.byte()&1 != 0
		c.Generated = b.byte()
		c.Expr, c.ExprPretty, c.Comment = b.str(), b.str(), b.str()
		c.Storage, c.Compression, c.StatTarget = b.str(), b.str(), b.str()
		f.NotCarriedColumns = append(f.NotCarriedColumns, c)
	}
	n = b.count()
	for i := 0; i < n && b.err == nil; i++ {
		f.Dropped = append(f.Dropped, wal.DroppedColumn{AttNum: int16(b.varint()), Len: int16(b.varint()), TypeMod: int32(b.varint()), Identity: b.byte()})
	}
}
