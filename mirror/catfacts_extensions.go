package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The database's extensions (wal.SchemaFacts.Extensions, carried by one
// table) follow the publications as one more optional section of the
// facts: a mark and one length-prefixed body, so a record written before
// ends before the mark (and decodes with Extensions nil: the SQL port
// then refuses pg_extension) and a later sidecar can append fields to
// the body.

const extensionsMark = 'x'

// encodeExtensions writes the section's body (catfacts_section.go: when
// the facts hold the extensions).
func encodeExtensions(b *enc, f *wal.Facts) {
	x := f.Schema.Extensions
	b.uvarint(uint64(len(x.Extensions)))
	for _, r := range x.Extensions {
		b.uvarint(uint64(r.OID))
		b.uvarint(uint64(r.Owner))
		b.uvarint(uint64(r.Namespace))
		b.str(r.Name)
		b.str(r.Version)
		b.byte(flagBits(r.Relocatable, r.Config != nil, r.Condition != nil, r.HasComment))
		b.uvarint(uint64(len(r.Config)))
		for _, c := range r.Config {
			b.uvarint(uint64(c))
		}
		b.uvarint(uint64(len(r.Condition)))
		for _, c := range r.Condition {
			b.str(c)
		}
		b.str(r.Comment)
		b.uvarint(uint64(len(r.Members)))
		for _, m := range r.Members {
			b.str(m)
		}
	}
	encodeNamespaceList(b, x.Namespaces) // catfacts_namespaces.go
	b.byte(flagBits(x.MembersRead))
	b.uvarint(uint64(len(x.Schemas)))
	for _, s := range x.Schemas {
		b.str(s)
	}
}

// decodeExtensions reads the body encodeExtensions writes; bytes after
// the fields it knows are skipped.
func decodeExtensions(b *dec, f *wal.Facts) {
	x := &wal.ExtensionFacts{}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		r := wal.ExtensionRow{OID: uint32(b.uvarint()), Owner: uint32(b.uvarint()), Namespace: uint32(b.uvarint()), Name: b.str(), Version: b.str()}
		fl := b.byte()
		r.Relocatable, r.HasComment = fl&1 != 0, fl&8 != 0
		k := b.count()
		if fl&2 != 0 {
			r.Config = make([]uint32, 0, k)
		}
		for ; k > 0 && b.err == nil; k-- {
			r.Config = append(r.Config, uint32(b.uvarint()))
		}
		k = b.count()
		if fl&4 != 0 {
			r.Condition = make([]string, 0, k)
		}
		for ; k > 0 && b.err == nil; k-- {
			r.Condition = append(r.Condition, b.str())
		}
		r.Comment = b.str()
		for k := b.count(); k > 0 && b.err == nil; k-- {
			r.Members = append(r.Members, b.str())
		}
		x.Extensions = append(x.Extensions, r)
	}
	x.Namespaces = decodeNamespaceList(b)
	x.MembersRead = b.byte()&1 != 0
	for k := b.count(); k > 0 && b.err == nil; k-- {
		x.Schemas = append(x.Schemas, b.str())
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Extensions = x
	}
}
