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
	b.byte(flagBits(p.Functions != nil))
	b.uvarint(uint64(len(p.Functions)))
	for _, fn := range p.Functions {
		b.uvarint(uint64(fn.OID))
		b.str(fn.Schema)
		b.str(fn.Name)
		b.uvarint(uint64(len(fn.ArgTypes)))
		for _, a := range fn.ArgTypes {
			b.uvarint(uint64(a))
		}
		b.str(fn.Def)
		b.byte(fn.Kind)
		b.uvarint(uint64(fn.BuiltinSameName))
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
	if len(b.b) > 0 && b.err == nil { // written with the functions
		read := b.byte()&1 != 0
		if read {
			p.Functions = []wal.FunctionDetail{}
		}
		for n := b.count(); n > 0 && b.err == nil; n-- {
			fn := wal.FunctionDetail{OID: uint32(b.uvarint()), Schema: b.str(), Name: b.str()}
			for k := b.count(); k > 0 && b.err == nil; k-- {
				fn.ArgTypes = append(fn.ArgTypes, uint32(b.uvarint()))
			}
			fn.Def, fn.Kind, fn.BuiltinSameName = b.str(), b.byte(), int(b.uvarint())
			p.Functions = append(p.Functions, fn)
		}
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Psql = p
	}
}
