package mirror

import "github.com/sidecar-dev/sidecar/wal"

// A table's ACLs, policies and index columns (wal.SchemaFacts.Access)
// follow the listings' facts as one more optional section: a mark and
// one length-prefixed body, so a record written before ends before the
// mark (and decodes with Access nil: the SQL port then refuses what
// they answer) and a later sidecar can append fields to the body.

const accessMark = 'n'

// encodeACL writes an ACL, NULL (nil) apart from empty.
func encodeACL(b *enc, acl []string) {
	b.byte(flagBits(acl != nil))
	encodeStrs(b, acl)
}

// decodeACL reads what encodeACL writes.
func decodeACL(b *dec) []string {
	null := b.byte() == 0
	acl := decodeStrs(b)
	if !null && acl == nil {
		acl = []string{}
	}
	return acl
}

// encodeAccess writes the section's body (catfacts_section.go: when
// the facts hold the access facts).
func encodeAccess(b *enc, f *wal.Facts) {
	a := f.Schema.Access
	b.uvarint(uint64(len(a.ACLs)))
	for _, r := range a.ACLs {
		b.uvarint(uint64(r.OID))
		encodeACL(b, r.ACL)
	}
	b.uvarint(uint64(len(a.ColumnACLs)))
	for _, c := range a.ColumnACLs {
		b.uvarint(uint64(c.Rel))
		b.str(c.Column)
		encodeACL(b, c.ACL)
	}
	b.uvarint(uint64(len(a.Policies)))
	for _, p := range a.Policies {
		b.uvarint(uint64(p.OID))
		b.str(p.Name)
		b.byte(p.Cmd)
		b.byte(flagBits(p.Permissive, p.HasQual, p.HasWithCheck))
		b.uvarint(uint64(len(p.Roles)))
		for _, r := range p.Roles {
			b.uvarint(uint64(r))
		}
		for _, s := range []string{p.Qual, p.QualPretty, p.WithCheck, p.CheckPretty} {
			b.str(s)
		}
	}
	b.uvarint(uint64(len(a.Indexes)))
	for _, x := range a.Indexes {
		b.uvarint(uint64(x.OID))
		b.uvarint(uint64(x.Tablespace))
		b.byte(flagBits(x.Deferrable, x.Deferred))
		b.uvarint(uint64(len(x.Columns)))
		for _, c := range x.Columns {
			b.str(c.Name)
			b.str(c.Type)
			b.str(c.Def)
			b.byte(c.Storage)
			b.str(c.StatTarget)
		}
	}
}

// decodeAccess reads the body encodeAccess writes; bytes after the
// fields it knows are skipped.
func decodeAccess(b *dec, f *wal.Facts) {
	a := &wal.AccessFacts{}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		a.ACLs = append(a.ACLs, wal.RelationACL{OID: uint32(b.uvarint()), ACL: decodeACL(b)})
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		a.ColumnACLs = append(a.ColumnACLs, wal.ColumnACL{Rel: uint32(b.uvarint()), Column: b.str(), ACL: decodeACL(b)})
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		p := wal.PolicyFacts{OID: uint32(b.uvarint()), Name: b.str(), Cmd: b.byte()}
		fl := b.byte()
		p.Permissive, p.HasQual, p.HasWithCheck = fl&1 != 0, fl&2 != 0, fl&4 != 0
		for k := b.count(); k > 0 && b.err == nil; k-- {
			p.Roles = append(p.Roles, uint32(b.uvarint()))
		}
		p.Qual, p.QualPretty, p.WithCheck, p.CheckPretty = b.str(), b.str(), b.str(), b.str()
		a.Policies = append(a.Policies, p)
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		x := wal.IndexColumns{OID: uint32(b.uvarint()), Tablespace: uint32(b.uvarint())}
		fl := b.byte()
		x.Deferrable, x.Deferred = fl&1 != 0, fl&2 != 0
		for k := b.count(); k > 0 && b.err == nil; k-- {
			x.Columns = append(x.Columns, wal.IndexColumn{Name: b.str(), Type: b.str(), Def: b.str(), Storage: b.byte(), StatTarget: b.str()})
		}
		a.Indexes = append(a.Indexes, x)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Access = a
	}
}
