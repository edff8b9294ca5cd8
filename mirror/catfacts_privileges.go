package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The column ACLs of the database's relations (wal.SchemaFacts.Privileges,
// carried by one table) follow what psql's \d prints of the partitioned
// tables as one more optional section: a mark and one length-prefixed
// body, so a record written before ends before the mark (and decodes
// with Privileges nil: the SQL port refuses information_schema for a
// role whose rows it cannot filter, as before) and a later sidecar can
// append fields.

const privilegesMark = 'D'

// encodePrivileges writes the section's body (catfacts_section.go: when
// the facts hold it).
func encodePrivileges(b *enc, f *wal.Facts) {
	p := f.Schema.Privileges
	b.byte(flagBits(p.ColumnACLs != nil))
	b.uvarint(uint64(len(p.ColumnACLs)))
	for _, c := range p.ColumnACLs {
		b.uvarint(uint64(c.Rel))
		b.str(c.Column)
		b.uvarint(uint64(len(c.ACL)))
		for _, a := range c.ACL {
			b.str(a)
		}
	}
}

// decodePrivileges reads the body encodePrivileges writes; bytes after
// the fields it knows are skipped.
func decodePrivileges(b *dec, f *wal.Facts) {
	p := &wal.PrivilegeFacts{}
	if b.byte()&1 != 0 {
		p.ColumnACLs = []wal.ColumnACL{}
	}
	for n := b.count(); n > 0 && b.err == nil; n-- {
		c := wal.ColumnACL{Rel: uint32(b.uvarint()), Column: b.str(), ACL: []string{}}
		for m := b.count(); m > 0 && b.err == nil; m-- {
			c.ACL = append(c.ACL, b.str())
		}
		p.ColumnACLs = append(p.ColumnACLs, c)
	}
	if b.err != nil {
		return // the section codec fails the record
	}
	if f.Schema != nil {
		f.Schema.Privileges = p
	}
}
