package mirror

import "github.com/sidecar-dev/sidecar/wal"

// What psql's \dT, \dD and \dO read of the database's types
// (wal.SchemaFacts.TypeDetail, carried by one table) follows the
// listings as one more optional section: a mark and one length-prefixed
// body, so a record written before ends before the mark (and decodes
// with TypeDetail nil: the SQL port then refuses what it answers) and a
// later sidecar can append fields to the body.

const typeDetailMark = 'm'

// encodeTypeDetail writes the section's body (catfacts_section.go: when
// the facts hold the types' details).
func encodeTypeDetail(b *enc, f *wal.Facts) {
	d := f.Schema.TypeDetail
	b.uvarint(uint64(len(d.Types)))
	for _, t := range d.Types {
		encodeTypeFacts(b, t.TypeFacts) // catfacts_usertypes.go
		b.uvarint(uint64(t.Relid))
		b.byte(flagBits(t.Defined))
	}
	b.uvarint(uint64(len(d.ACLs)))
	for _, a := range d.ACLs {
		b.uvarint(uint64(a.OID))
		b.uvarint(uint64(len(a.ACL)))
		for _, s := range a.ACL {
			b.str(s)
		}
	}
	encodeComments(b, d.Comments)
	b.uvarint(uint64(len(d.Constraints)))
	for _, c := range d.Constraints {
		for _, o := range []uint32{c.OID, c.TypeOID, c.Namespace} {
			b.uvarint(uint64(o))
		}
		b.str(c.Name)
		b.byte(c.Type)
		b.byte(flagBits(c.Deferrable, c.Deferred, c.Validated, c.Local, c.NoInherit))
		b.varint(int64(c.InhCount))
		b.str(c.Def)
		b.str(c.DefPretty)
	}
	b.uvarint(uint64(len(d.Collations)))
	for _, c := range d.Collations {
		for _, o := range []uint32{c.OID, c.Namespace, c.Owner} {
			b.uvarint(uint64(o))
		}
		b.str(c.Name)
		b.byte(c.Provider)
		b.varint(int64(c.Encoding))
		for _, s := range []string{c.Collate, c.Ctype, c.Locale, c.Rules, c.Version} {
			b.str(s)
		}
		b.byte(flagBits(c.Deterministic, c.CollateNull, c.CtypeNull, c.LocaleNull, c.RulesNull, c.VersionNull))
	}
	encodeTypeNames(b, d.CollationNamesakes)
	encodeNamespaceList(b, d.Namespaces) // catfacts_namespaces.go
	encodeTypeNames(b, d.Namesakes)
	encodeComments(b, d.CollationComments)
}

// encodeComments writes a list of objects' comments.
func encodeComments(b *enc, cs []wal.ObjectComment) {
	b.uvarint(uint64(len(cs)))
	for _, c := range cs {
		b.uvarint(uint64(c.OID))
		b.str(c.Comment)
	}
}

// decodeComments reads what encodeComments wrote.
func decodeComments(b *dec) []wal.ObjectComment {
	var out []wal.ObjectComment
	for n := b.count(); n > 0 && b.err == nil; n-- {
		out = append(out, wal.ObjectComment{OID: uint32(b.uvarint()), Comment: b.str()})
	}
	return out
}

// encodeTypeNames writes a list of schema-qualified names.
func encodeTypeNames(b *enc, names []wal.TypeName) {
	b.uvarint(uint64(len(names)))
	for _, n := range names {
		b.str(n.Namespace)
		b.str(n.Name)
	}
}

// decodeTypeNames reads what encodeTypeNames wrote.
func decodeTypeNames(b *dec) []wal.TypeName {
	var out []wal.TypeName
	for n := b.count(); n > 0 && b.err == nil; n-- {
		out = append(out, wal.TypeName{Namespace: b.str(), Name: b.str()})
	}
	return out
}

// decodeTypeDetail reads the body encodeTypeDetail writes; bytes after
// the fields it knows are skipped.
func decodeTypeDetail(b *dec, f *wal.Facts) {
	d := &wal.TypeDetailFacts{}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		t := wal.OtherType{TypeFacts: decodeTypeFacts(b), Relid: uint32(b.uvarint())}
		t.Defined = b.byte()&1 != 0
		d.Types = append(d.Types, t)
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		a := wal.TypeACL{OID: uint32(b.uvarint())}
		for k := b.count(); k > 0 && b.err == nil; k-- {
			a.ACL = append(a.ACL, b.str())
		}
		d.ACLs = append(d.ACLs, a)
	}
	d.Comments = decodeComments(b)
	for n := b.count(); n > 0 && b.err == nil; n-- {
		c := wal.DomainConstraint{OID: uint32(b.uvarint()), TypeOID: uint32(b.uvarint()), Namespace: uint32(b.uvarint()), Name: b.str(), Type: b.byte()}
		fl := b.byte()
		c.Deferrable, c.Deferred, c.Validated, c.Local, c.NoInherit = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0, fl&16 != 0
		c.InhCount, c.Def, c.DefPretty = int(b.varint()), b.str(), b.str()
		d.Constraints = append(d.Constraints, c)
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		c := wal.CollationRow{OID: uint32(b.uvarint()), Namespace: uint32(b.uvarint()), Owner: uint32(b.uvarint()), Name: b.str(), Provider: b.byte(),
			Encoding: int32(b.varint()), Collate: b.str(), Ctype: b.str(), Locale: b.str(), Rules: b.str(), Version: b.str()}
		fl := b.byte()
		c.Deterministic, c.CollateNull, c.CtypeNull, c.LocaleNull, c.RulesNull, c.VersionNull = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0, fl&16 != 0, fl&32 != 0
		d.Collations = append(d.Collations, c)
	}
	d.CollationNamesakes = decodeTypeNames(b)
	d.Namespaces = decodeNamespaceList(b)
	d.Namesakes = decodeTypeNames(b)
	d.CollationComments = decodeComments(b)
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.TypeDetail = d
	}
}
