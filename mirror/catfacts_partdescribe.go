package mirror

import "github.com/sidecar-dev/sidecar/wal"

// What psql's \d prints of the partitioned tables above the followed
// partitions (wal.SchemaFacts.PartDescribe, carried by one table) follows
// the pg_cast rows as one more optional section: a mark and one
// length-prefixed body, so a record written before ends before the mark
// (and decodes with PartDescribe nil: the SQL port refuses \d of a
// partitioned table, as before) and a later sidecar can append fields.

const partDescribeMark = 'C'

// encodePartDescribe writes the section's body (catfacts_section.go:
// when the facts hold it).
func encodePartDescribe(b *enc, f *wal.Facts) {
	p := f.Schema.PartDescribe
	b.byte(flagBits(p.Tables != nil))
	b.uvarint(uint64(len(p.Tables)))
	for _, t := range p.Tables {
		b.uvarint(uint64(t.OID))
		b.str(t.Schema)
		b.str(t.Name)
		b.uvarint(uint64(len(t.Results)))
		for _, r := range t.Results {
			b.str(r.Query)
			b.uvarint(uint64(len(r.Rows)))
			for _, row := range r.Rows {
				b.uvarint(uint64(len(row)))
				for _, c := range row {
					b.byte(flagBits(c.Null))
					b.str(c.Text)
				}
			}
		}
		b.uvarint(uint64(len(t.Rels)))
		for _, r := range t.Rels {
			b.uvarint(uint64(r.OID))
			b.str(r.Schema)
			b.str(r.Name)
		}
	}
}

// decodePartDescribe reads the body encodePartDescribe writes; bytes
// after the fields it knows are skipped.
func decodePartDescribe(b *dec, f *wal.Facts) {
	p := &wal.PartDescribeFacts{}
	if b.byte()&1 != 0 {
		p.Tables = []wal.PartDescribe{}
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		t := wal.PartDescribe{OID: uint32(b.uvarint()), Schema: b.str(), Name: b.str()}
		for m := b.count(); m > 0 && b.err == nil; m-- {
			r := wal.PartResult{Query: b.str()}
			for k := b.count(); k > 0 && b.err == nil; k-- {
				var row []wal.PartCell
				for c := b.count(); c > 0 && b.err == nil; c-- {
					null := b.byte()&1 != 0
					row = append(row, wal.PartCell{Null: null, Text: b.str()})
				}
				r.Rows = append(r.Rows, row)
			}
			t.Results = append(t.Results, r)
		}
		for m := b.count(); m > 0 && b.err == nil; m-- {
			t.Rels = append(t.Rels, wal.PartRel{OID: uint32(b.uvarint()), Schema: b.str(), Name: b.str()})
		}
		p.Tables = append(p.Tables, t)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.PartDescribe = p
	}
}
