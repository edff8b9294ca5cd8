package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The database's publications (wal.SchemaFacts.Publications, carried by
// one table) follow the user types as one more optional section of the
// facts: a mark and one length-prefixed body, so a record written before
// ends before the mark (and decodes with Publications nil: the SQL port
// then refuses what they answer) and a later sidecar can append fields
// to the body.

const publicationsMark = 'p'

// encodePublications writes the section's body (catfacts_section.go:
// when the facts hold the publications).
func encodePublications(b *enc, f *wal.Facts) {
	p := f.Schema.Publications
	b.uvarint(uint64(len(p.Publications)))
	for _, r := range p.Publications {
		b.uvarint(uint64(r.OID))
		b.uvarint(uint64(r.Owner))
		b.str(r.Name)
		b.byte(flagBits(r.AllTables, r.Insert, r.Update, r.Delete, r.Truncate, r.ViaRoot))
		b.byte(r.GenCols)
	}
	b.uvarint(uint64(len(p.Rels)))
	for _, r := range p.Rels {
		b.uvarint(uint64(r.OID))
		b.uvarint(uint64(r.PubOID))
		b.uvarint(uint64(r.RelOID))
		b.byte(flagBits(r.HasQual, r.Attrs != nil))
		b.str(r.Qual)
		b.str(r.QualPretty)
		b.uvarint(uint64(len(r.Attrs)))
		for i, a := range r.Attrs {
			b.varint(int64(a))
			name := ""
			if i < len(r.AttrNames) {
				name = r.AttrNames[i]
			}
			b.str(name)
		}
	}
	b.uvarint(uint64(len(p.Namespaces)))
	for _, n := range p.Namespaces {
		b.uvarint(uint64(n.OID))
		b.uvarint(uint64(n.PubOID))
		b.uvarint(uint64(n.NspOID))
	}
}

// decodePublications reads the body encodePublications writes (after
// the schema facts it belongs to); bytes after the fields it knows are
// skipped.
func decodePublications(b *dec, f *wal.Facts) {
	p := &wal.PublicationFacts{}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		r := wal.PublicationRow{OID: uint32(b.uvarint()), Owner: uint32(b.uvarint()), Name: b.str()}
		fl := b.byte()
		r.AllTables, r.Insert, r.Update, r.Delete, r.Truncate, r.ViaRoot = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0, fl&16 != 0, fl&32 != 0
		r.GenCols = b.byte()
		p.Publications = append(p.Publications, r)
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		r := wal.PublicationRel{OID: uint32(b.uvarint()), PubOID: uint32(b.uvarint()), RelOID: uint32(b.uvarint())}
		fl := b.byte()
		r.HasQual = fl&1 != 0
		r.Qual, r.QualPretty = b.str(), b.str()
		k := b.count()
		if fl&2 != 0 {
			r.Attrs, r.AttrNames = make([]int16, 0, k), make([]string, 0, k)
		}
		for ; k > 0 && b.err == nil; k-- {
			r.Attrs = append(r.Attrs, int16(b.varint()))
			r.AttrNames = append(r.AttrNames, b.str())
		}
		p.Rels = append(p.Rels, r)
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		p.Namespaces = append(p.Namespaces, wal.PublicationNamespace{OID: uint32(b.uvarint()), PubOID: uint32(b.uvarint()), NspOID: uint32(b.uvarint())})
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Publications = p
	}
}
