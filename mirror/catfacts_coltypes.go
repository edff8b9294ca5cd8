package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The columns' types as pg_type and pg_cast describe them
// (wal.Facts.ColumnTypes) follow the listings as one more optional
// section: a mark and one length-prefixed body, so a record written
// before ends before the mark and decodes with ColumnTypes nil (the SQL
// port then refuses what needs them on a column of a type it does not
// know), and a later sidecar can append fields to the body.

const columnTypesMark = 'q'

// encodeColumnTypes writes the section's body (catfacts_section.go: when
// the facts hold the column types).
func encodeColumnTypes(b *enc, f *wal.Facts) {
	b.uvarint(uint64(len(f.ColumnTypes)))
	for _, c := range f.ColumnTypes {
		b.str(c.Name)
		b.byte(c.Kind)
		b.byte(flagBits(c.Array, c.StringCast))
	}
}

// decodeColumnTypes reads the body encodeColumnTypes writes; bytes after
// the fields it knows are skipped.
func decodeColumnTypes(b *dec, f *wal.Facts) {
	n := b.count()
	out := make([]wal.ColumnType, 0, n)
	for ; n > 0 && b.err == nil; n-- {
		c := wal.ColumnType{Name: b.str(), Kind: b.byte()}
		fl := b.byte()
		c.Array, c.StringCast = fl&1 != 0, fl&2 != 0
		out = append(out, c)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	f.ColumnTypes = out
}
