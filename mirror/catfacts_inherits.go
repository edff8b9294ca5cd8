package mirror

import "github.com/sidecar-dev/sidecar/wal"

// A table's parents, partitioned ancestors and its views' column
// comments (wal.Facts.Inherits) follow the listings as one more
// optional section: a mark and one length-prefixed body, so a record
// written before ends before the mark (and decodes with Inherits nil:
// the SQL port then refuses what they answer) and a later sidecar can
// append fields to the body.

const inheritsMark = 'o'

// encodeInherits writes the section's body (catfacts_section.go: when
// the facts hold it).
func encodeInherits(b *enc, f *wal.Facts) {
	in := f.Inherits
	b.uvarint(uint64(len(in.Parents)))
	for _, p := range in.Parents {
		b.uvarint(uint64(p.OID))
		b.str(p.Schema)
		b.str(p.Name)
		b.byte(p.Kind)
		b.byte(flagBits(p.DetachPending))
	}
	b.uvarint(uint64(len(in.Ancestors)))
	for _, a := range in.Ancestors {
		b.uvarint(uint64(a.OID))
		b.str(a.Schema)
		b.str(a.Name)
		b.uvarint(uint64(a.OwnerOID))
		b.str(a.Owner)
		b.uvarint(uint64(a.Parent))
		b.str(a.Bound)
		b.varint(int64(a.Natts))
		b.uvarint(uint64(len(a.Indexes)))
		for _, x := range a.Indexes {
			b.uvarint(uint64(x.OID))
			b.str(x.Name)
			b.uvarint(uint64(x.AM))
			b.varint(int64(x.Natts))
			b.uvarint(uint64(x.Parent))
			b.varint(int64(x.KeyAtts))
			b.uvarint(uint64(x.Flags))
		}
	}
	b.uvarint(uint64(len(in.ViewComments)))
	for _, v := range in.ViewComments {
		b.uvarint(uint64(v.OID))
		b.uvarint(uint64(len(v.Comments)))
		for _, c := range v.Comments {
			b.str(c)
		}
	}
}

// decodeInherits reads the body encodeInherits writes; bytes after the
// fields it knows are skipped.
func decodeInherits(b *dec, f *wal.Facts) {
	in := &wal.InheritFacts{}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		in.Parents = append(in.Parents, wal.InheritParent{OID: uint32(b.uvarint()), Schema: b.str(), Name: b.str(), Kind: b.byte(), DetachPending: b.byte() != 0})
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		a := wal.PartAncestor{OID: uint32(b.uvarint()), Schema: b.str(), Name: b.str(), OwnerOID: uint32(b.uvarint()),
			Owner: b.str(), Parent: uint32(b.uvarint()), Bound: b.str(), Natts: int16(b.varint())}
		for k := b.count(); k > 0 && b.err == nil; k-- {
			a.Indexes = append(a.Indexes, wal.PartIndex{OID: uint32(b.uvarint()), Name: b.str(), AM: uint32(b.uvarint()), Natts: int16(b.varint()),
				Parent: uint32(b.uvarint()), KeyAtts: int16(b.varint()), Flags: uint16(b.uvarint())})
		}
		in.Ancestors = append(in.Ancestors, a)
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		v := wal.ViewComments{OID: uint32(b.uvarint())}
		for k := b.count(); k > 0 && b.err == nil; k-- {
			v.Comments = append(v.Comments, b.str())
		}
		in.ViewComments = append(in.ViewComments, v)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	f.Inherits = in
}
