package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The database's pg_cast rows as psql's \dC prints them
// (wal.SchemaFacts.Casts, carried by one table) follow the listed
// columns as one more optional section: a mark and one length-prefixed
// body, so a record written before ends before the mark (and decodes
// with Casts nil: the SQL port refuses \dC, as before) and a later
// sidecar can append fields to the body.

const castsMark = 'B'

// encodeCasts writes the section's body (catfacts_section.go: when the
// facts hold it).
func encodeCasts(b *enc, f *wal.Facts) {
	c := f.Schema.Casts
	b.byte(flagBits(c.Rows != nil))
	b.uvarint(uint64(len(c.Rows)))
	for _, r := range c.Rows {
		b.str(r.Source)
		b.str(r.Target)
		b.str(r.SourceName)
		b.str(r.TargetName)
		b.str(r.Function)
		b.str(r.Implicit)
		b.str(r.Description)
		b.byte(flagBits(r.HasComment, r.UserTypes))
	}
}

// decodeCasts reads the body encodeCasts writes; bytes after the fields
// it knows are skipped.
func decodeCasts(b *dec, f *wal.Facts) {
	c := &wal.CastFacts{}
	if b.byte()&1 != 0 {
		c.Rows = []wal.CastRow{}
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		r := wal.CastRow{Source: b.str(), Target: b.str(), SourceName: b.str(), TargetName: b.str(), Function: b.str(), Implicit: b.str(), Description: b.str()}
		fl := b.byte()
		r.HasComment, r.UserTypes = fl&1 != 0, fl&2 != 0
		c.Rows = append(c.Rows, r)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Casts = c
	}
}
