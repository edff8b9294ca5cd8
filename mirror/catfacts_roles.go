package mirror

import "github.com/sidecar-dev/sidecar/wal"

// The cluster's roles (wal.SchemaFacts.Roles, Members) follow the
// server's version in the schemas part (catfacts_namespaces.go), said
// by the flag's third bit; a record written before has it unset and
// decodes with RolesRead false (the SQL port refuses pg_roles).

func encodeRoles(b *enc, s *wal.SchemaFacts) {
	b.uvarint(uint64(len(s.Roles)))
	for _, r := range s.Roles {
		b.uvarint(uint64(r.OID))
		b.str(r.Name)
		b.byte(flagBits(r.Super, r.Inherit, r.CreateRole, r.CreateDB, r.CanLogin, r.Replication, r.BypassRLS, r.Config != nil))
		b.varint(int64(r.ConnLimit))
		b.str(r.ValidUntil)
		if r.Config != nil {
			b.uvarint(uint64(len(r.Config)))
			for _, c := range r.Config {
				b.str(c)
			}
		}
		b.str(r.Comment)
	}
	b.uvarint(uint64(len(s.Members)))
	for _, m := range s.Members {
		b.uvarint(uint64(m.OID))
		b.uvarint(uint64(m.Role))
		b.uvarint(uint64(m.Member))
		b.uvarint(uint64(m.Grantor))
		b.byte(flagBits(m.Admin, m.Inherit, m.Set))
	}
}

// decodeRoles reads what encodeRoles wrote.
func decodeRoles(b *dec, s *wal.SchemaFacts) {
	s.RolesRead = true
	n := b.count()
	for i := 0; i < n && b.err == nil; i++ {
		r := wal.RoleFacts{OID: uint32(b.uvarint()), Name: b.str()}
		fl := b.byte()
		r.Super, r.Inherit, r.CreateRole, r.CreateDB = fl&1 != 0, fl&2 != 0, fl&4 != 0, fl&8 != 0
		r.CanLogin, r.Replication, r.BypassRLS = fl&16 != 0, fl&32 != 0, fl&64 != 0
		r.ConnLimit, r.ValidUntil = int32(b.varint()), b.str()
		if fl&128 != 0 {
			r.Config = []string{}
			for k := b.count(); k > 0 && b.err == nil; k-- {
				r.Config = append(r.Config, b.str())
			}
		}
		r.Comment = b.str()
		s.Roles = append(s.Roles, r)
	}
	n = b.count()
	for i := 0; i < n && b.err == nil; i++ {
		m := wal.MemberFacts{OID: uint32(b.uvarint()), Role: uint32(b.uvarint()), Member: uint32(b.uvarint()), Grantor: uint32(b.uvarint())}
		fl := b.byte()
		m.Admin, m.Inherit, m.Set = fl&1 != 0, fl&2 != 0, fl&4 != 0
		s.Members = append(s.Members, m)
	}
}
