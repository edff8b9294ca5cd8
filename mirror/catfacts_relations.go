package mirror

import "github.com/sidecar-dev/sidecar/wal"

// Every relation and schema of the source database
// (wal.SchemaFacts.Relations, carried by one table) follows the psql
// facts as one more optional section: a mark and one length-prefixed
// body, so a record written before ends before the mark (and decodes
// with Relations nil: the SQL port then lists only what it did before
// and refuses what needs the rest) and a later sidecar can append
// fields to the body.

const relationsMark = 'w'

// encodeRelationList writes the section's body (catfacts_section.go:
// when the facts hold it).
func encodeRelationList(b *enc, f *wal.Facts) {
	l := f.Schema.Relations
	b.byte(flagBits(l.Relations != nil))
	b.uvarint(uint64(len(l.Relations)))
	for _, r := range l.Relations {
		b.uvarint(uint64(r.OID))
		b.uvarint(uint64(r.Namespace))
		b.str(r.Name)
		b.byte(r.Kind)
		b.uvarint(uint64(r.Owner))
		b.byte(r.Persistence)
		b.byte(flagBits(r.HasACL, r.HasComment, r.RelOptions != nil, r.Sequence != nil, r.Identity))
		b.uvarint(uint64(len(r.ACL)))
		for _, a := range r.ACL {
			b.str(a)
		}
		b.uvarint(uint64(len(r.RelOptions)))
		for _, o := range r.RelOptions {
			b.str(o)
		}
		b.str(r.Comment)
		if s := r.Sequence; s != nil {
			b.uvarint(uint64(s.TypeOID))
			for _, v := range []int64{s.Start, s.Increment, s.Max, s.Min, s.Cache} {
				b.varint(v)
			}
			b.byte(flagBits(s.Cycle))
		}
		c := r.Class
		for _, v := range []uint32{c.Type, c.OfType, c.AM, c.Tablespace} {
			b.uvarint(uint64(v))
		}
		b.varint(int64(c.Natts))
		b.varint(int64(c.Checks))
		b.byte(flagBits(c.HasIndex, c.HasRules, c.HasTrigger, c.HasSubclass, c.IsPartition, c.RowSecurity, c.ForceRowSecurity, c.IsPopulated))
		b.byte(c.ReplIdent)
	}
	b.uvarint(uint64(len(l.Namespaces)))
	for _, n := range l.Namespaces {
		b.uvarint(uint64(n.OID))
		b.str(n.Name)
		b.uvarint(uint64(n.Owner))
	}
}

// decodeRelationList reads the body encodeRelationList writes; bytes
// after the fields it knows are skipped.
func decodeRelationList(b *dec, f *wal.Facts) {
	l := &wal.RelationListFacts{Namespaces: []wal.NamespaceOwner{}}
	if b.byte()&1 != 0 {
		l.Relations = []wal.RelationDetail{}
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		r := wal.RelationDetail{OID: uint32(b.uvarint()), Namespace: uint32(b.uvarint()), Name: b.str(), Kind: b.byte(), Owner: uint32(b.uvarint()), Persistence: b.byte()}
		fl := b.byte()
		r.HasACL, r.HasComment, r.Identity = fl&1 != 0, fl&2 != 0, fl&16 != 0
		for k := b.count(); k > 0 && b.err == nil; k-- {
			r.ACL = append(r.ACL, b.str())
		}
		if fl&4 != 0 {
			r.RelOptions = []string{}
		}
		for k := b.count(); k > 0 && b.err == nil; k-- {
			r.RelOptions = append(r.RelOptions, b.str())
		}
		r.Comment = b.str()
		if fl&8 != 0 {
			s := &wal.SequenceParams{TypeOID: uint32(b.uvarint())}
			s.Start, s.Increment, s.Max, s.Min, s.Cache = b.varint(), b.varint(), b.varint(), b.varint(), b.varint()
			s.Cycle = b.byte()&1 != 0
			r.Sequence = s
		}
		c := &r.Class
		c.Type, c.OfType, c.AM, c.Tablespace = uint32(b.uvarint()), uint32(b.uvarint()), uint32(b.uvarint()), uint32(b.uvarint())
		c.Natts, c.Checks = int16(b.varint()), int16(b.varint())
		cf := b.byte()
		c.HasIndex, c.HasRules, c.HasTrigger, c.HasSubclass = cf&1 != 0, cf&2 != 0, cf&4 != 0, cf&8 != 0
		c.IsPartition, c.RowSecurity, c.ForceRowSecurity, c.IsPopulated = cf&16 != 0, cf&32 != 0, cf&64 != 0, cf&128 != 0
		c.ReplIdent = b.byte()
		l.Relations = append(l.Relations, r)
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		l.Namespaces = append(l.Namespaces, wal.NamespaceOwner{OID: uint32(b.uvarint()), Name: b.str(), Owner: uint32(b.uvarint())})
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Relations = l
	}
}
