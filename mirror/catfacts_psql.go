package mirror

import "github.com/sidecar-dev/sidecar/wal"

// What psql's describe commands read of the database beyond the other
// sections (wal.SchemaFacts.Psql, carried by one table: the schemas'
// ACLs and comments) follows the column types as one more optional
// section: a mark and one length-prefixed body, so a record written
// before ends before the mark (and decodes with Psql nil: the SQL port
// then refuses what it answers) and a later sidecar can append fields
// to the body.

const psqlMark = 'v'

// encodePsql writes the section's body (catfacts_section.go: when the
// facts hold it).
func encodePsql(b *enc, f *wal.Facts) {
	p := f.Schema.Psql
	b.uvarint(uint64(len(p.Namespaces)))
	for _, n := range p.Namespaces {
		b.uvarint(uint64(n.OID))
		b.str(n.Name)
		b.byte(flagBits(n.HasACL, n.HasComment))
		b.uvarint(uint64(len(n.ACL)))
		for _, a := range n.ACL {
			b.str(a)
		}
		b.str(n.Comment)
	}
}

// decodePsql reads the body encodePsql writes; bytes after the fields
// it knows are skipped.
func decodePsql(b *dec, f *wal.Facts) {
	p := &wal.PsqlFacts{Namespaces: []wal.NamespaceDetail{}}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		d := wal.NamespaceDetail{OID: uint32(b.uvarint()), Name: b.str()}
		fl := b.byte()
		d.HasACL, d.HasComment = fl&1 != 0, fl&2 != 0
		for k := b.count(); k > 0 && b.err == nil; k-- {
			d.ACL = append(d.ACL, b.str())
		}
		d.Comment = b.str()
		p.Namespaces = append(p.Namespaces, d)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Psql = p
	}
}
